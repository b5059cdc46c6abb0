import type { Collection } from '../core.ts';
import type { CollectionDump } from '../debug.ts';

export type { CollectionDump };

import { PostingMap } from './posting-map.ts';
import { INTERNAL } from './symbols.ts';

/** A lookup structure over one collection's objects by an extracted key. */
export interface IndexView<T> {
  /** Unique id, used to key reverse-index entries. */
  readonly id: number;
  /** The index's name. */
  readonly name: string;
  /** The index keys of an object. */
  extract(obj: T): readonly string[];
  /** The objects with this index key, live. */
  lookup(key: string): T[];
  /**
   * The same, as an array that must not be modified or kept (it may be shared and cached); for
   * krt's candidate lists. Absent when the index has no cheaper form than `lookup`.
   */
  lookupShared?(key: string): readonly T[];
}

/** What one collection exposes to the rest of krt (fetch, joins, indexes, the debugger). */
export interface CollectionInternals<T> {
  /** Unique id. */
  readonly uid: number;
  /** Kind of collection, for the dump. */
  readonly kind: string;
  /** Wraps an object for filtering (options.augment). */
  readonly augment: ((obj: unknown) => unknown) | undefined;
  /** The collection's own key of an object. */
  keyOf(obj: T): string;
  /** A named index over this collection; the same name returns the same index. */
  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T>;
  /** The debug dump of this collection. */
  dump(): CollectionDump;
  /** True once the collection's signal aborted. */
  stopped(): boolean;
  /** How many handlers are registered on this collection (leak checks). */
  handlerCount(): number;
}

/** A krt collection with its internals. */
type InternalCollection<T> = Collection<T> & { readonly [INTERNAL]: CollectionInternals<T> };

let nextUid = 1;
/** A fresh unique id. */
export function newUid(): number {
  return nextUid++;
}

/** The internals of a krt collection. @throws TypeError for anything else. */
export function internalsOf<T>(c: Collection<T>, what = 'fetch'): CollectionInternals<T> {
  const i = (c as Partial<InternalCollection<T>>)[INTERNAL];
  if (i === undefined) {
    throw new TypeError(
      `${what}: ${describe(c)} is not a krt collection (create collections with krt's constructors)`,
    );
  }
  return i;
}

function describe(c: unknown): string {
  if (c === null || c === undefined) return String(c);
  const n = (c as { name?: unknown }).name;
  return typeof n === 'string' ? `"${n}"` : typeof c;
}

/**
 * A materialized index: index key → (object key → object), kept in step with the outputs of the
 * collection that owns it (updated in the same synchronous section as the outputs).
 */
export class IndexStore<T> implements IndexView<T> {
  readonly id = newUid();
  readonly name: string;
  readonly extract: (obj: T) => readonly string[];
  readonly #postings = new PostingMap<T>();

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

  /** Keys currently present. */
  keys(): string[] {
    return this.#postings.keys();
  }

  update(objKey: string, old: T | undefined, obj: T | undefined): void {
    if (old !== undefined) for (const k of this.extract(old)) this.#postings.remove(k, objKey);
    if (obj !== undefined) for (const k of this.extract(obj)) this.#postings.add(k, objKey, obj);
  }

  /** Rebuilds from scratch. */
  fill(entries: Iterable<[string, T]>): void {
    this.#postings.clear();
    for (const [k, v] of entries) this.update(k, undefined, v);
  }
}

/** A set of named {@link IndexStore}s for a materialized collection. */
export class IndexSet<T> {
  readonly #byName = new Map<string, IndexStore<T>>();
  #list: IndexStore<T>[] = [];

  get(
    name: string,
    extract: (obj: T) => readonly string[],
    current: () => Iterable<[string, T]>,
  ): IndexStore<T> {
    let s = this.#byName.get(name);
    if (s === undefined) {
      s = new IndexStore(name, extract);
      s.fill(current());
      this.#byName.set(name, s);
      this.#list = [...this.#byName.values()];
    }
    return s;
  }

  update(objKey: string, old: T | undefined, obj: T | undefined): void {
    const list = this.#list;
    for (let i = 0; i < list.length; i++) list[i]!.update(objKey, old, obj);
  }
}
