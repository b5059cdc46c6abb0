import type { TransformFunc } from '../informer.ts';
import { deepFreeze, type KubeObject } from '../object.ts';

/** The type of the items of a list, which the server leaves out of each item. */
export interface ListItemType {
  /** `group/version` or `v1`. */
  readonly apiVersion: string;
  /** The kind. */
  readonly kind: string;
}

/**
 * Prepares one object from the server for the cache: checks that it is a Kubernetes object, fills
 * in `apiVersion` and `kind` on list items, applies the transform and deep-freezes the result.
 * @throws TypeError when the object or the transform's result has no `metadata.name`, and
 * whatever the transform throws.
 */
export function ingestObject<T extends KubeObject>(
  raw: KubeObject,
  transform: TransformFunc,
  listItemType?: ListItemType,
): T {
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
  return deepFreeze(out) as T;
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
