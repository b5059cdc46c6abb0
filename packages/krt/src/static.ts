import type { Collection, Event, Syncer } from './core.ts';
import { equal } from './equality.ts';
import { BaseCollection } from './internal/base.ts';
import { type CollectionDump, IndexSet, type IndexView } from './internal/internals.ts';
import type { CollectionOptions } from './options.ts';

/** A collection whose contents are set by hand; every mutator emits its events at once. */
export interface StaticCollection<T> extends Collection<T> {
  /** Adds or replaces an object; emits `update` even when it is equal to the current one. */
  update(obj: T): void;
  /** Adds or replaces an object; emits nothing when it is equal to the current one. */
  conditionalUpdate(obj: T): void;
  /** Deletes the object with this key, if present. */
  delete(key: string): void;
  /** Deletes every object matching `predicate`, as one batch. */
  deleteMatching(predicate: (obj: T) => boolean): void;
  /** Replaces the whole contents: adds, updates (skipped when equal) and deletes, as one batch. */
  reset(objs: Iterable<T>): void;
}

/** Options of {@link staticCollection}. */
export interface StaticCollectionOptions extends CollectionOptions {
  /** The collection is synced when this is (default: synced at once). */
  readonly synced?: Syncer | undefined;
}

/**
 * Creates a {@link StaticCollection} holding `initial`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#staticCollection}
 */
export function staticCollection<T>(
  initial: Iterable<T>,
  opts: StaticCollectionOptions,
): StaticCollection<T> {
  return new StaticCollectionImpl<T>(initial, opts);
}

class StaticCollectionImpl<T> extends BaseCollection<T> implements StaticCollection<T> {
  readonly #items = new Map<string, T>();
  readonly #indexes = new IndexSet<T>();

  constructor(initial: Iterable<T>, opts: StaticCollectionOptions) {
    super('static', 'Static', opts);
    for (const o of initial) this.#items.set(this.keyOf(o), o);
    this.start();
    const synced = opts.synced;
    if (synced === undefined) this.markSynced();
    else if (synced.hasSynced()) this.markSynced();
    else {
      void synced.waitUntilSynced(this.signal).then((ok) => {
        if (ok) this.markSynced();
      });
    }
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  update(obj: T): void {
    this.#set(obj, false);
  }

  conditionalUpdate(obj: T): void {
    this.#set(obj, true);
  }

  #set(obj: T, conditional: boolean): void {
    const key = this.keyOf(obj);
    const old = this.#items.get(key);
    if (old !== undefined && conditional && equal(old, obj)) return;
    this.#items.set(key, obj);
    this.#indexes.update(key, old, obj);
    this.emit([old === undefined ? { type: 'add', new: obj } : { type: 'update', old, new: obj }]);
  }

  delete(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    this.#indexes.update(key, old, undefined);
    this.emit([{ type: 'delete', old }]);
  }

  deleteMatching(predicate: (obj: T) => boolean): void {
    const events: Event<T>[] = [];
    for (const [key, old] of this.#items) {
      if (!predicate(old)) continue;
      this.#items.delete(key);
      this.#indexes.update(key, old, undefined);
      events.push({ type: 'delete', old });
    }
    this.emit(events);
  }

  reset(objs: Iterable<T>): void {
    const next = new Map<string, T>();
    for (const o of objs) next.set(this.keyOf(o), o);
    const events: Event<T>[] = [];
    for (const [key, old] of this.#items) {
      if (next.has(key)) continue;
      this.#items.delete(key);
      this.#indexes.update(key, old, undefined);
      events.push({ type: 'delete', old });
    }
    for (const [key, obj] of next) {
      const old = this.#items.get(key);
      if (old !== undefined && equal(old, obj)) continue;
      this.#items.set(key, obj);
      this.#indexes.update(key, old, obj);
      events.push(old === undefined ? { type: 'add', new: obj } : { type: 'update', old, new: obj });
    }
    this.emit(events);
  }

  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T> {
    return this.#indexes.get(name, extract, () => this.#items.entries());
  }

  dump(): CollectionDump {
    return { kind: this.kind, synced: this.hasSynced(), outputs: Object.fromEntries(this.#items) };
  }
}
