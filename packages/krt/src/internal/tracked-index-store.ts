import type { IndexView } from './internals.ts';
import { newUid } from './internals.ts';

/**
 * An index that remembers the index keys it filed each object under, so an update or a delete
 * needs only the object's key. Collections whose index updates may not see the previous version
 * of an object (an informer collection filling an index from its cache while its own handler is
 * still catching up) use it: a late or repeated update always leaves exactly the current entries.
 */
export class TrackedIndexStore<T> implements IndexView<T> {
  readonly id = newUid();
  readonly name: string;
  readonly extract: (obj: T) => readonly string[];
  readonly #postings = new Map<string, Map<string, T>>();
  readonly #filed = new Map<string, readonly string[]>();

  constructor(name: string, extract: (obj: T) => readonly string[]) {
    this.name = name;
    this.extract = extract;
  }

  lookup(key: string): T[] {
    const m = this.#postings.get(key);
    if (m === undefined) return [];
    const out: T[] = new Array(m.size);
    let i = 0;
    for (const v of m.values()) out[i++] = v;
    return out;
  }

  /** Files `obj` under its keys (replacing what `objKey` was filed under), or removes it. */
  update(objKey: string, obj: T | undefined): void {
    const prev = this.#filed.get(objKey);
    if (prev !== undefined) {
      for (const k of prev) {
        const m = this.#postings.get(k);
        if (m === undefined) continue;
        m.delete(objKey);
        if (m.size === 0) this.#postings.delete(k);
      }
    }
    if (obj === undefined) {
      this.#filed.delete(objKey);
      return;
    }
    const next = this.extract(obj);
    for (const k of next) {
      let m = this.#postings.get(k);
      if (m === undefined) {
        m = new Map();
        this.#postings.set(k, m);
      }
      m.set(objKey, obj);
    }
    this.#filed.set(objKey, next);
  }

  /** How many objects are filed (tests). */
  get size(): number {
    return this.#filed.size;
  }
}
