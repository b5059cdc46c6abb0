/** The objects filed under one index key, with a cached array of them for shared reads. */
interface Bucket<T> {
  readonly objs: Map<string, T>;
  snapshot: readonly T[] | undefined;
}

const EMPTY: readonly never[] = Object.freeze([]);

function toArray<T>(objs: Map<string, T>): T[] {
  const out: T[] = new Array(objs.size);
  let i = 0;
  for (const v of objs.values()) out[i++] = v;
  return out;
}

/**
 * The storage of an index: index key → (object key → object). `lookup` returns a fresh array the
 * caller owns; `shared` returns a cached, frozen array that stays valid until the bucket changes
 * (for krt's own candidate lists, which are never handed out as they are).
 */
export class PostingMap<T> {
  readonly #buckets = new Map<string, Bucket<T>>();

  add(key: string, objKey: string, obj: T): void {
    let b = this.#buckets.get(key);
    if (b === undefined) {
      b = { objs: new Map(), snapshot: undefined };
      this.#buckets.set(key, b);
    }
    b.objs.set(objKey, obj);
    b.snapshot = undefined;
  }

  remove(key: string, objKey: string): void {
    const b = this.#buckets.get(key);
    if (b === undefined || !b.objs.delete(objKey)) return;
    if (b.objs.size === 0) this.#buckets.delete(key);
    else b.snapshot = undefined;
  }

  lookup(key: string): T[] {
    const b = this.#buckets.get(key);
    if (b === undefined) return [];
    // Copy the cached array when there is one; do not create one (user lookups of big buckets).
    return b.snapshot !== undefined ? b.snapshot.slice() : toArray(b.objs);
  }

  shared(key: string): readonly T[] {
    const b = this.#buckets.get(key);
    if (b === undefined) return EMPTY;
    if (b.snapshot === undefined) b.snapshot = Object.freeze(toArray(b.objs));
    return b.snapshot;
  }

  keys(): string[] {
    return [...this.#buckets.keys()];
  }

  clear(): void {
    this.#buckets.clear();
  }
}
