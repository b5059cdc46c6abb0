import { isObject, type JsonObject } from './json.ts';
import { keyOfItem, type Shape } from './list-keys.ts';

/** A field path in `fieldsV1` notation: `f:spec`, `k:{"name":"x"}`, `v:"value"`. */
export type FieldPath = readonly string[];

/** Which part of an object a write may touch: the main resource or the status subresource. */
export type FieldScope = 'all' | 'main' | 'status';

/** The leaf fields under one place of an object, by key (`JSON.stringify` of the path). */
interface Leaves {
  /** Each leaf's path. */
  readonly paths: ReadonlyMap<string, FieldPath>;
  /** The value at each leaf (the first, where list items repeat a key), as reading the path finds it. */
  readonly values: ReadonlyMap<string, unknown>;
}

/**
 * One tracked part of an object: a top-level field (`f:spec`) or a tracked metadata field
 * (`f:metadata`, `f:labels`). Every leaf key starts with its section's path.
 */
export interface Section {
  /** The value there. */
  readonly value: unknown;
  /** Its leaves. */
  readonly leaves: Leaves;
}

/** The metadata fields server-side apply tracks; identity and system metadata are not. */
const TRACKED_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/** The {@link Section} id of a leaf path: its first segment, or its first two under metadata. */
function sectionIdOf(path: FieldPath): string {
  return path[0] === 'f:metadata' ? `f:metadata/${path[1]}` : (path[0] ?? '');
}

function sortedKey(key: Record<string, unknown>): string {
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(key).sort()) sorted[k] = key[k];
  return JSON.stringify(sorted);
}

/** A path key without its closing bracket (`pathKey(path) === pre + ']'`) extended by one segment. */
function extend(pre: string, seg: string): string {
  return pre === '[' ? `[${JSON.stringify(seg)}` : `${pre},${JSON.stringify(seg)}`;
}

/** Walks the leaves of `value` at `path` (whose key prefix is `pre`) into `out`. */
function walkLeaves(value: unknown, path: string[], at: { pre: string; here: Shape; out: Leaves }): void {
  const { pre, here, out } = at;
  const add = (p: string[], prefix: string, v: unknown): void => {
    const key = `${prefix}]`;
    (out.paths as Map<string, FieldPath>).set(key, p);
    if (!out.values.has(key)) (out.values as Map<string, unknown>).set(key, v);
  };
  if (isObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined && value[k] !== null);
    if (keys.length === 0 || here.atomicMap()) {
      add(path, pre, value);
      return;
    }
    for (const k of keys) {
      const seg = `f:${k}`;
      walkLeaves(value[k], [...path, seg], { pre: extend(pre, seg), here: here.field(k), out });
    }
    return;
  }
  if (Array.isArray(value)) {
    const kind = here.list(value);
    if (kind.type === 'set') {
      for (const v of value) {
        const seg = `v:${JSON.stringify(v)}`;
        add([...path, seg], extend(pre, seg), v);
      }
      if (value.length === 0) add(path, pre, value);
      return;
    }
    const itemKeys = kind.type === 'map' ? value.map((item) => keyOfItem(item, kind.keys)) : [];
    if (kind.type === 'map' && value.length > 0 && itemKeys.every((k) => k !== undefined)) {
      const itemShape = here.item();
      value.forEach((item, i) => {
        const seg = `k:${sortedKey(itemKeys[i]!)}`;
        const itemPath = [...path, seg];
        const itemPre = extend(pre, seg);
        const fields = Object.keys(item as JsonObject);
        if (fields.length === 0 || itemShape.atomicMap()) {
          add(itemPath, itemPre, item);
          return;
        }
        for (const f of fields) {
          const fseg = `f:${f}`;
          walkLeaves((item as JsonObject)[f], [...itemPath, fseg], {
            pre: extend(itemPre, fseg),
            here: itemShape.field(f),
            out,
          });
        }
      });
      return;
    }
  }
  add(path, pre, value);
}

/**
 * Leaves of frozen values (stored objects are deep-frozen, so their leaves never change), by
 * value, with the shape and place they were computed for. A write shares every part it does not
 * change with the stored object, so those parts are walked once, not on every write.
 */
const cache = new WeakMap<object, { readonly shape: Shape; readonly pre: string; readonly leaves: Leaves }>();

function sectionLeaves(value: unknown, path: string[], here: Shape): Leaves {
  const pre = `[${path.map((s) => JSON.stringify(s)).join(',')}`;
  const frozen = typeof value === 'object' && value !== null && Object.isFrozen(value);
  if (frozen) {
    const hit = cache.get(value);
    if (hit !== undefined && hit.shape === here && hit.pre === pre) return hit.leaves;
  }
  const leaves: Leaves = { paths: new Map(), values: new Map() };
  walkLeaves(value, path, { pre, here, out: leaves });
  if (frozen) cache.set(value, { shape: here, pre, leaves });
  return leaves;
}

/** Drops the leaves kept for a frozen value (a part of a replaced version). */
export function forgetLeaves(value: unknown): void {
  if (typeof value === 'object' && value !== null) cache.delete(value);
}

/**
 * The tracked sections of an object in `scope`, by {@link sectionIdOf} id: maps are walked
 * (unless `shape` says they are atomic), lists merge by key or as sets where `shape` says so and
 * are leaves otherwise. Identity and system metadata are not tracked.
 */
export function sectionsOf(
  obj: JsonObject,
  { scope, shape }: { scope: FieldScope; shape: Shape },
): Map<string, Section> {
  const out = new Map<string, Section>();
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || k === 'apiVersion' || k === 'kind') continue;
    if (k === 'metadata') {
      if (scope === 'status' || !isObject(v)) continue;
      const metaShape = shape.field('metadata');
      for (const m of TRACKED_METADATA) {
        const value = v[m];
        if (value === undefined || value === null) continue;
        const seg = `f:${m}`;
        out.set(`f:metadata/${seg}`, {
          value,
          leaves: sectionLeaves(value, ['f:metadata', seg], metaShape.field(m)),
        });
      }
      continue;
    }
    if (scope === 'status' && k !== 'status') continue;
    if (scope === 'main' && k === 'status') continue;
    const seg = `f:${k}`;
    out.set(seg, { value: v, leaves: sectionLeaves(v, [seg], shape.field(k)) });
  }
  return out;
}

/** Every leaf path of an object in `scope` (see {@link sectionsOf}), by key. */
export function leafPaths(
  obj: JsonObject,
  options: { scope: FieldScope; shape: Shape },
): Map<string, FieldPath> {
  const out = new Map<string, FieldPath>();
  for (const s of sectionsOf(obj, options).values()) for (const [k, p] of s.leaves.paths) out.set(k, p);
  return out;
}

/**
 * The fields of one managed-fields entry under one {@link Section}: their keys and paths, and
 * the last leaves (of a frozen section) every one of them was found among.
 */
export interface FieldGroup {
  /** The fields, by key. */
  readonly fields: ReadonlyArray<readonly [string, FieldPath]>;
  /** Leaves that hold every field of the group (checked once per frozen section value). */
  verified: Leaves | undefined;
}

/** Field groups of the entries' `fields` maps, which are never changed once built. */
const groupCache = new WeakMap<ReadonlyMap<string, FieldPath>, ReadonlyMap<string, FieldGroup>>();

/**
 * The fields of an entry grouped by {@link Section} id. `fields` must not change afterwards
 * (entries copy their map before changing it), since the grouping is kept with it.
 */
export function fieldGroupsOf(fields: ReadonlyMap<string, FieldPath>): ReadonlyMap<string, FieldGroup> {
  const hit = groupCache.get(fields);
  if (hit !== undefined) return hit;
  const byId = new Map<string, Array<readonly [string, FieldPath]>>();
  for (const [k, p] of fields) {
    const id = sectionIdOf(p);
    const list = byId.get(id);
    if (list === undefined) byId.set(id, [[k, p]]);
    else list.push([k, p]);
  }
  const groups = new Map<string, FieldGroup>();
  for (const [id, list] of byId) groups.set(id, { fields: list, verified: undefined });
  groupCache.set(fields, groups);
  return groups;
}

/**
 * True when every field of `group` is a leaf of `section`, a frozen value whose leaves are
 * kept: then it stays true for as long as the section keeps that value, and is not checked
 * again. (An unfrozen value's leaves are walked anew each time and never marked.)
 */
export function allLeaves(group: FieldGroup, section: Section): boolean {
  if (group.verified === section.leaves) return true;
  for (const [k] of group.fields) if (!section.leaves.paths.has(k)) return false;
  if (typeof section.value === 'object' && section.value !== null && Object.isFrozen(section.value))
    group.verified = section.leaves;
  return true;
}
