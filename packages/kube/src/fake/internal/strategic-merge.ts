import { clone, isObject, type JsonObject } from './json.ts';
import { isSetList, keyOfItem, mergeKeysFor, sameKey } from './list-keys.ts';

/**
 * Applies a strategic merge patch, for the common cases: maps merge like a merge patch; lists
 * whose field has a known merge key (containers, env, ports, volumes, …, see `list-keys.ts`) merge
 * item by item, `$patch: delete` removes an item, `$patch: replace` replaces a map or list;
 * `$deleteFromPrimitiveList/<field>` removes scalars; `finalizers` merge as a set; every other
 * list is replaced. `$setElementOrder` and `$retainKeys` directives are accepted and ignored.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  return mergeMap(isObject(target) ? target : {}, patch);
}

function mergeMap(target: JsonObject, patch: JsonObject): JsonObject {
  if (patch.$patch === 'replace') {
    const { $patch: _, ...rest } = patch;
    return clone(stripDirectives(rest)) as JsonObject;
  }
  if (patch.$patch === 'delete') return {};
  const out: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = out[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        out[field] = current.filter((v) => !value.includes(v));
      }
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = out[key];
    if (Array.isArray(value)) out[key] = mergeList(key, Array.isArray(current) ? current : undefined, value);
    else if (isObject(value)) out[key] = mergeMap(isObject(current) ? current : {}, value);
    else out[key] = value;
  }
  return out;
}

function mergeList(field: string, current: unknown[] | undefined, patch: unknown[]): unknown[] {
  const replace = patch.find((p) => isObject(p) && p.$patch === 'replace');
  if (replace !== undefined) return patch.filter((p) => p !== replace).map((p) => clone(stripDirectives(p)));
  if (isSetList(field)) {
    const out = [...(current ?? [])];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  const keys = mergeKeysFor(field, [...patch, ...(current ?? [])]);
  if (!keys || !current)
    return patch.filter((p) => !(isObject(p) && p.$patch === 'delete')).map((p) => clone(stripDirectives(p)));
  const out = [...current];
  for (const item of patch) {
    const key = keyOfItem(item, keys);
    const index = key ? out.findIndex((c) => sameKey(keyOfItem(c, keys), key)) : -1;
    if (isObject(item) && item.$patch === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0 && isObject(item)) out[index] = mergeMap(out[index] as JsonObject, item);
    else out.push(clone(stripDirectives(item)));
  }
  return out;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}
