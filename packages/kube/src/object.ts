import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';

/** Object metadata, as client-node types it. */
export type ObjectMeta = V1ObjectMeta;

/** An owner reference, as client-node types it. */
export type OwnerReference = V1OwnerReference;

/**
 * Any Kubernetes object: `apiVersion`, `kind`, `metadata` and whatever else its type carries.
 * client-node's model classes (`V1ConfigMap`, …) and plain JSON objects both satisfy it.
 */
export interface KubeObject {
  /** `group/version`, or `v1` for the core group. Lists and watch events may omit it. */
  apiVersion?: string;
  /** The kind, e.g. `ConfigMap`. Lists and watch events may omit it. */
  kind?: string;
  /** Standard object metadata. */
  metadata?: ObjectMeta;
}

/** A namespace/name pair; `namespace` is absent for cluster-scoped objects. */
export interface ObjectKey {
  /** The namespace, absent for cluster-scoped objects. */
  readonly namespace?: string;
  /** The name. */
  readonly name: string;
}

/**
 * The cache key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go's
 * `MetaNamespaceKeyFunc`).
 *
 * @throws TypeError when the object has no `metadata.name`.
 */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) {
    throw new TypeError(
      `object of kind ${obj.kind ?? '?'} has no metadata.name, so it has no key (objects from generateName get a name from the server)`,
    );
  }
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** The key of a namespace/name pair, the same format as {@link objectKey}. */
export function keyOf(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/** Splits a key from {@link objectKey} back into namespace and name. */
export function parseKey(key: string): ObjectKey {
  const slash = key.indexOf('/');
  if (slash === -1) return { name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The `namespace/name` pair of an object. */
export function objectKeyOf(obj: KubeObject): ObjectKey {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns ? { namespace: ns, name } : { name };
}

/** Parses `resourceVersion` for ordering comparisons; `undefined` when it is not an integer. Use only where the server is known to use etcd revisions (and the fake). */
export function resourceVersionNumber(obj: KubeObject): bigint | undefined {
  const rv = obj.metadata?.resourceVersion;
  if (!rv || !/^\d+$/.test(rv)) return undefined;
  return BigInt(rv);
}

/** Recursively freezes a JSON value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) freezeTree(value);
  return value;
}

/** Freezes `value` and every unfrozen object below it (arrays by index: `for…in` would stringify each). */
function freezeTree(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) freezeTree(child);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const child = record[key];
    if (child !== null && typeof child === 'object' && !Object.isFrozen(child)) freezeTree(child);
  }
}
