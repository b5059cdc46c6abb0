import type { KubeObject } from './object.ts';
import { type IndexFunc, NAMESPACE_INDEX, type Store } from './store.ts';

/**
 * The mutable cache behind an informer: objects by key plus indexes (a namespace index is always
 * present). Only the informer writes to it; everyone else sees it as a read-only {@link Store}.
 */
export class ObjectStore<T extends KubeObject = KubeObject> implements Store<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys */
  readonly #indices = new Map<string, Map<string, Set<string>>>();
  readonly #visible: ((obj: T) => boolean) | undefined;

  /**
   * Creates an empty store. With `visible`, reads hide objects for which it returns false (the
   * client-wide object filter); indexes still cover every object.
   */
  constructor(visible?: (obj: T) => boolean) {
    this.#visible = visible;
    this.addIndexer(NAMESPACE_INDEX, (obj) => [obj.metadata?.namespace ?? '']);
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
    for (const [key, obj] of this.#items) addTo(index, fn(obj), key);
  }

  /** Inserts or replaces an object; returns the previous one. */
  set(key: string, obj: T): T | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const values = fn(obj);
      if (old === undefined) {
        addTo(index, values, key);
        continue;
      }
      const before = fn(old);
      // Most updates leave index values alone (same namespace, same labels): skip the churn.
      if (sameValues(before, values)) continue;
      removeFrom(index, before, key);
      addTo(index, values, key);
    }
    return old;
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
    for (const [name, fn] of this.#indexers) removeFrom(this.#indices.get(name)!, fn(obj), key);
  }
}

const EMPTY: ReadonlySet<string> = new Set<string>() as ReadonlySet<string>;

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFrom(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (!keys) continue;
    keys.delete(key);
    if (keys.size === 0) index.delete(value);
  }
}

function addTo(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) {
      keys = new Set();
      index.set(value, keys);
    }
    keys.add(key);
  }
}

function keyFor(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}
