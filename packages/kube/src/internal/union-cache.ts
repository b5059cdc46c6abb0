import { isTombstone, type Tombstone } from '../informer.ts';
import type { KubeObject } from '../object.ts';
import type { ObjectStore } from '../object-store.ts';
import type { HandlerSet } from './handler-set.ts';
import { cacheKey } from './ingest.ts';

/** A member of a union as its cache sees it: the keys it holds, and which of them it only claims. */
export interface UnionSource {
  /** Keys this member holds (reported by it, or claimed for it by a hand-over). */
  readonly keys: Set<string>;
  /** Keys claimed for it by a hand-over that it has not reported yet. */
  readonly claims: Set<string>;
}

/** What {@link UnionCache} writes to and asks. */
export interface UnionCacheOptions<T extends KubeObject, S extends UnionSource> {
  /** The union's store. */
  readonly store: ObjectStore<T>;
  /** The union's handlers. */
  readonly handlers: HandlerSet<T>;
  /** True while the union delivers its initial state (adds carry `isInInitialList`). */
  readonly initial: () => boolean;
  /** Confirms deletes that may be an object moving to another member (see {@link DeleteCheck}). */
  readonly deleteCheck: DeleteCheck<T, S>;
}

/**
 * A member's delete of a key no other member holds may be the object moving into another member's
 * scope (relabelled) with that member's add still to come: a watch's DELETED for an object that
 * left its selector carries the object's previous content, so the event cannot tell.
 */
export interface DeleteCheck<T extends KubeObject, S extends UnionSource> {
  /** True when another member could hold this object (the check is worth a request). */
  mayMove(obj: T, from: S): boolean;
  /**
   * The member whose scope the object is in now (its add is coming), or undefined when it is
   * gone or in no member's scope. Never rejects.
   */
  movedTo(obj: T): Promise<S | undefined>;
}

/**
 * The overlap rules of a union informer, over its store and handlers: which members hold each
 * key, what the union shows for it (the object of the last event that arrived for it), and when
 * a key leaves (when no member holds it any more).
 */
export class UnionCache<T extends KubeObject, S extends UnionSource> {
  /** key → the members holding it, each with its latest object. */
  readonly #holders = new Map<string, Map<S, T>>();
  readonly #store: ObjectStore<T>;
  readonly #handlers: HandlerSet<T>;
  readonly #initial: () => boolean;
  readonly #check: DeleteCheck<T, S>;
  /** Keys whose delete waits for {@link DeleteCheck.movedTo}: key → the wait's token. */
  readonly #pending = new Map<string, object>();
  #closed = false;

  constructor(options: UnionCacheOptions<T, S>) {
    this.#store = options.store;
    this.#handlers = options.handlers;
    this.#initial = options.initial;
    this.#check = options.deleteCheck;
  }

  /** Stops delivering: pending deletes are dropped (the union stopped). */
  close(): void {
    this.#closed = true;
    this.#pending.clear();
  }

  /** A member reported an object (add or update). */
  upsert(source: S, obj: T): void {
    const key = cacheKey(obj);
    let holders = this.#holders.get(key);
    if (!holders) {
      holders = new Map();
      this.#holders.set(key, holders);
    }
    holders.set(source, obj);
    this.#pending.delete(key);
    source.keys.add(key);
    source.claims.delete(key);
    this.#show(key, obj);
  }

  /**
   * A member reported a delete. The key leaves the union only when no other member holds it, and
   * then only once {@link DeleteCheck} found it did not move to another member.
   */
  remove(source: S, value: T | Tombstone<T>): void {
    const key = isTombstone(value) ? value.key : cacheKey(value);
    const holders = this.#holders.get(key);
    // A delete for a key this member does not hold (it was dropped meanwhile): nothing to undo.
    if (!holders?.delete(source)) return;
    source.keys.delete(key);
    source.claims.delete(key);
    // Still held: the union keeps showing the last object a member reported. Not the delete's:
    // a DELETED for an object leaving a selector carries its previous content.
    if (holders.size > 0) return;
    this.#holders.delete(key);
    const obj = isTombstone(value) ? value.obj : value;
    if (!this.#check.mayMove(obj, source)) {
      this.#delete(key, value);
      return;
    }
    // The union keeps showing the object until it is known gone (or an add arrives).
    const token = {};
    this.#pending.set(key, token);
    void this.#check.movedTo(obj).then((to) => this.#confirmed({ key, token, value, to }));
  }

  #confirmed(c: { key: string; token: object; value: T | Tombstone<T>; to: S | undefined }): void {
    if (this.#closed || this.#pending.get(c.key) !== c.token) return;
    this.#pending.delete(c.key);
    // A member reported it meanwhile.
    if (this.#holders.has(c.key)) return;
    const current = this.#store.getUnfiltered(c.key);
    if (c.to === undefined || current === undefined) {
      this.#delete(c.key, c.value);
      return;
    }
    // Moved: held for that member until it reports the object (or shows it does not have it).
    this.#holders.set(c.key, new Map([[c.to, current]]));
    c.to.keys.add(c.key);
    c.to.claims.add(c.key);
  }

  #delete(key: string, value: T | Tombstone<T>): void {
    if (this.#store.delete(key) !== undefined) this.#handlers.deleted(key, value);
  }

  /** A member left: every key no other member holds is deleted, as a tombstone. */
  drop(source: S): void {
    for (const key of source.keys) {
      const holders = this.#holders.get(key);
      holders?.delete(source);
      if (holders && holders.size > 0) continue;
      this.#holders.delete(key);
      this.#pending.delete(key);
      const old = this.#store.delete(key);
      if (old !== undefined) this.#handlers.deleted(key, { tombstone: true, key, obj: old });
    }
    source.keys.clear();
    source.claims.clear();
  }

  /** Ends the claims of a member that it does not have (`has` is false): each is a delete by it. */
  verifyClaims(source: S, has: (key: string) => boolean): void {
    for (const key of [...source.claims]) {
      if (has(key)) continue;
      const obj = this.#holders.get(key)?.get(source);
      if (obj === undefined) {
        source.claims.delete(key);
        continue;
      }
      this.remove(source, { tombstone: true, key, obj });
    }
  }

  /** Shows `obj` for `key`: an add, an update when the resourceVersion differs, nothing otherwise. */
  #show(key: string, obj: T): void {
    const current = this.#store.getUnfiltered(key);
    if (current === undefined) {
      this.#store.set(key, obj);
      this.#handlers.added(key, obj, this.#initial());
    } else if (current.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      this.#store.set(key, obj);
      this.#handlers.updated(key, current, obj);
    }
  }
}
