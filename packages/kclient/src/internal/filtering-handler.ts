import {
  extractTombstone,
  type KubeObject,
  type Logger,
  objectKey,
  type ResourceEventHandler,
  serializeError,
  type Tombstone,
} from '@kubeloom/kube';

function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/**
 * Wraps a handler with a client-side filter. It remembers which keys the handler was told about,
 * so every object the handler sees follows add → update* → delete, whatever the filter does:
 *
 * - add / delete of an object that does not pass (or was never seen): nothing;
 * - update: seen and passes → update; not seen and passes → add; seen and fails → delete(old);
 * - {@link FilteringHandler.refilter} after a filter change: objects that pass and were not seen
 *   → add; seen objects that fail → delete (the current object, not a tombstone).
 *
 * Tracking per handler (rather than re-evaluating the filter on the old object) makes the
 * outcome independent of the order in which the filter and the object learn about a change.
 */
export class FilteringHandler<T extends KubeObject> implements ResourceEventHandler<T> {
  readonly #target: ResourceEventHandler<T>;
  readonly #matches: (obj: T) => boolean;
  readonly #log: Logger;
  readonly #seen = new Set<string>();
  removed = false;

  constructor(target: ResourceEventHandler<T>, matches: (obj: T) => boolean, log: Logger) {
    this.#target = target;
    this.#matches = matches;
    this.#log = log;
  }

  onAdd(obj: T, isInInitialList: boolean): void {
    if (this.removed || !this.#matches(obj)) return;
    this.#seen.add(keyOf(obj));
    this.#target.onAdd?.(obj, isInInitialList);
  }

  onUpdate(oldObj: T, newObj: T): void {
    if (this.removed) return;
    const key = keyOf(newObj);
    const was = this.#seen.has(key);
    const now = this.#matches(newObj);
    if (was && now) {
      this.#target.onUpdate?.(oldObj, newObj);
    } else if (now) {
      this.#seen.add(key);
      this.#target.onAdd?.(newObj, false);
    } else if (was) {
      this.#seen.delete(key);
      this.#target.onDelete?.(oldObj);
    }
  }

  onDelete(value: T | Tombstone<T>): void {
    if (this.removed) return;
    if (!this.#seen.delete(keyOf(extractTombstone(value)))) return;
    this.#target.onDelete?.(value);
  }

  /** Re-evaluates `current` (the cache) after the filter changed; see the class comment. */
  refilter(current: readonly T[]): void {
    for (const obj of current) {
      if (this.removed) return;
      const key = keyOf(obj);
      const was = this.#seen.has(key);
      const now = this.#matches(obj);
      if (was === now) continue;
      try {
        if (now) {
          this.#seen.add(key);
          this.#target.onAdd?.(obj, false);
        } else {
          this.#seen.delete(key);
          this.#target.onDelete?.(obj);
        }
      } catch (err) {
        this.#log.error('event handler threw during a filter change; other events still run', {
          object: objectKey(obj),
          err: serializeError(err),
        });
      }
    }
  }
}
