import type { KubeObject } from '../object.ts';
import type { ObjectStore } from '../object-store.ts';
import type { HandlerSet } from './handler-set.ts';
import { cacheKey } from './ingest.ts';

/** What {@link applyListItems} applies, and where. */
export interface ApplyList<T extends KubeObject> {
  /** The informer's cache. */
  readonly store: ObjectStore<T>;
  /** Its handlers. */
  readonly handlers: HandlerSet<T>;
  /**
   * The listed objects, ingested: an object, the key of an object that could not be ingested
   * (its cached version is kept, not reported deleted), or undefined (skipped).
   */
  readonly items: ReadonlyArray<T | string | undefined>;
  /** True for the informer's first list: handlers get `isInInitialList`. */
  readonly initial: boolean;
}

/**
 * Makes the cache what a (re)list returned: new objects are added, changed ones (another
 * resourceVersion) updated, and cached objects the list did not have are deleted (as tombstones),
 * each reported to the handlers in that order.
 */
export function applyListItems<T extends KubeObject>({
  store,
  handlers,
  items,
  initial,
}: ApplyList<T>): void {
  // Into an empty cache nothing can be deleted: no need to remember what the list had.
  const seen = store.sizeUnfiltered > 0 ? new Set<string>() : undefined;
  for (const item of items) {
    if (item === undefined) continue;
    if (typeof item === 'string') {
      seen?.add(item);
      continue;
    }
    const key = cacheKey(item);
    seen?.add(key);
    const old = store.getUnfiltered(key);
    if (old === undefined) {
      store.set(key, item);
      handlers.added(key, item, initial);
    } else if (old.metadata?.resourceVersion !== item.metadata?.resourceVersion) {
      store.set(key, item);
      handlers.updated(key, old, item);
    }
  }
  if (seen && store.sizeUnfiltered > seen.size) {
    for (const old of store.listUnfiltered()) {
      const key = cacheKey(old);
      if (seen.has(key)) continue;
      store.delete(key);
      handlers.deleted(key, { tombstone: true, key, obj: old });
    }
  }
}
