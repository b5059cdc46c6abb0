import {
  extractTombstone,
  type KubeObject,
  type ObjectKey,
  parseApiVersion,
  type ResourceEventHandler,
  type Tombstone,
} from '@kubeloom/kube';
import { describeValue } from './internal/describe.ts';
import type { KeySink } from './queue.ts';

/**
 * A handler that treats add, update and delete alike: it calls `fn` with the latest object (the
 * new one on update, the last known one on delete, tombstones unwrapped). The usual way to feed
 * a queue: `informer.addEventHandler(objectHandler((o) => queue.addObject(o)))`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#objectHandler}
 */
export function objectHandler<T extends KubeObject = KubeObject>(
  fn: (obj: T) => void,
): ResourceEventHandler<T> {
  return {
    onAdd: (obj) => fn(obj),
    onUpdate: (_old, obj) => fn(obj),
    onDelete: (obj) => fn(extractTombstone(obj)),
  };
}

/**
 * {@link objectHandler} for an informer whose objects may be of several types: `fn` only sees
 * objects that pass `guard` (Istio's `TypedObjectHandler`, which skips objects that do not
 * convert to `T`).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#typedObjectHandler}
 */
export function typedObjectHandler<T extends KubeObject>(
  guard: (obj: KubeObject) => obj is T,
  fn: (obj: T) => void,
): ResourceEventHandler<KubeObject> {
  return objectHandler<KubeObject>((obj) => {
    if (guard(obj)) fn(obj);
  });
}

/**
 * Like {@link objectHandler}, for objects that pass `filter` only. Adds and deletes are filtered
 * on the object; an update fires (with the new object) when the old **or** the new object passes,
 * so an object leaving the filtered set is still seen once.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#filteredObjectHandler}
 */
export function filteredObjectHandler<T extends KubeObject = KubeObject>(
  fn: (obj: T) => void,
  filter: (obj: T) => boolean,
): ResourceEventHandler<T> {
  return {
    onAdd: (obj) => {
      if (filter(obj)) fn(obj);
    },
    onUpdate: (oldObj, newObj) => {
      if (filter(oldObj) || filter(newObj)) fn(newObj);
    },
    onDelete: (deleted) => {
      const obj = extractTombstone(deleted);
      if (filter(obj)) fn(obj);
    },
  };
}

/**
 * {@link filteredObjectHandler} for controllers that care about the spec only. An update is
 * skipped when the resourceVersion did not change (a resync or relist), and when both versions
 * carry a `metadata.generation`, it did not change (a status- or metadata-only write) **and**
 * the filter gives the same answer for both (so an object entering or leaving the filtered set
 * through a label change is still seen). Objects without `generation` (ConfigMaps, Secrets, …)
 * are only deduplicated by resourceVersion.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#filteredObjectSpecHandler}
 */
export function filteredObjectSpecHandler<T extends KubeObject = KubeObject>(
  fn: (obj: T) => void,
  filter: (obj: T) => boolean = () => true,
): ResourceEventHandler<T> {
  const base = filteredObjectHandler(fn, filter);
  return {
    ...base,
    onUpdate: (oldObj, newObj) => {
      const oldRv = oldObj.metadata?.resourceVersion;
      if (oldRv !== undefined && oldRv === newObj.metadata?.resourceVersion) return;
      const oldPass = filter(oldObj);
      const newPass = filter(newObj);
      if (!oldPass && !newPass) return;
      const oldGen = oldObj.metadata?.generation;
      const newGen = newObj.metadata?.generation;
      if (oldGen !== undefined && oldGen === newGen && oldPass === newPass) return;
      fn(newObj);
    },
  };
}

/**
 * Identifies a parent kind for {@link enqueueForParentHandler}: a resource descriptor such as
 * `builtins.ReplicaSet` (it carries all three fields), or `{ group, kind, namespaced }`.
 */
export interface ParentKind {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The kind, e.g. `Deployment`. */
  readonly kind: string;
  /**
   * Whether the parent kind is namespaced. Required: owner references carry no namespace, so a
   * namespaced parent's key takes the child's namespace and a cluster-scoped parent's key has
   * none, and a bare group/version/kind cannot tell the two apart.
   */
  readonly namespaced: boolean;
}

/**
 * Returns a function that, given a child object, adds the key of every owner of kind `parent`
 * (matched on group and kind, any version) to `queue`: `{ namespace, name }` in the child's
 * namespace for a namespaced parent, `{ name }` for a cluster-scoped one. Use it with
 * {@link objectHandler} on the informer of the children to reconcile the parent when a child
 * changes: `pods.addEventHandler(objectHandler(enqueueForParentHandler(queue, builtins.ReplicaSet)))`.
 *
 * @throws TypeError when `parent` does not say whether it is namespaced (e.g. a bare GVK).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#enqueueForParentHandler}
 */
export function enqueueForParentHandler(
  queue: KeySink<ObjectKey>,
  parent: ParentKind,
): (child: KubeObject) => void {
  if (typeof parent?.kind !== 'string' || typeof parent.group !== 'string') {
    throw new TypeError(
      `enqueueForParentHandler: parent must be a resource descriptor or { group, kind, namespaced }, got ${describeValue(parent)}`,
    );
  }
  if (typeof parent.namespaced !== 'boolean') {
    throw new TypeError(
      `enqueueForParentHandler: parent ${describeValue(parent)} does not say whether ${parent.kind} is namespaced; ` +
        'pass its resource descriptor (e.g. builtins.Deployment) or add namespaced: true or false, ' +
        'so cluster-scoped owners are keyed without a namespace',
    );
  }
  const { group, kind, namespaced } = parent;
  return (child) => {
    const refs = child.metadata?.ownerReferences;
    if (!refs) return;
    const namespace = child.metadata?.namespace;
    for (const ref of refs) {
      if (ref.kind !== kind || !ref.name) continue;
      if (parseApiVersion(ref.apiVersion ?? '').group !== group) continue;
      if (!namespaced) queue.add({ name: ref.name });
      // A cluster-scoped child cannot have a namespaced owner: nothing to key it by.
      else if (namespace) queue.add({ namespace, name: ref.name });
    }
  };
}

/**
 * The object inside a delete handler's argument, unwrapping a tombstone; `undefined` for
 * `null`/`undefined`, or when `guard` rejects the object (Istio's `Extract`, which yields the zero
 * value when the conversion fails).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#extract}
 */
export function extract<T extends KubeObject>(
  value: T | Tombstone<T> | null | undefined,
  guard?: (obj: KubeObject) => obj is T,
): T | undefined {
  if (value === null || value === undefined) return undefined;
  const obj = extractTombstone(value);
  if (guard && !guard(obj)) return undefined;
  return obj;
}
