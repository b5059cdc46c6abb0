import { clone, deepEqual, isObject, type JsonObject } from './json.ts';
import { isSetList, patchMergeKeyFor } from './list-keys.ts';

const ORDER_PREFIX = '$setElementOrder/';
const DELETE_FROM_PREFIX = '$deleteFromPrimitiveList/';

/**
 * Applies a strategic merge patch to a built-in object, for the common cases: maps merge like a
 * merge patch (`null` deletes, `$patch: replace` / `$patch: delete` replace or clear a map,
 * `$retainKeys` clears the keys it does not list); lists whose field has a known merge key
 * (containers, env, ports, volumes, conditions, ownerReferences, …, see `list-keys.ts`) merge
 * item by item and `$patch: delete` removes an item; `finalizers` merge as a set and
 * `$deleteFromPrimitiveList/<field>` removes scalars; every other list is replaced. Merged lists
 * are ordered as the apiserver orders them: patched items in the patch's order (or the order of
 * `$setElementOrder/<field>`), interleaved with the items only the server had in their order.
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
  let out: JsonObject = { ...target };
  if (Array.isArray(patch.$retainKeys)) {
    const retain = new Set(patch.$retainKeys.map(String));
    out = Object.fromEntries(Object.entries(out).filter(([k]) => retain.has(k)));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM_PREFIX)) continue;
    const field = key.slice(DELETE_FROM_PREFIX.length);
    const current = out[field];
    if (Array.isArray(current) && Array.isArray(value)) {
      out[field] = current.filter((v) => !value.some((d) => deepEqual(d, v)));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = out[key];
    if (Array.isArray(value)) {
      const order = patch[`${ORDER_PREFIX}${key}`];
      out[key] = mergeList(key, {
        current: Array.isArray(current) ? current : [],
        patch: value,
        order: Array.isArray(order) ? order : undefined,
      });
    } else if (isObject(value)) out[key] = mergeMap(isObject(current) ? current : {}, value);
    else out[key] = value;
  }
  // An order directive without the list itself reorders what the server has.
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(ORDER_PREFIX) || !Array.isArray(order)) continue;
    const field = key.slice(ORDER_PREFIX.length);
    if (Object.hasOwn(patch, field) || !Array.isArray(out[field])) continue;
    out[field] = mergeList(field, { current: out[field] as unknown[], patch: [], order });
  }
  return out;
}

/** Where an item sits in a list, by merge key (maps) or by value (scalars); -1 when absent. */
function indexIn(list: readonly unknown[], item: unknown, key: string | undefined): number {
  if (key === undefined) return list.findIndex((x) => deepEqual(x, item));
  if (!isObject(item)) return -1;
  return list.findIndex((x) => isObject(x) && deepEqual(x[key], item[key]));
}

/** A list field of a strategic merge patch: the server's list, the patch's, and its order directive. */
interface ListMerge {
  readonly current: unknown[];
  readonly patch: unknown[];
  readonly order: unknown[] | undefined;
}

function mergeList(field: string, { current, patch, order }: ListMerge): unknown[] {
  const replace = patch.find((p) => isObject(p) && p.$patch === 'replace');
  if (replace !== undefined) return patch.filter((p) => p !== replace).map((p) => clone(stripDirectives(p)));
  let key: string | undefined;
  let merged: unknown[];
  let original: unknown[];
  let patchItems: unknown[];
  if (isSetList(field)) {
    key = undefined;
    original = current;
    patchItems = patch;
    merged = [...current];
    for (const v of patch) if (indexIn(merged, v, undefined) < 0) merged.push(clone(v));
  } else {
    key = patchMergeKeyFor(field, [...patch, ...current]);
    if (key === undefined)
      return patch
        .filter((p) => !(isObject(p) && p.$patch === 'delete'))
        .map((p) => clone(stripDirectives(p)));
    const deletes = patch.filter((p) => isObject(p) && p.$patch === 'delete');
    patchItems = patch.filter((p) => !deletes.includes(p));
    original = current.filter((c) => !deletes.some((d) => indexIn([c], d, key) === 0));
    merged = [...original];
    for (const item of patchItems) {
      const index = indexIn(merged, item, key);
      if (index >= 0 && isObject(item) && isObject(merged[index]))
        merged[index] = mergeMap(merged[index] as JsonObject, item);
      else merged.push(clone(stripDirectives(item)));
    }
  }
  const patchOrder = order ?? patchItems;
  const inPatch = merged.filter((m) => indexIn(patchOrder, m, key) >= 0);
  const serverOnly = merged.filter((m) => indexIn(patchOrder, m, key) < 0);
  const rank = (m: unknown) => {
    const i = indexIn(patchOrder, m, key);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  inPatch.sort((a, b) => rank(a) - rank(b));
  return mergeSorted(serverOnly, inPatch, { serverOrder: original, key });
}

/**
 * Interleaves the server-only items with the patched ones as the apiserver does: a server-only
 * item goes first only when both are in the server's list and it came first there.
 */
function mergeSorted(
  serverOnly: readonly unknown[],
  patched: readonly unknown[],
  { serverOrder, key }: { readonly serverOrder: readonly unknown[]; readonly key: string | undefined },
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    if (i >= serverOnly.length) out.push(patched[j++]);
    else if (j >= patched.length) out.push(serverOnly[i++]);
    else {
      const li = indexIn(serverOrder, serverOnly[i], key);
      const ri = indexIn(serverOrder, patched[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(patched[j++]);
    }
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
