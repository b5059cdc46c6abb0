import type { Collection, Event, HandlerContext, Registration } from './core.ts';
import { equal } from './equality.ts';
import { fetchSpec, indexSpec, withOptions } from './fetch.ts';
import type { FetchOption, IndexHandle } from './filter.ts';
import { BaseCollection } from './internal/base.ts';
import { type CollectionDump, IndexSet, type IndexView, internalsOf } from './internal/internals.ts';
import { namespaceOf } from './internal/namespace-of.ts';
import { INTERNAL } from './internal/symbols.ts';
import { whenSynced } from './internal/sync-flag.ts';
import type { CollectionOptions } from './options.ts';

/** The group of objects sharing one index key, as an object of an index collection. */
export interface IndexObject<K, O> {
  /** The index key. */
  readonly key: K;
  /** The objects with this key. */
  readonly objects: readonly O[];
  /** The key as a string (the object's key in the index collection). */
  resourceName(): string;
}

/**
 * A secondary index over a collection, kept in step with it. `lookup` reads it without
 * recording a dependency; `fetch` reads it from a transformation and records one.
 */
export interface CollectionIndex<K, O> {
  /** The index's name (a dedupe key per collection). */
  readonly name: string;
  /** The indexed collection. */
  readonly collection: Collection<O>;
  /**
   * @internal Handle used by `filter.index`; `namespace` marks the namespace index, whose key
   * also scopes the automatic label and selector indexes of a fetch.
   */
  readonly [INTERNAL]: { readonly view: IndexView<O>; readonly owner: number; readonly namespace: boolean };
  /** The objects with this key, without recording a dependency. */
  lookup(key: K): O[];
  /** The objects with this key, recording a dependency (plus any extra filters). */
  fetch(ctx: HandlerContext, key: K, ...opts: FetchOption[]): O[];
  /**
   * The index viewed as a collection of {@link IndexObject}s (a "group by"): use it as the input
   * of a collection whose outputs are keyed by the index key.
   */
  asCollection(opts: CollectionOptions): Collection<IndexObject<K, O>>;
}

function keyString(k: unknown): string {
  return typeof k === 'string' ? k : String(k);
}

/**
 * Creates (or returns, by `name`) an index over `c`: each object is listed under every key
 * `extract` returns. Non-string keys are converted with `String()`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#index}
 */
export function index<K, O>(
  c: Collection<O>,
  name: string,
  extract: (obj: O) => readonly K[],
): CollectionIndex<K, O> {
  const internals = internalsOf(c, 'index');
  const view = internals.index(name, (o) => {
    const ks = extract(o);
    let allStrings = true;
    for (const k of ks) if (typeof k !== 'string') allStrings = false;
    return allStrings ? (ks as unknown as readonly string[]) : ks.map(keyString);
  });
  return makeIndex(c, { view, extract }, { owner: internals.uid, namespace: false });
}

const namespaceKeys = (o: unknown): readonly string[] => [namespaceOf(o)];

/**
 * The index of `c` by namespace (`metadata.namespace`, or `namespace`, `''` when absent).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#namespaceIndex}
 */
export function namespaceIndex<O>(c: Collection<O>): CollectionIndex<string, O> {
  const internals = internalsOf(c, 'namespaceIndex');
  const view = internals.index('namespace', namespaceKeys);
  // Only a view that really extracts namespaces scopes the automatic indexes (an index named
  // "namespace" created before by `index()` may extract something else).
  return makeIndex(
    c,
    { view, extract: namespaceKeys },
    { owner: internals.uid, namespace: view.extract === namespaceKeys },
  );
}

/** An index of a collection: its view and the key extraction it was built with. */
interface IndexSource<K, O> {
  readonly view: IndexView<O>;
  readonly extract: (obj: O) => readonly K[];
}

function makeIndex<K, O>(
  c: Collection<O>,
  source: IndexSource<K, O>,
  { owner, namespace }: { readonly owner: number; readonly namespace: boolean },
): CollectionIndex<K, O> {
  return new IndexImpl(c, source, { view: source.view, owner, namespace });
}

/**
 * A {@link CollectionIndex}. Its functions are bound (they may be passed around detached), and
 * `fetch`, which runs in every transformation that reads the index, builds no argument object.
 */
class IndexImpl<K, O> implements CollectionIndex<K, O> {
  readonly name: string;
  readonly collection: Collection<O>;
  readonly [INTERNAL]: IndexHandle & { readonly view: IndexView<O> };
  readonly lookup: (key: K) => O[];
  readonly fetch: (ctx: HandlerContext, key: K, ...opts: FetchOption[]) => O[];
  readonly asCollection: (opts: CollectionOptions) => Collection<IndexObject<K, O>>;

  constructor(
    c: Collection<O>,
    source: IndexSource<K, O>,
    handle: { readonly view: IndexView<O>; readonly owner: number; readonly namespace: boolean },
  ) {
    const { view } = source;
    this.name = view.name;
    this.collection = c;
    this[INTERNAL] = handle as IndexHandle & { readonly view: IndexView<O> };
    this.lookup = (key) => view.lookup(keyString(key));
    this.fetch = (ctx, key, ...opts) =>
      fetchSpec(ctx, c, withOptions(indexSpec(handle as IndexHandle, keyString(key)), c, opts));
    this.asCollection = (opts) => new IndexCollection<K, O>(c, source, opts);
  }
}

class IndexObjectImpl<K, O> implements IndexObject<K, O> {
  readonly key: K;
  readonly objects: readonly O[];
  constructor(key: K, objects: readonly O[]) {
    this.key = key;
    this.objects = objects;
  }
  resourceName(): string {
    return keyString(this.key);
  }
  equals(other: IndexObject<K, O>): boolean {
    if (this.objects.length !== other.objects.length || keyString(this.key) !== keyString(other.key))
      return false;
    for (let i = 0; i < this.objects.length; i++) if (!equal(this.objects[i], other.objects[i])) return false;
    return true;
  }
}

/** An index materialized as a collection of groups, updated from the parent's events. */
class IndexCollection<K, O> extends BaseCollection<IndexObject<K, O>> {
  readonly #parent: Collection<O>;
  readonly #view: IndexView<O>;
  readonly #extract: (obj: O) => readonly K[];
  readonly #groups = new Map<string, IndexObject<K, O>>();
  readonly #indexes = new IndexSet<IndexObject<K, O>>();
  readonly #reg: Registration;

  constructor(parent: Collection<O>, { view, extract }: IndexSource<K, O>, opts: CollectionOptions) {
    super('index', `Index[${view.name}]`, opts);
    this.#parent = parent;
    this.#view = view;
    this.#extract = extract;
    this.#reg = parent.registerBatch((events) => this.#onEvents(events), true);
    whenSynced(this.#reg, this.signal, () => this.markSynced());
    this.start();
  }

  #onEvents(events: readonly Event<O>[]): void {
    const touched = new Map<string, K>();
    for (const e of events) {
      if (e.old !== undefined) for (const k of this.#extract(e.old)) touched.set(keyString(k), k);
      if (e.new !== undefined) for (const k of this.#extract(e.new)) touched.set(keyString(k), k);
    }
    const out: Event<IndexObject<K, O>>[] = [];
    for (const [ks, k] of touched) {
      const objs = this.#view.lookup(ks);
      const old = this.#groups.get(ks);
      if (objs.length === 0) {
        if (old !== undefined) {
          this.#groups.delete(ks);
          this.#indexes.update(ks, old, undefined);
          out.push({ type: 'delete', old });
        }
        continue;
      }
      const next = new IndexObjectImpl(k, objs);
      if (old !== undefined && next.equals(old)) continue;
      this.#groups.set(ks, next);
      this.#indexes.update(ks, old, next);
      out.push(old === undefined ? { type: 'add', new: next } : { type: 'update', old, new: next });
    }
    this.emit(out);
  }

  get(key: string): IndexObject<K, O> | undefined {
    return this.#groups.get(key);
  }

  list(): IndexObject<K, O>[] {
    return [...this.#groups.values()];
  }

  index(name: string, extract: (obj: IndexObject<K, O>) => readonly string[]): IndexView<IndexObject<K, O>> {
    return this.#indexes.get(name, extract, () => this.#groups.entries());
  }

  dump(): CollectionDump {
    return {
      kind: this.kind,
      synced: this.hasSynced(),
      inputCollection: this.#parent.name,
      outputs: Object.fromEntries([...this.#groups].map(([k, v]) => [k, v.objects])),
    };
  }

  protected override onStop(): void {
    this.#reg.remove();
  }
}
