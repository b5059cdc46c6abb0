import {
  allLeaves,
  type FieldPath,
  type FieldScope,
  fieldGroupsOf,
  forgetLeaves,
  leafPaths,
  sectionsOf,
} from './field-leaves.ts';
import { clone, deepEqual, isObject, type JsonObject } from './json.ts';
import { keyOfItem, type Shape, sameKey } from './list-keys.ts';

export type { FieldScope } from './field-leaves.ts';

/** One `metadata.managedFields` entry, with its fields as a set of leaf paths. */
export interface ManagedEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource?: string | undefined;
  /** Absent only in entries a client sent without one. */
  time?: string | undefined;
  fields: Map<string, FieldPath>;
  /**
   * The stored `fieldsV1` these `fields` were read from (frozen): written back as it is while
   * `fields` is still that same map, instead of encoding an unchanged set again.
   */
  readonly encoded?:
    | { readonly fields: ReadonlyMap<string, FieldPath>; readonly tree: JsonObject }
    | undefined;
}

const pathKey = (p: FieldPath): string => JSON.stringify(p);

function step(value: unknown, seg: string): unknown {
  if (seg.startsWith('f:')) return isObject(value) ? value[seg.slice(2)] : undefined;
  if (!Array.isArray(value)) return undefined;
  if (seg.startsWith('v:')) {
    const v = JSON.parse(seg.slice(2)) as unknown;
    return value.some((x) => deepEqual(x, v)) ? v : undefined;
  }
  if (seg.startsWith('k:')) {
    const key = JSON.parse(seg.slice(2)) as Record<string, unknown>;
    return value.find((item) => sameKey(keyOfItem(item, Object.keys(key)), key));
  }
  return undefined;
}

/** The value at a field path, or `undefined`. */
function valueAt(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const seg of path) {
    cur = step(cur, seg);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** `value` itself unless frozen (a part shared with the stored object), else a shallow copy to change. */
function writable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return value;
  return Array.isArray(value) ? value.slice() : { ...(value as JsonObject) };
}

/**
 * The value at a field path, made writable: every frozen container on the way (a part shared
 * with the stored object) is replaced in its parent by a shallow copy. `obj` must be writable.
 */
function writableAt(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const seg of path) {
    const child = step(cur, seg);
    if (child === undefined) return undefined;
    const copy = writable(child);
    if (copy !== child) {
      if (seg.startsWith('f:')) (cur as JsonObject)[seg.slice(2)] = copy;
      else {
        // A `v:` segment finds a value equal to the item, not the item: nothing to write to.
        const list = cur as unknown[];
        const index = list.indexOf(child);
        if (index < 0) return undefined;
        list[index] = copy;
      }
    }
    cur = copy;
  }
  return cur;
}

/** Removes the value at a field path (in `obj`, copying the frozen parts it changes). */
function deleteAt(obj: unknown, path: FieldPath): void {
  if (path.length === 0) return;
  const parent = writableAt(obj, path.slice(0, -1));
  const seg = path[path.length - 1]!;
  if (seg.startsWith('f:')) {
    if (isObject(parent)) delete parent[seg.slice(2)];
    return;
  }
  if (!Array.isArray(parent)) return;
  const target = step(parent, seg);
  const index = parent.indexOf(target);
  if (index >= 0) parent.splice(index, 1);
}

/** Decodes a `fieldsV1` tree into leaf paths. */
function decodeFieldsV1(tree: unknown): Map<string, FieldPath> {
  const out = new Map<string, FieldPath>();
  const walk = (node: unknown, path: string[]): void => {
    if (!isObject(node)) return;
    const children = Object.keys(node).filter((k) => k !== '.');
    if (children.length === 0) {
      if (path.length > 0) out.set(pathKey(path), path);
      return;
    }
    for (const c of children) walk(node[c], [...path, c]);
  };
  walk(tree, []);
  return out;
}

/** Encodes leaf paths as a `fieldsV1` tree (list items carry `.`, as the apiserver writes them). */
function encodeFieldsV1(fields: Iterable<FieldPath>): JsonObject {
  const root: JsonObject = {};
  for (const path of fields) {
    let node = root;
    for (const seg of path) {
      if (!isObject(node[seg])) node[seg] = {};
      node = node[seg] as JsonObject;
      if (seg.startsWith('k:')) node['.'] = {};
    }
  }
  return root;
}

/**
 * Entries of `managedFields` lists this module wrote or read frozen (stored): a stored object's
 * entries never change, so the next write starts from them instead of decoding the list again.
 */
const entriesCache = new WeakMap<object, ManagedEntry[]>();

/**
 * Reads `metadata.managedFields` of an object. The entries of a stored (frozen) list are read
 * once and shared: callers copy an entry (and its `fields`) before changing it.
 */
export function readManagedFields(obj: JsonObject): ManagedEntry[] {
  const meta = obj.metadata;
  if (!isObject(meta) || !Array.isArray(meta.managedFields)) return [];
  const list = meta.managedFields;
  const hit = entriesCache.get(list);
  if (hit !== undefined) return hit;
  const frozen = Object.isFrozen(list);
  const entries = list.filter(isObject).map((e): ManagedEntry => {
    const fields = decodeFieldsV1(e.fieldsV1);
    return {
      manager: String(e.manager ?? ''),
      operation: e.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: String(e.apiVersion ?? ''),
      ...(typeof e.subresource === 'string' ? { subresource: e.subresource } : {}),
      ...(typeof e.time === 'string' ? { time: e.time } : {}),
      fields,
      ...(frozen && isObject(e.fieldsV1) ? { encoded: { fields, tree: e.fieldsV1 } } : {}),
    };
  });
  if (frozen) entriesCache.set(list, entries);
  return entries;
}

/** Drops what was kept of a stored version's `managedFields` entries once it is replaced (history only). */
export function forgetManagedFields(obj: JsonObject): void {
  const meta = obj.metadata;
  if (isObject(meta) && Array.isArray(meta.managedFields)) entriesCache.delete(meta.managedFields);
}

/**
 * What a non-apply write asks for with its own `metadata.managedFields`, as the apiserver reads
 * it: `undefined` when absent or equal to the stored list (keep tracking as usual); `'reset'`
 * for an empty list or one of empty entries (`[]`, `[{}]`: the object ends with none, not even
 * this write's); otherwise the entries to start from instead of the stored ones.
 */
export function requestedManagedFields(
  incoming: JsonObject,
  stored: JsonObject | undefined,
): ManagedEntry[] | 'reset' | undefined {
  const sent = isObject(incoming.metadata) ? incoming.metadata.managedFields : undefined;
  if (!Array.isArray(sent)) return undefined;
  const current = stored && isObject(stored.metadata) ? stored.metadata.managedFields : undefined;
  if (deepEqual(sent, current)) return undefined;
  const entries = readManagedFields(incoming).filter((e) => e.manager !== '');
  return entries.length === 0 ? 'reset' : entries.filter((e) => e.fields.size > 0);
}

/** Writes entries back as `metadata.managedFields` (entries without fields are dropped, as the apiserver does). */
export function writeManagedFields(obj: JsonObject, entries: readonly ManagedEntry[]): void {
  if (!isObject(obj.metadata)) obj.metadata = {};
  const meta = obj.metadata as JsonObject;
  const kept = entries.filter((e) => e.fields.size > 0);
  if (kept.length === 0) {
    delete meta.managedFields;
    return;
  }
  const read: ManagedEntry[] = [];
  meta.managedFields = kept.map((e) => {
    const tree = e.encoded?.fields === e.fields ? e.encoded.tree : encodeFieldsV1(e.fields.values());
    read.push({ ...e, encoded: { fields: e.fields, tree } });
    return {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time !== undefined ? { time: e.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: tree,
      ...(e.subresource ? { subresource: e.subresource } : {}),
    };
  });
  // The list is stored (and frozen) as written: the next write reads these entries back as they are.
  entriesCache.set(meta.managedFields as object, read);
}

function sameEntry(
  e: ManagedEntry,
  {
    manager,
    operation,
    subresource,
  }: { manager: string; operation: string; subresource: string | undefined },
): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

/**
 * Ownership after a non-apply write: the fields the write added or changed move to `manager`'s
 * Update entry; fields the write removed are dropped from every entry.
 */
export function trackUpdate(
  entries: ManagedEntry[],
  { before, after }: { before: JsonObject | undefined; after: JsonObject },
  {
    who,
    shape,
  }: {
    who: { manager: string; apiVersion: string; subresource?: string | undefined; time: string };
    shape: Shape;
  },
): ManagedEntry[] {
  // Leaves by section: a section whose value the write kept (the same frozen subtree) changed
  // nothing, and its leaves were walked when it was stored.
  const oldSections = before ? sectionsOf(before, { scope: 'all', shape }) : undefined;
  const newSections = sectionsOf(after, { scope: 'all', shape });
  const changed = new Map<string, FieldPath>();
  // The leaves of replaced parts are not needed again (the old version is history).
  if (oldSections !== undefined)
    for (const [id, o] of oldSections) if (newSections.get(id)?.value !== o.value) forgetLeaves(o.value);
  for (const [id, s] of newSections) {
    const o = oldSections?.get(id);
    if (o !== undefined && o.value === s.value) continue;
    for (const [k, p] of s.leaves.paths) {
      if (
        o === undefined ||
        !o.leaves.values.has(k) ||
        !deepEqual(o.leaves.values.get(k), s.leaves.values.get(k))
      )
        changed.set(k, p);
    }
  }
  // An entry keeps its fields (and its encoded tree) unless the write removed or took one. A
  // section the write kept (the same frozen value) took nothing; a field of it that is one of its
  // leaves still is.
  const out = entries.map((e): ManagedEntry => {
    let fields: Map<string, FieldPath> | undefined;
    for (const [id, group] of fieldGroupsOf(e.fields)) {
      const s = newSections.get(id);
      if (s !== undefined && oldSections?.get(id)?.value === s.value && allLeaves(group, s)) continue;
      for (const [k] of group.fields) {
        if (s?.leaves.paths.has(k) && !changed.has(k)) continue;
        fields ??= new Map(e.fields);
        fields.delete(k);
      }
    }
    return fields === undefined ? e : { ...e, fields };
  });
  if (changed.size > 0) {
    const i = out.findIndex((e) =>
      sameEntry(e, { manager: who.manager, operation: 'Update', subresource: who.subresource }),
    );
    const fields = new Map(i >= 0 ? out[i]!.fields : undefined);
    for (const [k, p] of changed) fields.set(k, p);
    if (i >= 0) out[i] = { ...out[i]!, fields, time: who.time };
    else
      out.push({
        manager: who.manager,
        operation: 'Update',
        apiVersion: who.apiVersion,
        subresource: who.subresource,
        time: who.time,
        fields,
      });
  }
  return out.filter((e) => e.fields.size > 0);
}

/** A field owned by another manager with a different value. */
export interface ApplyConflict {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly path: FieldPath;
}

/** The result of a server-side apply merge. */
export interface ApplyResult {
  readonly object: JsonObject;
  readonly entries: ManagedEntry[];
  readonly conflicts: readonly ApplyConflict[];
}

function mergeApplied(target: unknown, config: unknown, shape: Shape): unknown {
  if (isObject(config)) {
    if (shape.atomicMap()) return clone(config);
    const out: JsonObject = isObject(target) ? { ...target } : {};
    for (const [k, v] of Object.entries(config)) {
      if (v === null || v === undefined) continue;
      out[k] = mergeApplied(out[k], v, shape.field(k));
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(target)) {
    const kind = shape.list([...config, ...target]);
    if (kind.type === 'set') {
      const out = [...target];
      for (const v of config) if (!out.some((x) => deepEqual(x, v))) out.push(clone(v));
      return out;
    }
    if (kind.type === 'map' && config.every((c) => keyOfItem(c, kind.keys))) {
      const out = [...target];
      const itemShape = shape.item();
      for (const item of config) {
        const key = keyOfItem(item, kind.keys);
        const index = out.findIndex((t) => sameKey(keyOfItem(t, kind.keys), key));
        if (index >= 0) out[index] = mergeApplied(out[index], item, itemShape);
        else out.push(clone(item));
      }
      return out;
    }
  }
  return clone(config);
}

function isEmpty(value: unknown): boolean {
  return (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0);
}

/**
 * Server-side apply of `config` by `manager` onto `live` (undefined when creating), for the
 * common cases: conflicts are fields another manager owns with a different value; `force` takes
 * them over; fields this manager applied before and no longer applies are removed unless another
 * manager owns them; maps merge, associative lists merge by key, other lists are atomic.
 */
export function serverSideApply(
  { live, config }: { live: JsonObject | undefined; config: JsonObject },
  who: {
    manager: string;
    apiVersion: string;
    subresource?: string | undefined;
    time: string;
    force: boolean;
  },
  { scope, shape }: { scope: FieldScope; shape: Shape },
): ApplyResult {
  const entries = live ? readManagedFields(live).map((e) => ({ ...e, fields: new Map(e.fields) })) : [];
  const applied = leafPaths(config, { scope, shape });
  const conflicts: ApplyConflict[] = [];
  const mineIndex = entries.findIndex((e) =>
    sameEntry(e, { manager: who.manager, operation: 'Apply', subresource: who.subresource }),
  );
  for (const e of entries) {
    if (entries.indexOf(e) === mineIndex) continue;
    for (const [k, p] of applied) {
      if (!e.fields.has(k)) continue;
      if (deepEqual(valueAt(live, p), valueAt(config, p))) continue;
      if (who.force) e.fields.delete(k);
      else conflicts.push({ manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, path: p });
    }
  }
  if (conflicts.length > 0) return { object: live ?? config, entries, conflicts };
  const previous = mineIndex >= 0 ? entries[mineIndex]!.fields : new Map<string, FieldPath>();
  // mergeApplied copies what it merges into; the parts of `live` it leaves alone stay shared
  // (frozen), and deleteAt copies those it removes from.
  const result = mergeApplied(live ?? {}, config, shape) as JsonObject;
  const others = entries.filter((_, i) => i !== mineIndex);
  const ownedElsewhere = (prefix: FieldPath): boolean => {
    const pre = JSON.stringify(prefix).slice(0, -1);
    const under = (k: string) => k === `${pre}]` || k.startsWith(`${pre},`);
    return [...applied.keys()].some(under) || others.some((e) => [...e.fields.keys()].some(under));
  };
  for (const [k, p] of previous) {
    if (applied.has(k) || ownedElsewhere(p)) continue;
    // A list item nobody else owns anything under goes as a whole (its key fields included).
    const itemDepth = p.findIndex((seg, i) => seg.startsWith('k:') && !ownedElsewhere(p.slice(0, i + 1)));
    const target = itemDepth >= 0 ? p.slice(0, itemDepth + 1) : p;
    if (valueAt(result, target) === undefined) continue;
    deleteAt(result, target);
    for (let depth = target.length - 1; depth > 0; depth--) {
      const ancestor = target.slice(0, depth);
      const value = valueAt(result, ancestor);
      if (value === undefined) continue;
      if (isEmpty(value) && !ownedElsewhere(ancestor)) deleteAt(result, ancestor);
      else break;
    }
  }
  const mine: ManagedEntry = {
    manager: who.manager,
    operation: 'Apply',
    apiVersion: who.apiVersion,
    subresource: who.subresource,
    time: who.time,
    fields: applied,
  };
  const next = [...others];
  if (mineIndex >= 0) next.splice(mineIndex, 0, mine);
  else next.push(mine);
  return { object: result, entries: next.filter((e) => e.fields.size > 0), conflicts };
}

/** The apiserver's text for a field path: `.spec.containers[name="x"].image`. */
export function describePath(path: FieldPath): string {
  return path
    .map((seg) => {
      if (seg.startsWith('f:')) return `.${seg.slice(2)}`;
      if (seg.startsWith('v:')) return `[${seg.slice(2)}]`;
      const key = JSON.parse(seg.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}
