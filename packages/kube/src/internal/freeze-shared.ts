import { deepFreeze } from '../object.ts';
import type { StringPool } from './string-pool.ts';

/**
 * Deep-freezes a JSON value in place, like `deepFreeze`, and on the way replaces each string
 * value with its copy in `pool` (see {@link StringPool}), so equal strings of many cached objects
 * are retained once, except the values of the object's payload (top-level `data` and
 * `binaryData`), which are only frozen. One walk does both; frozen subtrees (shared with someone
 * else) are skipped and left as they are. Returns `value`. When `Object.prototype` has
 * enumerable members, `for…in` would see them as the object's own, so it only freezes
 * (`deepFreeze`), sharing nothing.
 */
export function deepFreezeShared<T>(value: T, pool: StringPool): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (prototypeHasEnumerables()) return deepFreeze(value);
  if (Array.isArray(value)) walk(value, pool);
  else walkTop(value as Record<string, unknown>, pool);
  return value;
}

/**
 * Top-level fields that hold an object's payload (a ConfigMap's or Secret's `data` and
 * `binaryData`): their values are seldom equal across objects, so they are frozen without
 * pooling. A lookup that misses is not free (a hash, two probes and an insert that pushes a
 * repeated string out sooner), and on 10,000 ConfigMaps it was all the pool did: it cost ~1 µs
 * per object and shared nothing.
 */
function isPayload(key: string): boolean {
  return key === 'data' || key === 'binaryData';
}

/** Like {@link walk} for the object itself: its metadata and payload are walked their own way. */
function walkTop(record: Record<string, unknown>, pool: StringPool): void {
  for (const key in record) {
    const child = record[key];
    if (typeof child === 'string') {
      const shared = pool.share(child);
      if (shared !== undefined) record[key] = shared;
    } else if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) {
      if (key === 'metadata') walkMetadata(child as Record<string, unknown>, pool);
      else if (isPayload(key)) deepFreeze(child);
      else walk(child, pool);
    }
  }
  Object.freeze(record);
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
