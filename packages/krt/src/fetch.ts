import type { Collection, HandlerContext } from './core.ts';
import { applyIndex, type FetchOption, type IndexHandle } from './filter.ts';
import { type FilterSpec, hasPredicates, matchesPredicates, newSpec } from './internal/filter-spec.ts';
import { type CollectionInternals, internalsOf } from './internal/internals.ts';
import { labelCandidates, selectorCandidates } from './internal/label-index.ts';
import type { DependencyRecorder } from './internal/recorder.ts';
import { filedSelectorPair } from './internal/source-subscription.ts';
import { INTERNAL } from './internal/symbols.ts';

/** Thrown by {@link fetchOne} when more than one object matches. */
export class MultipleResultsError extends Error {
  /** Creates the error. */
  constructor(collection: string, count: number) {
    super(`fetchOne on "${collection}" matched ${count} objects; narrow the filters or use fetch`);
    this.name = 'MultipleResultsError';
  }
}

function buildSpec(
  src: CollectionInternals<unknown>,
  name: string,
  opts: readonly FetchOption[],
): FilterSpec {
  const spec = newSpec();
  for (const o of opts) o[INTERNAL](spec, src.uid, name);
  return spec;
}

/**
 * Reads a collection from inside a transformation and records the dependency (before reading,
 * so no change can be missed): when an object matching the filters (in its old or new version)
 * changes, the input is recomputed. Without filters, any change to the collection recomputes it.
 *
 * @throws TypeError without a context, or for a collection not created by krt.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#fetch}
 */
export function fetch<T>(ctx: HandlerContext, c: Collection<T>, ...opts: FetchOption[]): T[] {
  if (ctx === undefined || ctx === null) {
    throw new TypeError('fetch: a HandlerContext is required (use list() outside transformations)');
  }
  const src = internalsOf(c) as CollectionInternals<unknown>;
  const spec = buildSpec(src, c.name, opts);
  const rec = (ctx as { [INTERNAL]?: DependencyRecorder })[INTERNAL];
  const kept = rec?.record(c as Collection<unknown>, spec);
  return listMatching(c, spec, filedSelectorPair(kept));
}

/**
 * The filter spec of a fetch through index `handle` for `key` (`CollectionIndex.fetch`): the index
 * filter is applied directly, without building a filter option per call. The index is the
 * collection's own (a `CollectionIndex` is made from its collection), so no owner check, unlike
 * `filter.index`. Add the caller's options with {@link withOptions}, then read with {@link fetchSpec}.
 */
export function indexSpec(handle: IndexHandle, key: string): FilterSpec {
  const spec = newSpec();
  applyIndex(spec, handle, key);
  return spec;
}

/** Adds the filter options `opts` of a fetch on `c` to `spec`; returns `spec`. */
export function withOptions<T>(spec: FilterSpec, c: Collection<T>, opts: readonly FetchOption[]): FilterSpec {
  if (opts.length === 0) return spec;
  const uid = internalsOf(c).uid;
  for (let i = 0; i < opts.length; i++) opts[i]![INTERNAL](spec, uid, c.name);
  return spec;
}

/** {@link fetch} with a filter spec already built ({@link indexSpec}, {@link withOptions}). */
export function fetchSpec<T>(ctx: HandlerContext, c: Collection<T>, spec: FilterSpec): T[] {
  if (ctx === undefined || ctx === null) {
    throw new TypeError('fetch: a HandlerContext is required (use list() outside transformations)');
  }
  const rec = (ctx as { [INTERNAL]?: DependencyRecorder })[INTERNAL];
  const kept = rec?.record(c as Collection<unknown>, spec);
  return listMatching(c, spec, filedSelectorPair(kept));
}

/**
 * Like {@link fetch}, for at most one result.
 *
 * @throws MultipleResultsError when more than one object matches.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#fetchOne}
 */
export function fetchOne<T>(ctx: HandlerContext, c: Collection<T>, ...opts: FetchOption[]): T | undefined {
  const res = fetch(ctx, c, ...opts);
  if (res.length > 1) throw new MultipleResultsError(c.name, res.length);
  return res[0];
}

/**
 * {@link fetch} with a context, a plain filtered read without one (no dependency).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#fetchOrList}
 */
export function fetchOrList<T>(
  ctx: HandlerContext | undefined,
  c: Collection<T>,
  ...opts: FetchOption[]
): T[] {
  if (ctx !== undefined) return fetch(ctx, c, ...opts);
  const src = internalsOf(c);
  return listMatching(c, buildSpec(src as CollectionInternals<unknown>, c.name, opts));
}

/**
 * The objects of `c` matching `spec`. Candidates come from the cheapest source available: the
 * keys; else the automatic selector or label index (scoped by the namespace index's key when the
 * fetch uses it); else the index; else the full list. Every candidate is then checked against
 * every filter the pre-selection did not answer.
 */
function listMatching<T>(c: Collection<T>, spec: FilterSpec, pair?: string): T[] {
  const src = internalsOf(c) as CollectionInternals<T>;
  // `out` may be a shared candidate list until it is filtered: copy it before returning it.
  let out: readonly T[] | undefined;
  let owned = true;
  let indexChecked = false;
  if (spec.keys !== undefined) {
    const found: T[] = [];
    for (const k of spec.keys) {
      const v = c.get(k);
      if (v !== undefined) found.push(v);
    }
    out = found;
  } else if (spec.key !== undefined) {
    const v = c.get(spec.key);
    out = v === undefined ? [] : [v];
  } else if (spec.index === undefined || spec.namespace !== undefined) {
    // Without an index, or with the namespace index, whose key then scopes the automatic index
    // (so its candidates all pass the index filter).
    out = selectorCandidates(src, spec, pair) ?? labelCandidates(src, spec);
    indexChecked = out !== undefined;
    owned = false;
  }
  if (out === undefined) {
    owned = true;
    if (spec.index !== undefined) {
      out = spec.index.lookup(spec.indexKey!) as T[];
      indexChecked = true;
    } else {
      out = c.list();
    }
  }
  if (spec.index !== undefined && !indexChecked && out.length > 0) {
    const idx = spec.index;
    const ik = spec.indexKey!;
    out = out.filter((o) => idx.extract(o).includes(ik));
    owned = true;
  }
  if (hasPredicates(spec) && out.length > 0) {
    const aug = src.augment;
    const kept: T[] = [];
    for (const o of out) if (matchesPredicates(spec, aug ? aug(o) : o)) kept.push(o);
    return kept;
  }
  return owned ? (out as T[]) : [...out];
}
