import { serializeError } from '@kubeloom/kube';
import type { Collection, Event, HandlerContext, Registration, TransformationMulti } from './core.ts';
import { equal } from './equality.ts';
import { BaseCollection } from './internal/base.ts';
import { adoptValues, type FilterSpec, matchesObject, sameSpec } from './internal/filter-spec.ts';
import {
  type CollectionDump,
  type CollectionInternals,
  IndexSet,
  type IndexView,
  internalsOf,
} from './internal/internals.ts';
import { type Dependency, SourceSub, sameRoute } from './internal/source-subscription.ts';
import { whenSynced } from './internal/sync-flag.ts';
import { TrackingContext } from './internal/tracking-context.ts';
import type { CollectionOptions } from './options.ts';

/**
 * The output stored under one key. An update replaces `value` in place (no map write); a delete
 * removes the slot from the map and clears `value`, so a slot still referenced elsewhere is
 * known dead (a new output under that key gets a new slot).
 */
interface Slot<O> {
  value: O | undefined;
}

/** What the collection remembers per input key. */
interface InputState {
  /** Output key(s) produced by this input. */
  out: string | string[] | undefined;
  /** The slot of the single output `out` (1:1 collections): its update needs no map lookup. */
  slot: Slot<unknown> | undefined;
  /** Fetches of the last accepted computation. */
  deps: Dependency[] | undefined;
  /** The last transformation error, until a computation succeeds. */
  error: string | undefined;
}

/** True when two dependency lists record the same fetches (same sources, same filters). */
function sameDependencies(a: readonly Dependency[], b: readonly Dependency[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.sub !== y.sub || !sameSpec(x.spec, y.spec)) return false;
  }
  return true;
}

/** True when two dependency lists have the same reverse-index entries. */
function sameShape(a: readonly Dependency[], b: readonly Dependency[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameRoute(a[i]!, b[i]!)) return false;
  return true;
}

/**
 * Whether a changed object matches a recorded fetch. A filter that throws on it (an object
 * without labels or selector) counts as a match: the recompute reports the error through the
 * transformation, with the collection's name and the input's key.
 */
function matchesSafely(spec: FilterSpec, si: CollectionInternals<unknown>, obj: unknown): boolean {
  try {
    return matchesObject(spec, si, obj);
  } catch {
    return true;
  }
}

/** Hook called after an input's result was committed (status collections). */
export type InputHook<I> = (key: string, input: I | undefined, extra: unknown) => void;

/** Internal options of {@link DerivedCollection}. */
export interface DerivedOptions<I> {
  /** The transformation of one input (its result is one output, or an array of outputs when `multi`). */
  readonly transform: (ctx: HandlerContext, input: I) => unknown;
  readonly kind: string;
  readonly defaultName: string;
  readonly multi: boolean;
  readonly keyOf?: ((obj: unknown) => string) | undefined;
  readonly afterInput?: InputHook<I> | undefined;
}

/**
 * The derived collection (Istio's manyCollection): a transformation per input, dependency
 * tracking through fetch, a reverse index from fetched objects to inputs, and change detection
 * on outputs. Everything runs synchronously on the handler queues of the inputs; the collection
 * is synced once every initial input (and every source fetched so far) was processed.
 */
export class DerivedCollection<I, O> extends BaseCollection<O> {
  readonly #parent: Collection<I>;
  readonly #parentInternals: CollectionInternals<I>;
  readonly #transform: (ctx: HandlerContext, input: I) => unknown;
  readonly #multi: boolean;
  readonly #customKey: ((obj: unknown) => string) | undefined;
  readonly #afterInput: InputHook<I> | undefined;
  readonly #inputs = new Map<string, InputState>();
  readonly #outputs = new Map<string, Slot<O>>();
  readonly #indexes = new IndexSet<O>();
  readonly #subs = new Map<number, SourceSub>();
  /** The subscription the last fetch used (see {@link DerivedCollection.subscribe}). */
  #lastSub: SourceSub | undefined;
  readonly #primary: Registration;
  /** Things the initial sync still waits for (the primary registration, then fetched sources). */
  #pendingSync = 1;
  #errors = 0;

  constructor(parent: Collection<I>, opts: CollectionOptions, d: DerivedOptions<I>) {
    super(d.kind, d.defaultName, opts);
    this.#parent = parent;
    this.#parentInternals = internalsOf(parent, this.kind);
    this.#transform = d.transform;
    this.#multi = d.multi;
    this.#customKey = d.keyOf;
    this.#afterInput = d.afterInput;
    this.start();
    this.#primary = parent.registerBatch((events) => this.#onPrimary(events), true);
    whenSynced(this.#primary, this.signal, () => this.#gateDone());
  }

  override keyOf(obj: O): string {
    return this.#customKey ? this.#customKey(obj) : super.keyOf(obj);
  }

  get(key: string): O | undefined {
    return this.#outputs.get(key)?.value;
  }

  list(): O[] {
    const out: O[] = new Array(this.#outputs.size);
    let i = 0;
    for (const slot of this.#outputs.values()) out[i++] = slot.value!;
    return out;
  }

  *#entries(): IterableIterator<[string, O]> {
    for (const [k, slot] of this.#outputs) yield [k, slot.value!];
  }

  index(name: string, extract: (obj: O) => readonly string[]): IndexView<O> {
    return this.#indexes.get(name, extract, () => this.#entries());
  }

  #gateDone(): void {
    this.#pendingSync--;
    if (this.#pendingSync === 0) this.markSynced();
  }

  /** The subscription to `source`, created (before the first read) on first fetch. */
  subscribe(source: Collection<unknown>): SourceSub | undefined {
    // The source of the previous fetch (usually the same, fetched once per computation).
    const last = this.#lastSub;
    if (last !== undefined && last.src === source && last.reg !== undefined) return last;
    const si = internalsOf(source);
    if (si.uid === this.uid) return undefined; // reading oneself records nothing
    let sub = this.#subs.get(si.uid);
    if (sub !== undefined) {
      this.#lastSub = sub;
      return sub;
    }
    sub = new SourceSub(source, si);
    const s = sub;
    this.#subs.set(si.uid, s);
    s.reg = source.registerBatch((events) => this.#onSecondary(s, events), false);
    this.#lastSub = s;
    if (!this.hasSynced() && !s.reg.hasSynced()) {
      s.gated = true;
      this.#pendingSync++;
      whenSynced(s.reg, this.signal, () => {
        if (!s.gated) return;
        s.gated = false;
        this.#gateDone();
      });
    }
    return s;
  }

  #dropSub(sub: SourceSub): void {
    this.#subs.delete(sub.si.uid);
    if (this.#lastSub === sub) this.#lastSub = undefined;
    sub.reg?.remove();
    sub.reg = undefined;
    if (sub.gated) {
      sub.gated = false;
      this.#gateDone();
    }
  }

  #onPrimary(events: readonly Event<I>[]): void {
    if (this.stopped()) return;
    const pk = this.#parentInternals;
    if (events.length === 1) {
      const e = events[0]!;
      const out: Event<O>[] = [];
      this.#processKey(pk.keyOf((e.new ?? e.old)!), out);
      this.emit(out);
      return;
    }
    const keys = new Set<string>();
    for (const e of events) keys.add(pk.keyOf((e.new ?? e.old)!));
    this.#process(keys);
  }

  #onSecondary(sub: SourceSub, events: readonly Event<unknown>[]): void {
    if (this.stopped() || this.#subs.get(sub.si.uid) !== sub) return;
    const candidates = new Set<string>();
    const affected = new Set<string>();
    for (const e of events) {
      for (const item of [e.old, e.new]) {
        if (item === undefined) continue;
        candidates.clear();
        sub.candidates(item, candidates);
        for (const inKey of candidates) {
          if (affected.has(inKey)) continue;
          const deps = this.#inputs.get(inKey)?.deps;
          if (deps === undefined) continue;
          for (const d of deps) {
            if (d.sub === sub && matchesSafely(d.spec, sub.si, item)) {
              affected.add(inKey);
              break;
            }
          }
        }
      }
    }
    if (affected.size > 0) this.#process(affected);
  }

  /** Recomputes these inputs from the parent's current state and emits the output changes. */
  #process(keys: Iterable<string>): void {
    const out: Event<O>[] = [];
    for (const key of keys) this.#processKey(key, out);
    this.emit(out);
  }

  #processKey(key: string, out: Event<O>[]): void {
    const cur = this.#parent.get(key);
    if (cur === undefined) this.#removeInput(key, out);
    else this.#compute(key, cur, out);
  }

  #removeInput(key: string, out: Event<O>[]): void {
    const st = this.#inputs.get(key);
    if (st === undefined) return;
    this.#inputs.delete(key);
    this.#forEachOut(st.out, (ok) => this.#deleteOutput(ok, out));
    this.#replaceDeps(key, st.deps, undefined);
    this.#afterInput?.(key, undefined, undefined);
  }

  #forEachOut(out: string | string[] | undefined, fn: (k: string) => void): void {
    if (out === undefined) return;
    if (typeof out === 'string') fn(out);
    else for (const k of out) fn(k);
  }

  #compute(key: string, input: I, out: Event<O>[]): void {
    let st = this.#inputs.get(key);
    const ctx = new TrackingContext(this, st?.deps);
    let result: unknown;
    // Output keys are derived inside the guarded section: a keyless output is a transformation error.
    let singleKey: string | undefined;
    let many: Map<string, O> | undefined;
    try {
      result = this.#transform(ctx, input);
      if (!this.#multi) {
        if (result !== undefined && result !== null) singleKey = this.keyOf(result as O);
      } else {
        many = new Map<string, O>();
        for (const o of result as Iterable<O>) many.set(this.keyOf(o), o);
      }
    } catch (err) {
      this.#errors++;
      const message = err instanceof Error ? err.message : String(err);
      this.logger.error('transformation failed; keeping the previous output', {
        key,
        err: serializeError(err),
      });
      if (st === undefined) {
        st = { out: undefined, slot: undefined, deps: undefined, error: message };
        this.#inputs.set(key, st);
      }
      st.error = message;
      // Keep watching what both the previous and the failed computation read (the latter may
      // share entries with the former).
      const prev = st.deps ?? [];
      const merged = [...prev, ...(ctx.deps() ?? []).filter((d) => !prev.includes(d))];
      this.#replaceDeps(key, st.deps, merged.length > 0 ? merged : undefined);
      st.deps = merged.length > 0 ? merged : undefined;
      return;
    }
    if (st === undefined) {
      st = { out: undefined, slot: undefined, deps: undefined, error: undefined };
      this.#inputs.set(key, st);
    }
    st.error = undefined;
    // Dependencies are recorded even for a discarded result, so the input is recomputed when
    // what it waited for changes (Istio P5).
    st.deps = this.#replaceDeps(key, st.deps, ctx.deps());
    if (ctx.discarded && st.out !== undefined) return;

    const oldOut = st.out;
    if (!this.#multi) {
      if (singleKey === undefined) {
        st.out = undefined;
        st.slot = undefined;
        this.#forEachOut(oldOut, (ok) => this.#deleteOutput(ok, out));
      } else {
        // A 1:1 output keyed like its input shares the input's key string.
        const ok = singleKey === key ? key : singleKey;
        const o = result as O;
        if (oldOut !== ok) st.out = ok; // an equal key string: keep the one already stored
        // Deletes first: a key change is delete then add (Istio P7).
        if (oldOut !== undefined && oldOut !== ok) {
          this.#forEachOut(oldOut, (k) => {
            if (k !== ok) this.#deleteOutput(k, out);
          });
        }
        const e = this.#setOutput(ok, o, st);
        if (e !== undefined) out.push(e);
      }
    } else {
      const next = many!;
      st.out = next.size === 0 ? undefined : next.size === 1 ? next.keys().next().value! : [...next.keys()];
      this.#forEachOut(oldOut, (k) => {
        if (!next.has(k)) this.#deleteOutput(k, out);
      });
      for (const [ok, o] of next) {
        const e = this.#setOutput(ok, o, undefined);
        if (e !== undefined) out.push(e);
      }
    }
    this.#afterInput?.(key, input, ctx.extra);
  }

  /**
   * Stores output `o` under `ok` and returns the change to emit (none when equal to the current one).
   * `st`, for a 1:1 input whose previous output had key `ok`, holds that output's slot: while it
   * is live it is the map's slot for `ok`, so the update reads and writes it without a lookup.
   */
  #setOutput(ok: string, o: O, st: InputState | undefined): Event<O> | undefined {
    let slot = st?.slot as Slot<O> | undefined;
    if (slot === undefined || slot.value === undefined) {
      slot = this.#outputs.get(ok);
      if (slot === undefined) {
        slot = { value: o };
        this.#outputs.set(ok, slot);
        if (st !== undefined) st.slot = slot;
        this.#indexes.update(ok, undefined, o);
        return { type: 'add', new: o };
      }
      if (st !== undefined) st.slot = slot;
    }
    const old = slot.value!;
    if (equal(old, o)) return undefined;
    slot.value = o;
    this.#indexes.update(ok, old, o);
    return { type: 'update', old, new: o };
  }

  #deleteOutput(ok: string, out: Event<O>[]): void {
    const slot = this.#outputs.get(ok);
    if (slot === undefined) return;
    this.#outputs.delete(ok);
    const old = slot.value!;
    slot.value = undefined;
    this.#indexes.update(ok, old, undefined);
    out.push({ type: 'delete', old });
  }

  /**
   * Replaces an input's dependencies atomically, reverse index included (Istio P1), and returns
   * the list to keep. When the computation fetched exactly what the previous one did (the common
   * recompute), the previous list is kept and the new one dies young: dependencies that live as
   * long as the input are not reallocated on every change.
   */
  #replaceDeps(
    key: string,
    old: Dependency[] | undefined,
    next: Dependency[] | undefined,
  ): Dependency[] | undefined {
    if (old === next) return next;
    if (old !== undefined && next !== undefined && sameDependencies(old, next)) {
      for (let i = 0; i < old.length; i++) adoptValues(old[i]!.spec, next[i]!.spec);
      return old;
    }
    if (old !== undefined && next !== undefined && sameShape(old, next)) {
      // Same entries: keep the filed (shared) entry strings, drop the fresh copies.
      for (let i = 0; i < next.length; i++) next[i]!.keys = old[i]!.keys;
      return next;
    }
    if (next !== undefined) for (const d of next) d.sub.refs++;
    if (old !== undefined) {
      for (const d of old) {
        d.sub.remove(key, d);
        d.sub.refs--;
      }
    }
    if (next !== undefined) for (const d of next) d.sub.add(key, d);
    if (old !== undefined) for (const d of old) if (d.sub.refs <= 0) this.#dropSub(d.sub);
    // Subscriptions created by a computation whose dependencies were not kept.
    if (next === undefined && old === undefined) this.#dropUnused();
    return next;
  }

  #dropUnused(): void {
    for (const sub of this.#subs.values()) if (sub.refs <= 0) this.#dropSub(sub);
  }

  /** Internal, for tests: reverse-index entries and subscriptions. */
  dependencyStats(): { subscriptions: number; reverseEntries: number } {
    let reverseEntries = 0;
    for (const s of this.#subs.values()) reverseEntries += s.size();
    return { subscriptions: this.#subs.size, reverseEntries };
  }

  dump(): CollectionDump {
    const inputs: Record<string, { outputs: string[]; dependencies: string[]; error?: string }> = {};
    for (const [k, st] of this.#inputs) {
      const outs: string[] = [];
      this.#forEachOut(st.out, (o) => outs.push(o));
      const entry: { outputs: string[]; dependencies: string[]; error?: string } = {
        outputs: outs,
        dependencies: [...new Set((st.deps ?? []).map((d) => d.sub.src.name))],
      };
      if (st.error !== undefined) entry.error = st.error;
      inputs[k] = entry;
    }
    return {
      kind: this.kind,
      synced: this.hasSynced(),
      inputCollection: this.#parent.name,
      outputs: Object.fromEntries(this.#entries()),
      inputs,
      errors: this.#errors,
      dependencies: [...this.#subs.values()].map((s) => s.src.name),
    };
  }

  protected override onStop(): void {
    this.#primary.remove();
    for (const sub of this.#subs.values()) sub.reg?.remove();
    this.#subs.clear();
    this.#lastSub = undefined;
    for (const st of this.#inputs.values()) st.deps = undefined;
  }
}

/**
 * A 1:N derived collection: `transform` maps each input to any number of outputs. Output keys
 * must be unique across every input (duplicates within one result collapse, the last wins).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#manyCollection}
 */
export function manyCollection<I, O>(
  parent: Collection<I>,
  transform: TransformationMulti<I, O>,
  opts: CollectionOptions,
): Collection<O> {
  return new DerivedCollection<I, O>(parent, opts, {
    transform,
    kind: 'many',
    defaultName: `ManyCollection[${parent.name}]`,
    multi: true,
  });
}
