import type { Collection, Event, Registration } from './core.ts';
import { BaseCollection } from './internal/base.ts';
import {
  type CollectionDump,
  type CollectionInternals,
  IndexSet,
  type IndexView,
  internalsOf,
} from './internal/internals.ts';
import { setOutput } from './internal/output-set.ts';
import { whenSynced } from './internal/sync-flag.ts';
import type { MergeFunc } from './join.ts';
import type { CollectionOptions } from './options.ts';

interface Entry<T> {
  readonly c: Collection<T>;
  readonly ci: CollectionInternals<T>;
  reg: Registration;
  /** Keys this sub-collection has announced. */
  readonly keys: Set<string>;
  active: boolean;
  gated: boolean;
}

/**
 * The union of a dynamic set of collections (a collection of collections, keyed by collection
 * name): objects sharing a key are merged with `merge` (default: the first collection added
 * wins). Replacing a sub-collection by another of the same name is atomic: the new one takes over
 * once it has synced, and only the differences produce events.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#nestedJoin}
 */
export function nestedJoin<T>(
  collections: Collection<Collection<T>>,
  opts: CollectionOptions & { readonly merge?: MergeFunc<T> | undefined },
): Collection<T> {
  return new NestedJoin<T>(collections, opts.merge, opts);
}

class NestedJoin<T> extends BaseCollection<T> {
  readonly #container: Collection<Collection<T>>;
  readonly #merge: MergeFunc<T> | undefined;
  readonly #entries = new Map<string, Entry<T>>();
  /** Sub-collections waiting to sync before they replace an entry of the same name. */
  readonly #incoming = new Map<string, Entry<T>>();
  readonly #outputs = new Map<string, T>();
  readonly #indexes = new IndexSet<T>();
  readonly #reg: Registration;
  #pending = 1;

  constructor(
    container: Collection<Collection<T>>,
    merge: MergeFunc<T> | undefined,
    opts: CollectionOptions,
  ) {
    super('nested-join', 'NestedJoin', opts);
    this.#container = container;
    this.#merge = merge;
    this.start();
    this.#reg = container.registerBatch((events) => this.#onContainer(events), true);
    whenSynced(this.#reg, this.signal, () => this.#gateDone());
  }

  #gateDone(): void {
    if (--this.#pending === 0) this.markSynced();
  }

  #subscribe(name: string, c: Collection<T>, activate: boolean): Entry<T> {
    const entry: Entry<T> = {
      c,
      ci: internalsOf(c, 'nestedJoin'),
      reg: undefined as unknown as Registration,
      keys: new Set(),
      active: activate,
      gated: false,
    };
    entry.reg = c.registerBatch((events) => this.#onSub(name, entry, events), true);
    if (!this.hasSynced() && activate) {
      entry.gated = true;
      this.#pending++;
      whenSynced(entry.reg, this.signal, () => {
        if (entry.gated) {
          entry.gated = false;
          this.#gateDone();
        }
      });
    }
    return entry;
  }

  #unsubscribe(entry: Entry<T>): void {
    entry.reg.remove();
    entry.active = false;
    if (entry.gated) {
      entry.gated = false;
      this.#gateDone();
    }
  }

  #onContainer(events: readonly Event<Collection<T>>[]): void {
    if (this.stopped()) return;
    const out: Event<T>[] = [];
    for (const e of events) {
      const name = (e.new ?? e.old)!.name;
      const cur = this.#container.get(name);
      const existing = this.#entries.get(name);
      const incoming = this.#incoming.get(name);
      if (cur === undefined) {
        if (incoming) {
          this.#unsubscribe(incoming);
          this.#incoming.delete(name);
        }
        if (existing) {
          this.#unsubscribe(existing);
          this.#entries.delete(name);
          for (const k of existing.keys) this.#recompute(k, out);
        }
        continue;
      }
      if (existing?.c === cur || incoming?.c === cur) continue;
      if (existing === undefined) {
        const entry = this.#subscribe(name, cur, true);
        this.#entries.set(name, entry);
        continue;
      }
      // A new instance under the same name: swap once it has synced.
      if (incoming) this.#unsubscribe(incoming);
      const next = this.#subscribe(name, cur, false);
      this.#incoming.set(name, next);
      whenSynced(next.reg, this.signal, () => this.#swap(name, next));
    }
    this.emit(out);
  }

  #swap(name: string, next: Entry<T>): void {
    if (this.stopped() || this.#incoming.get(name) !== next) return;
    this.#incoming.delete(name);
    const old = this.#entries.get(name);
    const touched = new Set<string>(next.keys);
    if (old) {
      for (const k of old.keys) touched.add(k);
      this.#unsubscribe(old);
    }
    next.active = true;
    this.#entries.set(name, next);
    const out: Event<T>[] = [];
    for (const k of touched) this.#recompute(k, out);
    this.emit(out);
  }

  #onSub(_name: string, entry: Entry<T>, events: readonly Event<T>[]): void {
    if (this.stopped()) return;
    const keys = new Set<string>();
    for (const e of events) {
      const k = entry.ci.keyOf((e.new ?? e.old)!);
      if (entry.c.get(k) === undefined) entry.keys.delete(k);
      else entry.keys.add(k);
      keys.add(k);
    }
    if (!entry.active) return;
    const out: Event<T>[] = [];
    for (const k of keys) this.#recompute(k, out);
    this.emit(out);
  }

  #recompute(key: string, out: Event<T>[]): void {
    const vals: T[] = [];
    for (const e of this.#entries.values()) {
      if (!e.active) continue;
      const v = e.c.get(key);
      if (v !== undefined) vals.push(v);
    }
    const merged = vals.length === 0 ? undefined : this.#merge ? this.#merge(vals) : vals[0];
    setOutput({ outputs: this.#outputs, indexes: this.#indexes }, [key, merged], out);
  }

  get(key: string): T | undefined {
    return this.#outputs.get(key);
  }

  list(): T[] {
    return [...this.#outputs.values()];
  }

  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T> {
    return this.#indexes.get(name, extract, () => this.#outputs.entries());
  }

  dump(): CollectionDump {
    return {
      kind: this.kind,
      synced: this.hasSynced(),
      inputCollection: this.#container.name,
      outputs: Object.fromEntries(this.#outputs),
      collections: [...this.#entries.keys()],
    };
  }

  protected override onStop(): void {
    this.#reg.remove();
    for (const e of this.#entries.values()) e.reg.remove();
    for (const e of this.#incoming.values()) e.reg.remove();
    this.#entries.clear();
    this.#incoming.clear();
  }
}
