import { deepFreeze } from '../object.ts';
import type { StringPool } from './string-pool.ts';

/**
 * Deep-freezes a JSON value in place, like `deepFreeze`, and on the way replaces each string
 * value with its copy in `pool` (see {@link StringPool}), so equal strings of many cached objects
 * are retained once. One walk does both; frozen subtrees (shared with someone else) are skipped
 * and left as they are. Returns `value`. When `Object.prototype` has enumerable members, `for…in`
 * would see them as the object's own, so it only freezes (`deepFreeze`), sharing nothing.
 */
export function deepFreezeShared<T>(value: T, pool: StringPool): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (prototypeHasEnumerables()) return deepFreeze(value);
  const metadata = (value as { metadata?: unknown }).metadata;
  if (metadata !== null && typeof metadata === 'object' && !Object.isFrozen(metadata)) {
    walkMetadata(metadata as Record<string, unknown>, pool);
  }
  walk(value, pool);
  return value;
}

/** Whether `Object.prototype` has an enumerable member (someone added one). */
function prototypeHasEnumerables(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

/**
 * The object's own identity and version, unique to it: pooling them would only fill the pool
 * (each costs a hash and an insert) and share nothing.
 */
const UNIQUE_METADATA = new Set(['name', 'uid', 'resourceVersion', 'creationTimestamp']);

/** Like {@link walk} for the object's own metadata, without pooling {@link UNIQUE_METADATA}. */
function walkMetadata(metadata: Record<string, unknown>, pool: StringPool): void {
  for (const key in metadata) {
    const child = metadata[key];
    if (typeof child === 'string') {
      const shared = UNIQUE_METADATA.has(key) ? undefined : pool.share(child);
      if (shared !== undefined) metadata[key] = shared;
    } else if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) walk(child, pool);
  }
  Object.freeze(metadata);
}

/** Shares the strings of `value` and freezes everything unfrozen in it, children first. */
function walk(value: object, pool: StringPool): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'string') {
        const shared = pool.share(child);
        if (shared !== undefined) value[i] = shared;
      } else if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) walk(child, pool);
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (typeof child === 'string') {
        const shared = pool.share(child);
        if (shared !== undefined) record[key] = shared;
      } else if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) walk(child, pool);
    }
  }
  Object.freeze(value);
}
