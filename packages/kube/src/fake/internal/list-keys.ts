import { isObject } from './json.ts';

/**
 * The merge keys of the lists of built-in kinds that strategic merge patch and server-side apply
 * merge item by item, by field name. The apiserver decides by Go type and OpenAPI extensions;
 * this table covers the common lists of core/apps/batch objects (an approximation: a field with
 * the same name in another type is treated the same).
 */
const MERGE_KEYS: Record<string, readonly string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  volumes: ['name'],
  env: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
  conditions: ['type'],
  ownerReferences: ['uid'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
  resourceClaims: ['name'],
  schedulingGates: ['name'],
  secrets: ['name'],
};

/** Lists of scalars that merge as sets. */
const SET_LISTS = new Set(['finalizers']);

/** The merge key of a list, from its field name and (for `ports`) its items; `undefined` for an atomic list. */
export function mergeKeysFor(field: string, items: readonly unknown[]): readonly string[] | undefined {
  if (field === 'ports') {
    const first = items.find(isObject);
    if (first && 'containerPort' in first) return ['containerPort', 'protocol'];
    return ['port', 'protocol'];
  }
  return MERGE_KEYS[field];
}

/** True for a list of scalars merged as a set (`metadata.finalizers`). */
export function isSetList(field: string): boolean {
  return SET_LISTS.has(field);
}

/** The values of an item's merge keys; `protocol` defaults to `TCP` as the apiserver defaults it. */
export function keyOfItem(item: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (!isObject(item)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (item[k] !== undefined) out[k] = item[k];
    else if (k === 'protocol') out[k] = 'TCP';
    else if (k !== 'whenUnsatisfiable') return undefined;
  }
  return out;
}

/** Equality of two item keys. */
export function sameKey(
  a: Record<string, unknown> | undefined,
  b: Record<string, unknown> | undefined,
): boolean {
  if (!a || !b) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
