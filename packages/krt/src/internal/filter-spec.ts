import { getLabels, isSubset, type Labels } from '../labels.ts';
import type { CollectionInternals, IndexView } from './internals.ts';
import { objectSelects } from './object-selector.ts';

/** The combined filter of one fetch. */
export interface FilterSpec {
  /** Keys the object must have (intersection of every key filter). Empty matches nothing. */
  keys?: ReadonlySet<string> | undefined;
  /** A single key (the common case, kept without a Set). */
  key?: string | undefined;
  /** An index and the index key the object must have. */
  index?: IndexView<unknown> | undefined;
  indexKey?: string | undefined;
  /**
   * The namespace the objects must be in, when the index filter is the namespace index: it
   * scopes the automatic label and selector indexes (see `label-index.ts`).
   */
  namespace?: string | undefined;
  /** Labels the object must have. */
  labels?: Labels | undefined;
  /** The object's selector must select these labels (empty selector selects). */
  selects?: Labels | undefined;
  /** The object's non-empty selector must select these labels. */
  selectsNonEmpty?: Labels | undefined;
  /** Arbitrary predicates. */
  generic?: Array<(obj: unknown) => boolean> | undefined;
}

/**
 * An empty spec with every field present, so every spec has the same shape (the code reading
 * them stays monomorphic, whatever filters a fetch set and in whatever order).
 */
export function newSpec(): FilterSpec {
  return {
    keys: undefined,
    key: undefined,
    index: undefined,
    indexKey: undefined,
    namespace: undefined,
    labels: undefined,
    selects: undefined,
    selectsNonEmpty: undefined,
    generic: undefined,
  };
}

/** True when the spec has any predicate besides key and index. */
export function hasPredicates(f: FilterSpec): boolean {
  return (
    f.labels !== undefined ||
    f.selects !== undefined ||
    f.selectsNonEmpty !== undefined ||
    f.generic !== undefined
  );
}

/** The predicates other than key/index, on an (augmented) object. */
export function matchesPredicates(f: FilterSpec, obj: unknown): boolean {
  if (f.labels !== undefined && !isSubset(f.labels, getLabels(obj))) return false;
  if (f.selectsNonEmpty !== undefined && !objectSelects(obj, f.selectsNonEmpty, true)) return false;
  if (f.selects !== undefined && !objectSelects(obj, f.selects, false)) return false;
  if (f.generic !== undefined) for (const g of f.generic) if (!g(obj)) return false;
  return true;
}

/** Full match, used for change detection: key, index, then the predicates. */
export function matchesObject<T>(f: FilterSpec, src: CollectionInternals<T>, obj: T): boolean {
  if (f.key !== undefined || f.keys !== undefined) {
    const k = src.keyOf(obj);
    if (f.key !== undefined && f.key !== k) return false;
    if (f.keys !== undefined && !f.keys.has(k)) return false;
  }
  if (f.index !== undefined && !f.index.extract(obj).includes(f.indexKey!)) return false;
  if (!hasPredicates(f)) return true;
  return matchesPredicates(f, src.augment ? src.augment(obj) : obj);
}

function sameLabels(a: Labels | undefined, b: Labels | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  let n = 0;
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

function sameKeySet(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.size !== b.size) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

function samePredicates(
  a: ReadonlyArray<(obj: unknown) => boolean> | undefined,
  b: ReadonlyArray<(obj: unknown) => boolean> | undefined,
): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when two specs select exactly the same objects (same filters, same values). */
export function sameSpec(a: FilterSpec, b: FilterSpec): boolean {
  return (
    a.key === b.key &&
    a.index === b.index &&
    a.indexKey === b.indexKey &&
    a.namespace === b.namespace &&
    sameKeySet(a.keys, b.keys) &&
    sameLabels(a.selectsNonEmpty, b.selectsNonEmpty) &&
    sameLabels(a.selects, b.selects) &&
    sameLabels(a.labels, b.labels) &&
    samePredicates(a.generic, b.generic)
  );
}

/**
 * Makes `into` (equal to `from` by {@link sameSpec}) reference `from`'s values, so a kept spec
 * does not hold on to the objects an earlier computation read (an old version's labels).
 */
export function adoptValues(into: FilterSpec, from: FilterSpec): void {
  // Only fields that differ by identity are written (no new properties on `into`).
  if (into.keys !== from.keys) into.keys = from.keys;
  if (into.labels !== from.labels) into.labels = from.labels;
  if (into.selects !== from.selects) into.selects = from.selects;
  if (into.selectsNonEmpty !== from.selectsNonEmpty) into.selectsNonEmpty = from.selectsNonEmpty;
}
