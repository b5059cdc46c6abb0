import type { Collection, Registration } from '../core.ts';
import type { FilterSpec } from './filter-spec.ts';
import type { CollectionInternals, IndexView } from './internals.ts';
import {
  type DependencyRoutes,
  labelDependants,
  labelRouteKeys,
  selectorDependants,
  selectorRouteKeys,
} from './label-index.ts';

/**
 * Where a dependency is filed in its source's reverse index, chosen from its filters, most
 * selective first: by object key; by the pairs of the labels a selector filter asked about; by
 * one pair of a label filter; by index key; else with the plain fetches (every change to the
 * source is checked against it).
 */
type RouteKind = 'key' | 'selector' | 'labels' | 'index' | 'plain';

/**
 * One fetch recorded by a transformation: the subscription, the filters (to confirm that a
 * changed object matches) and where it is filed in the reverse index. Kept per input for as long
 * as the input's computation stands, so it is kept small: one entry is a plain string, and the
 * strings are replaced by the reverse index's own once filed (see {@link SourceSub.add}). The
 * route is computed when first needed: a recompute that fetched exactly what the previous one
 * did keeps the previous dependencies and never routes the new ones.
 */
export interface Dependency {
  /** The subscription to the fetched collection. */
  readonly sub: SourceSub;
  /** The fetch's filters. */
  readonly spec: FilterSpec;
  /** Which reverse map the dependency is filed in (index routes: `spec.index`'s); see {@link routed}. */
  kind: RouteKind | undefined;
  /** Its entries in that map: one, or several. */
  keys: string | readonly string[];
}

const NONE: readonly string[] = [];

/** A dependency on `sub` with the filters of `spec`, not routed yet. */
export function newDependency(sub: SourceSub, spec: FilterSpec): Dependency {
  return { sub, spec, kind: undefined, keys: NONE };
}

/** Routes `d` (see {@link RouteKind}) if not done yet, and returns its kind. */
function routed(d: Dependency): RouteKind {
  if (d.kind !== undefined) return d.kind;
  const spec = d.spec;
  let kind: RouteKind;
  let keys: string | readonly string[];
  if (spec.key !== undefined) {
    kind = 'key';
    keys = spec.key;
  } else if (spec.keys !== undefined) {
    kind = 'key';
    keys = [...spec.keys];
  } else if (spec.selectsNonEmpty !== undefined || spec.selects !== undefined) {
    kind = 'selector';
    keys = selectorRouteKeys(spec);
  } else if (spec.labels !== undefined) {
    kind = 'labels';
    keys = labelRouteKeys(spec);
  } else if (spec.index !== undefined) {
    kind = 'index';
    keys = spec.indexKey!;
  } else {
    kind = 'plain';
    keys = NONE;
  }
  if (typeof keys !== 'string' && keys.length === 1) keys = keys[0]!;
  d.kind = kind;
  d.keys = keys;
  return kind;
}

/**
 * The posting key of the single label pair a filed selector dependency scoped to a namespace
 * asked about (`selectsNonEmpty` with one label), else undefined. It is the reverse index's own
 * string, equal to the key the automatic selector index files that pair under in that namespace:
 * a fetch that matched the dependency looks its candidates up with it rather than building the
 * key again (a lookup by a string whose hash is already known).
 */
export function filedSelectorPair(d: Dependency | undefined): string | undefined {
  if (d === undefined || d.kind !== 'selector' || typeof d.keys !== 'string') return undefined;
  const spec = d.spec;
  return spec.namespace !== undefined && spec.selectsNonEmpty !== undefined ? d.keys : undefined;
}

/** True when two dependencies are filed under the same reverse-index entries. */
export function sameRoute(a: Dependency, b: Dependency): boolean {
  if (a.sub !== b.sub || routed(a) !== routed(b)) return false;
  if (a.kind === 'index' && a.spec.index !== b.spec.index) return false;
  const x = a.keys;
  const y = b.keys;
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** The input keys filed under one reverse-index entry; it remembers its entry, for interning. */
class Posting extends Set<string> {
  readonly key: string;
  constructor(key: string) {
    super();
    this.key = key;
  }
}

/** Files `v` under `k`; returns the map's own copy of `k`. */
function addTo(m: Map<string, Posting>, k: string, v: string): string {
  let s = m.get(k);
  if (s === undefined) {
    s = new Posting(k);
    m.set(k, s);
  }
  s.add(v);
  return s.key;
}

function removeFrom(m: Map<string, Posting>, k: string, v: string): void {
  const s = m.get(k);
  if (s === undefined) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

function addAll(s: ReadonlySet<string> | undefined, into: Set<string>): void {
  if (s !== undefined) for (const k of s) into.add(k);
}

function countAll(m: ReadonlyMap<unknown, ReadonlySet<string>>): number {
  let n = 0;
  for (const s of m.values()) n += s.size;
  return n;
}

/**
 * One subscription of a derived collection to a collection it fetched (one per source), and the
 * reverse index of the inputs that fetched it, by {@link Route}. `candidates` is conservative:
 * the caller confirms each candidate against its recorded filters.
 */
export class SourceSub {
  readonly src: Collection<unknown>;
  readonly si: CollectionInternals<unknown>;
  reg: Registration | undefined;
  /** Dependencies (across inputs) on this source. */
  refs = 0;
  /** True while the owner's initial sync waits for this subscription. */
  gated = false;
  readonly plain = new Set<string>();
  readonly byKey = new Map<string, Posting>();
  readonly bySelector = new Map<string, Posting>();
  readonly byLabels = new Map<string, Posting>();
  readonly byIndex = new Map<number, { view: IndexView<unknown>; map: Map<string, Posting> }>();
  /** `bySelector` with the source's augment, as the selector lookups take it. */
  readonly #selectorRoutes: DependencyRoutes;
  /** `byLabels` with the source's augment, as the label lookups take it. */
  readonly #labelRoutes: DependencyRoutes;

  constructor(src: Collection<unknown>, si: CollectionInternals<unknown>) {
    this.src = src;
    this.si = si;
    this.#selectorRoutes = { augment: si.augment, routes: this.bySelector };
    this.#labelRoutes = { augment: si.augment, routes: this.byLabels };
  }

  #map(d: Dependency, create: boolean): Map<string, Posting> | undefined {
    switch (d.kind) {
      case 'key':
        return this.byKey;
      case 'selector':
        return this.bySelector;
      case 'labels':
        return this.byLabels;
      case 'index': {
        const view = d.spec.index!;
        let e = this.byIndex.get(view.id);
        if (e === undefined && create) {
          e = { view, map: new Map() };
          this.byIndex.set(view.id, e);
        }
        return e?.map;
      }
      default:
        return undefined;
    }
  }

  /**
   * Files the dependency of input `inKey`, and swaps its entry strings for the reverse index's
   * own: inputs that share an entry then share one string.
   */
  add(inKey: string, d: Dependency): void {
    if (routed(d) === 'plain') {
      this.plain.add(inKey);
      return;
    }
    const m = this.#map(d, true)!;
    const keys = d.keys;
    if (typeof keys === 'string') d.keys = addTo(m, keys, inKey);
    else d.keys = keys.map((k) => addTo(m, k, inKey));
  }

  remove(inKey: string, d: Dependency): void {
    if (routed(d) === 'plain') {
      this.plain.delete(inKey);
      return;
    }
    const m = this.#map(d, false);
    if (m === undefined) return;
    const keys = d.keys;
    if (typeof keys === 'string') removeFrom(m, keys, inKey);
    else for (const k of keys) removeFrom(m, k, inKey);
    if (d.kind === 'index' && m.size === 0) this.byIndex.delete(d.spec.index!.id);
  }

  /** Adds to `into` the input keys that may depend on `obj` (to be confirmed against their filters). */
  candidates(obj: unknown, into: Set<string>): void {
    addAll(this.plain, into);
    if (this.byKey.size > 0) addAll(this.byKey.get(this.si.keyOf(obj)), into);
    if (this.bySelector.size > 0) selectorDependants(obj, this.#selectorRoutes, into);
    if (this.byLabels.size > 0) labelDependants(obj, this.#labelRoutes, into);
    for (const e of this.byIndex.values()) {
      for (const ik of e.view.extract(obj)) addAll(e.map.get(ik), into);
    }
  }

  /** Reverse-index entry counts, for tests and the dump. */
  size(): number {
    let n = this.plain.size + countAll(this.byKey) + countAll(this.bySelector) + countAll(this.byLabels);
    for (const e of this.byIndex.values()) n += countAll(e.map);
    return n;
  }
}
