import type { KubeObject } from './object.ts';
import { type IndexErrorHandler, type IndexFunc, NAMESPACE_INDEX, type Store } from './store.ts';

/**
 * The mutable cache behind an informer: objects by key plus indexes (a namespace index is always
 * present). Only the informer writes to it; everyone else sees it as a read-only {@link Store}.
 *
 * An index function that throws, or returns something other than an array of strings, is the
 * caller's bug and must not break the cache: the object is stored and stays in every other index,
 * is left out of that one index, and the failure is reported to `onIndexError` and counted in
 * {@link ObjectStore.indexErrors}.
 */
export class ObjectStore<T extends KubeObject = KubeObject> implements Store<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys */
  readonly #indices = new Map<string, Map<string, Set<string>>>();
  readonly #visible: ((obj: T) => boolean) | undefined;
  readonly #onIndexError: IndexErrorHandler | undefined;
  /** The built-in namespace index (also in {@link ObjectStore.#indices}), which `set` maintains inline. */
  readonly #namespaces: Map<string, Set<string>>;
  #indexErrors = 0;

  /**
   * Creates an empty store. With `visible`, reads hide objects for which it returns false (the
   * client-wide object filter); indexes still cover every object. `onIndexError` hears about every
   * object an index function failed on (the informer logs it).
   */
  constructor(visible?: (obj: T) => boolean, onIndexError?: IndexErrorHandler) {
    this.#visible = visible;
    this.#onIndexError = onIndexError;
    this.addIndexer(NAMESPACE_INDEX, (obj) => [obj.metadata?.namespace ?? '']);
    this.#namespaces = this.#indices.get(NAMESPACE_INDEX)!;
  }

  /** How many times an index function failed on an object being stored (that object is left out of that index). */
  get indexErrors(): number {
    return this.#indexErrors;
  }

  /** {@inheritDoc Store.get} */
  get(key: string): T | undefined {
    const obj = this.#items.get(key);
    if (obj === undefined || (this.#visible && !this.#visible(obj))) return undefined;
    return obj;
  }

  /** The object with this key, ignoring the visibility filter. */
  getUnfiltered(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** {@inheritDoc Store.list} */
  list(): T[] {
    const all = [...this.#items.values()];
    return this.#visible ? all.filter(this.#visible) : all;
  }

  /** Every object, ignoring the visibility filter. */
  listUnfiltered(): T[] {
    return [...this.#items.values()];
  }

  /** {@inheritDoc Store.keys} */
  keys(): string[] {
    if (!this.#visible) return [...this.#items.keys()];
    const out: string[] = [];
    for (const [k, v] of this.#items) if (this.#visible(v)) out.push(k);
    return out;
  }

  /** {@inheritDoc Store.size} */
  get size(): number {
    return this.#visible ? this.keys().length : this.#items.size;
  }

  /** Number of objects, ignoring the visibility filter. */
  get sizeUnfiltered(): number {
    return this.#items.size;
  }

  /** {@inheritDoc Store.byNamespace} */
  byNamespace(namespace: string): T[] {
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** {@inheritDoc Store.byIndex} */
  byIndex(name: string, value: string): T[] {
    const out: T[] = [];
    for (const key of this.#keysOf(name, value)) {
      const obj = this.#items.get(key);
      if (obj !== undefined && (!this.#visible || this.#visible(obj))) out.push(obj);
    }
    return out;
  }

  /** {@inheritDoc Store.keysByIndex} */
  keysByIndex(name: string, value: string): string[] {
    return this.byIndex(name, value).map((o) => keyFor(o));
  }

  #keysOf(name: string, value: string): ReadonlySet<string> {
    const index = this.#indices.get(name);
    if (!index) {
      throw new Error(
        `no index named "${name}": add it with addIndexer before querying (known: ${[...this.#indices.keys()].join(', ')})`,
      );
    }
    return index.get(value) ?? EMPTY;
  }

  /** {@inheritDoc Store.hasIndex} */
  hasIndex(name: string): boolean {
    return this.#indexers.has(name);
  }

  /** {@inheritDoc Store.addIndexer} */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new Error(`an index named "${name}" already exists`);
    this.#indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.#indices.set(name, index);
    for (const [key, obj] of this.#items) {
      const values = this.#valuesOf(name, key, obj);
      if (values) addTo(index, values, key);
    }
  }

  /** Inserts or replaces an object; returns the previous one. */
  set(key: string, obj: T): T | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    // The built-in namespace index inline (no array of values, no lookups by index name); an
    // update within a namespace leaves it alone.
    const namespace = obj.metadata?.namespace ?? '';
    if (old === undefined) addKey(this.#namespaces, namespace, key);
    else {
      const was = old.metadata?.namespace ?? '';
      if (was !== namespace) {
        removeKey(this.#namespaces, was, key);
        addKey(this.#namespaces, namespace, key);
      }
    }
    if (this.#indexers.size > 1) this.#setIndexed(key, obj, old);
    return old;
  }

  /** Updates the indexes other than the namespace index for a stored object. */
  #setIndexed(key: string, obj: T, old: T | undefined): void {
    for (const [name, fn] of this.#indexers) {
      if (name === NAMESPACE_INDEX) continue;
      const index = this.#indices.get(name)!;
      const values = this.#valuesOf(name, key, obj);
      if (old === undefined) {
        if (values) addTo(index, values, key);
        continue;
      }
      const before = valuesOrUndefined(fn, old);
      // Most updates leave index values alone (same labels): skip the churn.
      if (before && values && sameValues(before, values)) continue;
      if (before) removeFrom(index, before, key);
      else removeEverywhere(index, key);
      if (values) addTo(index, values, key);
    }
  }

  /** Removes an object; returns it. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /** Removes everything. */
  clear(): void {
    this.#items.clear();
    for (const index of this.#indices.values()) index.clear();
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const values = valuesOrUndefined(fn, obj);
      if (values) removeFrom(index, values, key);
      else removeEverywhere(index, key);
    }
  }

  /** The index values of an object being stored, or undefined (reported) when the index function fails. */
  #valuesOf(name: string, key: string, obj: T): readonly string[] | undefined {
    let error: unknown;
    try {
      const values = this.#indexers.get(name)!(obj);
      if (isStringArray(values)) return values;
      error = new TypeError(`the index function returned ${describe(values)}, not an array of strings`);
    } catch (err) {
      error = err;
    }
    this.#indexErrors++;
    this.#onIndexError?.(name, key, error);
    return undefined;
  }
}

/**
 * The index values of an object already stored, recomputed to unindex it; undefined when the
 * index function fails now. Not reported: a failure for this version was reported when it was
 * stored, and one that fails only now is unindexed by a scan ({@link removeEverywhere}).
 */
function valuesOrUndefined<T>(fn: IndexFunc<T>, obj: T): readonly string[] | undefined {
  try {
    const values = fn(obj);
    return isStringArray(values) ? values : undefined;
  } catch {
    return undefined;
  }
}

function isStringArray(values: unknown): values is readonly string[] {
  if (!Array.isArray(values)) return false;
  for (const v of values) if (typeof v !== 'string') return false;
  return true;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array with a value that is not a string';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}

/** Removes a key from every value of an index: the slow path when its values are unknown. */
function removeEverywhere(index: Map<string, Set<string>>, key: string): void {
  for (const [value, keys] of index) {
    if (keys.delete(key) && keys.size === 0) index.delete(value);
  }
}

const EMPTY: ReadonlySet<string> = new Set<string>() as ReadonlySet<string>;

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFrom(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) removeKey(index, value, key);
}

function addTo(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) addKey(index, value, key);
}

function addKey(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) {
    keys = new Set();
    index.set(value, keys);
  }
  keys.add(key);
}

function removeKey(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}

function keyFor(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}
