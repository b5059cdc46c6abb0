import type { TransformFunc } from '../informer.ts';
import type { KubeObject } from '../object.ts';
import { deepFreezeShared } from './freeze-shared.ts';
import type { StringPool } from './string-pool.ts';

/** The type of the items of a list, which the server leaves out of each item. */
export interface ListItemType {
  /** `group/version` or `v1`. */
  readonly apiVersion: string;
  /** The kind. */
  readonly kind: string;
}

/** How {@link ingestObject} prepares an object. */
export interface IngestOptions {
  /** Applied before freezing. */
  readonly transform: TransformFunc;
  /** Where the strings of cached objects are shared. */
  readonly pool: StringPool;
  /** The type of a list's items (absent for watch events, whose objects carry it). */
  readonly listItemType?: ListItemType | undefined;
}

/**
 * Prepares one object from the server for the cache: checks that it is a Kubernetes object, fills
 * in `apiVersion` and `kind` on list items, applies the transform, and deep-freezes the result,
 * sharing its strings with the other cached objects through the pool.
 * @throws TypeError when the object or the transform's result has no `metadata.name`, and
 * whatever the transform throws.
 */
export function ingestObject<T extends KubeObject>(raw: KubeObject, options: IngestOptions): T {
  const { transform, listItemType } = options;
  if (typeof raw !== 'object' || raw === null || !raw.metadata?.name) {
    throw new TypeError('not a Kubernetes object with metadata.name');
  }
  if (listItemType && raw.apiVersion === undefined) {
    raw.apiVersion = listItemType.apiVersion;
    raw.kind = listItemType.kind;
  }
  const out = transform(raw);
  if (typeof out !== 'object' || out === null || !out.metadata?.name) {
    throw new TypeError('the transform did not return a Kubernetes object with metadata.name');
  }
  return deepFreezeShared(out, options.pool) as T;
}

/** The cache key of an object: `namespace/name`, or `name` for a cluster-scoped object. */
export function cacheKey(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** The resourceVersion of an object that could not be ingested, if it has one. */
export function rawResourceVersion(raw: unknown): string | undefined {
  const rv = (raw as KubeObject | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}
