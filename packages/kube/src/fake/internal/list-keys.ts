import { isObject, type JsonObject } from './json.ts';

/**
 * The merge keys server-side apply uses for the lists of built-in kinds, by field name. The
 * apiserver decides by Go type and OpenAPI extensions; this table covers the common lists of
 * core/apps/batch objects (an approximation: a field with the same name in another type is
 * treated the same).
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

/** Where strategic merge patch uses a single `patchMergeKey` while apply uses several list-map keys. */
const PATCH_MERGE_KEY: Record<string, string> = {
  topologySpreadConstraints: 'topologyKey',
};

/** Lists of scalars that merge as sets. */
const SET_LISTS = new Set(['finalizers']);

/** How a list merges: item by item on keys, as a set of scalars, or as a whole. */
type ListKind =
  | { readonly type: 'map'; readonly keys: readonly string[] }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };

/**
 * What server-side apply needs to know about a place in an object: how the list there merges,
 * whether the map there is atomic, and the shapes of its members and items.
 */
export interface Shape {
  /** How a list at this place merges, given its items. */
  list(items: readonly unknown[]): ListKind;
  /** True when a map at this place is replaced as a whole (`x-kubernetes-map-type: atomic`). */
  atomicMap(): boolean;
  /** The shape of the member `name` of a map at this place. */
  field(name: string): Shape;
  /** The shape of the items of a list at this place. */
  item(): Shape;
}

function portKeys(items: readonly unknown[]): readonly string[] {
  const first = items.find(isObject);
  return first && 'containerPort' in first ? ['containerPort', 'protocol'] : ['port', 'protocol'];
}

/** The apply merge keys of a built-in list, from its field name; `undefined` for an atomic list. */
function mergeKeysFor(field: string, items: readonly unknown[]): readonly string[] | undefined {
  if (field === 'ports') return portKeys(items);
  return MERGE_KEYS[field];
}

/** The strategic merge patch key of a built-in list (Go's `patchMergeKey`, one field); `undefined` for a list that is replaced. */
export function patchMergeKeyFor(field: string, items: readonly unknown[]): string | undefined {
  if (field === 'ports') return portKeys(items)[0];
  return PATCH_MERGE_KEY[field] ?? MERGE_KEYS[field]?.[0];
}

/** True for a list of scalars merged as a set (`metadata.finalizers`). */
export function isSetList(field: string): boolean {
  return SET_LISTS.has(field);
}

const tableShapes = new Map<string, Shape>();

/**
 * The built-in kinds' shape at a field: the field-name table above, wherever the field sits.
 * One object per field name, so a shape's identity says what it is (cached leaves are keyed by it).
 */
export function tableShape(fieldName = ''): Shape {
  let shape = tableShapes.get(fieldName);
  if (shape === undefined) {
    shape = {
      list(items) {
        if (isSetList(fieldName)) return { type: 'set' };
        const keys = mergeKeysFor(fieldName, items);
        return keys ? { type: 'map', keys } : { type: 'atomic' };
      },
      atomicMap: () => false,
      field: (name) => tableShape(name),
      item: () => tableShape(''),
    };
    tableShapes.set(fieldName, shape);
  }
  return shape;
}

/** One shape per schema object (and root flag), so a shape's identity says what it is. */
interface SchemaShapes {
  none: Shape | undefined;
  readonly bySchema: WeakMap<JsonObject, Shape>;
}
const rootSchemaShapes: SchemaShapes = { none: undefined, bySchema: new WeakMap() };
const schemaShapes: SchemaShapes = { none: undefined, bySchema: new WeakMap() };

/**
 * The shape of a custom resource from its CRD's structural schema: `x-kubernetes-list-type`
 * (`map` with `x-kubernetes-list-map-keys`, `set`, otherwise atomic) and
 * `x-kubernetes-map-type: atomic`. Where the schema says nothing (preserved unknown fields),
 * lists are atomic and maps granular, as the apiserver treats them. `metadata` follows ObjectMeta
 * (the built-in table).
 */
export function schemaShape(schema: JsonObject | undefined, root = true): Shape {
  const memo = root ? rootSchemaShapes : schemaShapes;
  const cached = schema === undefined ? memo.none : memo.bySchema.get(schema);
  if (cached !== undefined) return cached;
  const sub = (value: unknown): JsonObject | undefined => (isObject(value) ? value : undefined);
  const shape: Shape = {
    list() {
      const type = schema?.['x-kubernetes-list-type'];
      if (type === 'set') return { type: 'set' };
      const keys = schema?.['x-kubernetes-list-map-keys'];
      if (type === 'map' && Array.isArray(keys) && keys.length > 0)
        return { type: 'map', keys: keys.map(String) };
      return { type: 'atomic' };
    },
    atomicMap: () => schema?.['x-kubernetes-map-type'] === 'atomic',
    field(name) {
      if (root && name === 'metadata') return tableShape('metadata');
      const props = sub(schema?.properties);
      const member = props ? sub(props[name]) : undefined;
      return schemaShape(member ?? sub(schema?.additionalProperties), false);
    },
    item: () => schemaShape(sub(schema?.items), false),
  };
  if (schema === undefined) memo.none = shape;
  else memo.bySchema.set(schema, shape);
  return shape;
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
