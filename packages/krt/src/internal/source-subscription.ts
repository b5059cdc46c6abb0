import type { Collection, Registration } from '../core.ts';
import type { FilterSpec } from './filter-spec.ts';
import type { CollectionInternals, IndexView } from './internals.ts';
import { labelDependants, labelRouteKeys, selectorDependants, selectorRouteKeys } from './label-index.ts';

/**
 * Where a dependency is filed in its source's reverse index, chosen from its filters, most
 * selective first: by object key; by the pairs of the labels a selector filter asked about; by
 * one pair of a label filter; by index key; else with the plain fetches (every change to the
 * source is checked against it).
 */
export interface Route {
  /** Which reverse map the dependency is filed in. */
  readonly kind: 'key' | 'selector' | 'labels' | 'index' | 'plain';
  /** Its entries in that map. */
  readonly keys: readonly string[];
  /** The index, for `index` routes. */
  readonly view?: IndexView<unknown> | undefined;
}

const PLAIN: Route = { kind: 'plain', keys: [] };

/** The route of a fetch's filters (see {@link Route}). */
export function routeOf(spec: FilterSpec): Route {
  if (spec.key !== undefined) return { kind: 'key', keys: [spec.key] };
  if (spec.keys !== undefined) return { kind: 'key', keys: [...spec.keys] };
  if (spec.selectsNonEmpty !== undefined || spec.selects !== undefined) {
    return { kind: 'selector', keys: selectorRouteKeys(spec) };
  }
  if (spec.labels !== undefined) return { kind: 'labels', keys: labelRouteKeys(spec) };
  if (spec.index !== undefined) return { kind: 'index', keys: [spec.indexKey!], view: spec.index };
  return PLAIN;
}

/** True when two routes file a dependency under the same entries. */
export function sameRoute(a: Route, b: Route): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.view !== b.view || a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i]) return false;
  return true;
}

/** One fetch recorded by a transformation. */
export interface Dependency {
  /** The subscription to the fetched collection. */
  readonly sub: SourceSub;
  /** The fetch's filters, to confirm that a changed object matches. */
  readonly spec: FilterSpec;
  /** Where it is filed in the reverse index. */
  readonly route: Route;
}

function addTo(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (s === undefined) {
    s = new Set();
    m.set(k, s);
  }
  s.add(v);
}

function removeFrom(m: Map<string, Set<string>>, k: string, v: string): void {
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
  readonly byKey = new Map<string, Set<string>>();
  readonly bySelector = new Map<string, Set<string>>();
  readonly byLabels = new Map<string, Set<string>>();
  readonly byIndex = new Map<number, { view: IndexView<unknown>; map: Map<string, Set<string>> }>();

  constructor(src: Collection<unknown>, si: CollectionInternals<unknown>) {
    this.src = src;
    this.si = si;
  }

  #map(r: Route, create: boolean): Map<string, Set<string>> | undefined {
    switch (r.kind) {
      case 'key':
        return this.byKey;
      case 'selector':
        return this.bySelector;
      case 'labels':
        return this.byLabels;
      case 'index': {
        const view = r.view!;
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

  add(inKey: string, r: Route): void {
    if (r.kind === 'plain') {
      this.plain.add(inKey);
      return;
    }
    const m = this.#map(r, true)!;
    for (const k of r.keys) addTo(m, k, inKey);
  }

  remove(inKey: string, r: Route): void {
    if (r.kind === 'plain') {
      this.plain.delete(inKey);
      return;
    }
    const m = this.#map(r, false);
    if (m === undefined) return;
    for (const k of r.keys) removeFrom(m, k, inKey);
    if (r.kind === 'index' && m.size === 0) this.byIndex.delete(r.view!.id);
  }

  /** Adds to `into` the input keys that may depend on `obj` (to be confirmed against their filters). */
  candidates(obj: unknown, into: Set<string>): void {
    addAll(this.plain, into);
    if (this.byKey.size > 0) addAll(this.byKey.get(this.si.keyOf(obj)), into);
    if (this.bySelector.size > 0) selectorDependants(obj, this.si.augment, this.bySelector, into);
    if (this.byLabels.size > 0) labelDependants(obj, this.si.augment, this.byLabels, into);
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
