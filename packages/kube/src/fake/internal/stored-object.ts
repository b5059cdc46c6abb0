import type { KubeObject } from '../../object.ts';
import { apiVersionOf } from '../../resource.ts';
import { copyJson, isObject, type JsonObject } from './json.ts';
import type { ServedResource } from './resource-table.ts';

/** An object's metadata, created empty when absent. */
export function meta(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

/** `value` when it is a non-empty string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The key of an object within its resource: `namespace/name`, or `name` without a namespace. */
export function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A copy for the caller, with the served version's apiVersion and kind. */
export function outputOf(served: ServedResource, obj: JsonObject): KubeObject {
  const out: JsonObject = { kind: served.descriptor.kind, apiVersion: apiVersionOf(served.descriptor) };
  for (const k of Object.keys(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    const v = obj[k];
    if (v === undefined) continue;
    if (k === '__proto__')
      Object.defineProperty(out, k, {
        value: copyJson(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[k] = copyJson(v);
  }
  return out as KubeObject;
}

/**
 * The stored (deep-frozen) object itself for a consumer that does not change it, with the served
 * version's apiVersion and kind (a frozen shallow copy when they differ).
 */
export function frozenOutputOf(served: ServedResource, obj: JsonObject): KubeObject {
  const apiVersion = apiVersionOf(served.descriptor);
  const kind = served.descriptor.kind;
  if (obj.apiVersion === apiVersion && obj.kind === kind) return obj as KubeObject;
  return Object.freeze({ ...obj, kind, apiVersion }) as KubeObject;
}
