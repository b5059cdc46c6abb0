/**
 * krt's automatic inverted indexes for the label and selector filters of a fetch.
 *
 * List side: the fetched collection indexes each object under its (namespace, key=value) pairs:
 * its selector's pairs for `selects`/`selectsNonEmpty` (an empty selector under a marker), its
 * labels' pairs for `labels`. A fetch looks candidates up by the pairs it asks for and verifies
 * the full filter on each, so its cost grows with the objects that share a pair with the query,
 * not with the size of the namespace or the collection.
 *
 * Dependency side: an input that fetched by selector is recorded under each pair of the labels
 * it asked about; a changed object finds the inputs recorded under the least used pair of its
 * selector (a matching input has every pair). An input that fetched by labels is recorded under
 * one pair of them; a changed object finds the inputs recorded under any of its labels. The
 * candidates are then confirmed against the recorded filter with the object's old and new
 * versions, so a selector change recomputes the inputs it used to select and those it now
 * selects, and nothing else.
 *
 * Objects whose selector or labels cannot be read are indexed under a marker and are always
 * candidates, so the fetch reports the error (as a plain scan would). So are objects whose
 * selector has `matchExpressions` and no `matchLabels` (no pair to file them under); with
 * `matchLabels` they are filed under those pairs, which every label set they select has.
 */
import { getLabels, type Labels, labelSelectorMap } from '../labels.ts';
import type { FilterSpec } from './filter-spec.ts';
import type { CollectionInternals, IndexView } from './internals.ts';
import { namespaceOf } from './namespace-of.ts';
import { expressionSelector } from './object-selector.ts';

/** Marks the names of automatic indexes (informer collections keep them themselves). */
export const AUTO_INDEX_MARK = '\0krt/';

const SELECTOR_BY_NAMESPACE = `${AUTO_INDEX_MARK}selector@namespace`;
const SELECTOR_ANY_NAMESPACE = `${AUTO_INDEX_MARK}selector@any`;
const LABELS_BY_NAMESPACE = `${AUTO_INDEX_MARK}labels@namespace`;
const LABELS_ANY_NAMESPACE = `${AUTO_INDEX_MARK}labels@any`;

/** Posting suffix of objects with an empty selector (selected by `selects`, never by `selectsNonEmpty`). */
const EMPTY = '\u0001';
/** Posting suffix of objects whose selector or labels cannot be read, or that no pair can file (always candidates). */
const BROKEN = '\u0002';
/** The scope of a dependency that is not restricted to a namespace (not a valid namespace). */
const ANY_NAMESPACE = '\u0003';

/** The posting key of one pair in one scope (label keys and values never contain NUL). */
function pairKey(scope: string, k: string, v: string): string {
  return `${scope}\0${k}\0${v}`;
}

/**
 * One automatic index of a collection, how it reads the objects it files, and whether any object
 * was filed as unreadable.
 */
interface AutoIndex {
  readonly view: IndexView<unknown>;
  /** The collection's augment (objects are read through it), if any. */
  readonly augment: ((o: unknown) => unknown) | undefined;
  /** True for the index by namespace (postings are scoped to the object's namespace). */
  readonly scoped: boolean;
  /** Sticky: once an object could not be read, lookups also consult the unreadable posting. */
  broken: boolean;
}

/** The postings of `obj` in the selector index `a` (marks `a` broken when `obj` cannot be read). */
function selectorPostings(obj: unknown, a: AutoIndex) {
  const augment = a.augment;
  const scope = a.scoped ? namespaceOf(obj) : '';
  let sel: Labels;
  let withExpressions: boolean;
  try {
    const o = augment ? augment(obj) : obj;
    const map = labelSelectorMap(o);
    withExpressions = map === null;
    sel = map ?? expressionSelector(o).pairs;
  } catch {
    a.broken = true;
    return [scope + BROKEN];
  }
  const out: string[] = [];
  for (const k in sel) out.push(pairKey(scope, k, sel[k]!));
  if (out.length === 0) {
    if (!withExpressions) return [scope + EMPTY];
    a.broken = true;
    return [scope + BROKEN];
  }
  return out;
}

/** The postings of `obj` in the label index `a` (marks `a` broken when `obj` cannot be read). */
function labelPostings(obj: unknown, a: AutoIndex) {
  const augment = a.augment;
  const scope = a.scoped ? namespaceOf(obj) : '';
  let labels: Labels;
  try {
    labels = getLabels(augment ? augment(obj) : obj);
  } catch {
    a.broken = true;
    return [scope + BROKEN];
  }
  const out: string[] = [];
  for (const k in labels) out.push(pairKey(scope, k, labels[k]!));
  return out;
}

/** The automatic indexes of a collection, created on first use: [any namespace, by namespace]. */
interface AutoIndexes {
  readonly selector: [AutoIndex | undefined, AutoIndex | undefined];
  readonly labels: [AutoIndex | undefined, AutoIndex | undefined];
}

const autoIndexes = new WeakMap<CollectionInternals<unknown>, AutoIndexes>();

function autoIndex(
  src: CollectionInternals<unknown>,
  kind: 'selector' | 'labels',
  scoped: boolean,
): AutoIndex {
  let all = autoIndexes.get(src);
  if (all === undefined) {
    all = { selector: [undefined, undefined], labels: [undefined, undefined] };
    autoIndexes.set(src, all);
  }
  const slot = scoped ? 1 : 0;
  let a = all[kind][slot];
  if (a === undefined) {
    // Filled by src.index below (existing objects are filed at once), hence the late binding.
    const entry = {
      view: undefined as unknown as IndexView<unknown>,
      augment: src.augment,
      scoped,
      broken: false,
    };
    entry.view =
      kind === 'selector'
        ? src.index(scoped ? SELECTOR_BY_NAMESPACE : SELECTOR_ANY_NAMESPACE, (o) =>
            selectorPostings(o, entry),
          )
        : src.index(scoped ? LABELS_BY_NAMESPACE : LABELS_ANY_NAMESPACE, (o) => labelPostings(o, entry));
    a = entry;
    all[kind][slot] = a;
  }
  return a;
}

const NO_CANDIDATES: readonly never[] = Object.freeze([]);

/**
 * Candidate lists found so far: usually a single non-empty one, kept as it is; merged (without
 * duplicates) only when several queried pairs found objects.
 */
interface Gathered<T> {
  first: readonly T[] | undefined;
  parts: (readonly T[])[] | undefined;
}

function gather<T>(acc: Gathered<T>, found: readonly T[]): void {
  if (found.length === 0) return;
  if (acc.first === undefined) acc.first = found;
  else if (acc.parts === undefined) acc.parts = [acc.first, found];
  else acc.parts.push(found);
}

/** The objects under `key`, shared when the index can (the caller never hands the list out). */
function candidatesOf<T>(view: IndexView<T>, key: string): readonly T[] {
  return view.lookupShared !== undefined ? view.lookupShared(key) : view.lookup(key);
}

/** Concatenates lookups, dropping duplicates (an object listed under several queried pairs). */
function union<T>(parts: readonly (readonly T[])[]): readonly T[] {
  if (parts.length === 0) return NO_CANDIDATES;
  if (parts.length === 1) return parts[0]!;
  const seen = new Set<T>();
  const out: T[] = [];
  for (const p of parts) {
    for (const o of p) {
      if (seen.has(o)) continue;
      seen.add(o);
      out.push(o);
    }
  }
  return out;
}

/**
 * The candidates of a fetch with a selector filter (`selectsNonEmpty`, else `selects`), from the
 * automatic selector index: every object whose selector could select the queried labels, and
 * possibly a few more (the caller verifies every filter, so it never returns this array, which
 * may be shared). `undefined` when the spec has no selector filter. `pair`, when the caller has
 * it, is the posting key of the spec's only pair (a `selectsNonEmpty` with one label, scoped to
 * `spec.namespace`; see `filedSelectorPair`).
 */
export function selectorCandidates<T>(
  src: CollectionInternals<T>,
  spec: FilterSpec,
  pair?: string,
): readonly T[] | undefined {
  const nonEmpty = spec.selectsNonEmpty !== undefined;
  const labels = nonEmpty ? spec.selectsNonEmpty : spec.selects;
  if (labels === undefined) return undefined;
  const scoped = spec.namespace !== undefined;
  const scope = spec.namespace ?? '';
  const a = autoIndex(src as CollectionInternals<unknown>, 'selector', scoped);
  const view = a.view as IndexView<T>;
  const acc: Gathered<T> = { first: undefined, parts: undefined };
  if (pair !== undefined) gather(acc, candidatesOf(view, pair));
  else for (const k in labels) gather(acc, candidatesOf(view, pairKey(scope, k, labels[k]!)));
  if (!nonEmpty) gather(acc, candidatesOf(view, scope + EMPTY));
  if (a.broken) gather(acc, candidatesOf(view, scope + BROKEN));
  return acc.parts !== undefined ? union(acc.parts) : (acc.first ?? NO_CANDIDATES);
}

/**
 * The candidates of a fetch with a label filter, from the automatic label index: the objects
 * under the least used queried pair (plus those whose labels cannot be read). `undefined` when
 * the spec has no label filter.
 */
export function labelCandidates<T>(src: CollectionInternals<T>, spec: FilterSpec): readonly T[] | undefined {
  const labels = spec.labels;
  if (labels === undefined) return undefined;
  const scoped = spec.namespace !== undefined;
  const scope = spec.namespace ?? '';
  const a = autoIndex(src as CollectionInternals<unknown>, 'labels', scoped);
  const view = a.view as IndexView<T>;
  let best: readonly T[] | undefined;
  for (const k in labels) {
    const found = candidatesOf(view, pairKey(scope, k, labels[k]!));
    if (best === undefined || found.length < best.length) best = found;
    if (found.length === 0) break;
  }
  const broken = a.broken ? candidatesOf(view, scope + BROKEN) : NO_CANDIDATES;
  if (best === undefined) return broken;
  return broken.length === 0 ? best : union([best, broken]);
}

/** The reverse-index keys of a dependency with a selector filter (see the file comment). */
export function selectorRouteKeys(spec: FilterSpec): string | readonly string[] {
  const nonEmpty = spec.selectsNonEmpty !== undefined;
  const labels = (nonEmpty ? spec.selectsNonEmpty : spec.selects)!;
  const scope = spec.namespace ?? ANY_NAMESPACE;
  let one: string | undefined;
  let out: string[] | undefined;
  for (const k in labels) {
    const key = pairKey(scope, k, labels[k]!);
    if (one === undefined) one = key;
    else if (out === undefined) out = [one, key];
    else out.push(key);
  }
  if (!nonEmpty) {
    if (one === undefined) return scope + EMPTY;
    if (out === undefined) out = [one, scope + EMPTY];
    else out.push(scope + EMPTY);
  }
  return out ?? one ?? [];
}

/** The reverse-index key of a dependency with a label filter: one of its pairs. */
export function labelRouteKeys(spec: FilterSpec): string | readonly string[] {
  const labels = spec.labels!;
  const scope = spec.namespace ?? ANY_NAMESPACE;
  for (const k in labels) return pairKey(scope, k, labels[k]!);
  return [];
}

/**
 * A reverse index of dependencies by pair (selector or label dependencies on one source), and how
 * to read the source's objects it is consulted with.
 */
export interface DependencyRoutes {
  /** The source's augment (objects are read through it), if any. */
  readonly augment: ((o: unknown) => unknown) | undefined;
  /** The input keys recorded under each posting key. */
  readonly routes: ReadonlyMap<string, ReadonlySet<string>>;
}

function addAll(s: ReadonlySet<string> | undefined, into: Set<string>): void {
  if (s !== undefined) for (const k of s) into.add(k);
}

/**
 * Adds to `into` the inputs of `routes` (selector dependencies) that `obj` may affect: those
 * recorded under the least used pair of its selector, in its namespace or in any namespace.
 */
export function selectorDependants(
  obj: unknown,
  { augment, routes }: DependencyRoutes,
  into: Set<string>,
): void {
  let sel: Labels | undefined;
  try {
    const o = augment ? augment(obj) : obj;
    const map = labelSelectorMap(o);
    // Expressions without a pair narrow nothing: treated as unreadable (every input).
    if (map !== null) sel = map;
    else {
      const { pairs } = expressionSelector(o);
      if (Object.keys(pairs).length > 0) sel = pairs;
    }
  } catch {
    sel = undefined;
  }
  if (sel === undefined) {
    for (const s of routes.values()) addAll(s, into);
    return;
  }
  const ns = namespaceOf(obj);
  let inNs: ReadonlySet<string> | undefined;
  let inAny: ReadonlySet<string> | undefined;
  let best = Number.POSITIVE_INFINITY;
  let empty = true;
  for (const k in sel) {
    empty = false;
    const v = sel[k]!;
    const a = routes.get(pairKey(ns, k, v));
    const b = routes.get(pairKey(ANY_NAMESPACE, k, v));
    const n = (a?.size ?? 0) + (b?.size ?? 0);
    if (n === 0) return; // no input has this pair, so none is selected
    if (n < best) {
      best = n;
      inNs = a;
      inAny = b;
    }
  }
  if (empty) {
    addAll(routes.get(ns + EMPTY), into);
    addAll(routes.get(ANY_NAMESPACE + EMPTY), into);
    return;
  }
  addAll(inNs, into);
  addAll(inAny, into);
}

/**
 * Adds to `into` the inputs of `routes` (label dependencies) that `obj` may affect: those
 * recorded under any of its labels, in its namespace or in any namespace.
 */
export function labelDependants(
  obj: unknown,
  { augment, routes }: DependencyRoutes,
  into: Set<string>,
): void {
  let labels: Labels;
  try {
    labels = getLabels(augment ? augment(obj) : obj);
  } catch {
    for (const s of routes.values()) addAll(s, into);
    return;
  }
  const ns = namespaceOf(obj);
  for (const k in labels) {
    const v = labels[k]!;
    addAll(routes.get(pairKey(ns, k, v)), into);
    addAll(routes.get(pairKey(ANY_NAMESPACE, k, v)), into);
  }
}
