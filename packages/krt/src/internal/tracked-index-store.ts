import type { IndexView } from './internals.ts';
import { newUid } from './internals.ts';
import { PostingMap } from './posting-map.ts';

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
  readonly #postings = new PostingMap<T>();
  readonly #filed = new Map<string, readonly string[]>();

  constructor(name: string, extract: (obj: T) => readonly string[]) {
    this.name = name;
    this.extract = extract;
  }

  lookup(key: string): T[] {
    return this.#postings.lookup(key);
  }

  lookupShared(key: string): readonly T[] {
    return this.#postings.shared(key);
  }

  /** Files `obj` under its keys (replacing what `objKey` was filed under), or removes it. */
  update(objKey: string, obj: T | undefined): void {
    const prev = this.#filed.get(objKey);
    if (prev !== undefined) for (const k of prev) this.#postings.remove(k, objKey);
    if (obj === undefined) {
      this.#filed.delete(objKey);
      return;
    }
    const next = this.extract(obj);
    for (const k of next) this.#postings.add(k, objKey, obj);
    this.#filed.set(objKey, next);
  }

  /** How many objects are filed (tests). */
  get size(): number {
    return this.#filed.size;
  }
}
