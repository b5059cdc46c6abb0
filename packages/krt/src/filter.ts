import type { ObjectKey } from '@kubeloom/kube';
import type { CollectionIndex } from './collection-index.ts';
import type { FilterSpec } from './internal/filter-spec.ts';
import type { IndexView } from './internal/internals.ts';
import { INTERNAL } from './internal/symbols.ts';
import type { Labels } from './labels.ts';

/** One filter of a {@link fetch}; build them with {@link filter}. Filters of one fetch are ANDed. */
export interface FetchOption {
  /** @internal Applies the filter to the spec of a fetch on the collection with uid `source`. */
  readonly [INTERNAL]: (spec: FilterSpec, source: number, sourceName: string) => void;
}

/**
 * A filter option: a class instance rather than an object literal with a computed symbol key,
 * which V8 builds through the runtime on every call (a filter is built per fetch).
 */
class Opt implements FetchOption {
  readonly [INTERNAL]: (spec: FilterSpec, source: number, sourceName: string) => void;
  constructor(apply: (spec: FilterSpec, source: number, sourceName: string) => void) {
    this[INTERNAL] = apply;
  }
}

/** `filter.selectsNonEmpty`: the labels held as a field, applied by a method (no closure per call). */
class SelectsNonEmptyOpt implements FetchOption {
  readonly #labels: Labels | undefined;
  constructor(labels: Labels | undefined) {
    this.#labels = labels;
  }
  [INTERNAL](spec: FilterSpec): void {
    spec.selectsNonEmpty = this.#labels ?? {};
  }
}

function opt(apply: (spec: FilterSpec, source: number, sourceName: string) => void): FetchOption {
  return new Opt(apply);
}

function addKeys(spec: FilterSpec, keys: readonly string[]): void {
  let set: Set<string>;
  if (spec.key !== undefined || spec.keys !== undefined) {
    const prev = spec.keys ?? new Set([spec.key!]);
    set = new Set(keys.filter((k) => prev.has(k)));
  } else if (keys.length === 1) {
    spec.key = keys[0];
    return;
  } else {
    set = new Set(keys);
  }
  spec.key = undefined;
  if (set.size === 1) spec.key = [...set][0];
  else spec.keys = set;
  if (set.size === 0) spec.keys = set;
}

/** The handle of an index, as `filter.index` and `CollectionIndex.fetch` use it. */
export interface IndexHandle {
  /** The index. */
  readonly view: IndexView<unknown>;
  /** The uid of the collection it belongs to. */
  readonly owner: number;
  /** True for the namespace index: its key then scopes the automatic label and selector indexes. */
  readonly namespace: boolean;
}

/** Checks that index `handle` belongs to the collection with uid `uid` (named `sourceName`, for errors). */
function checkIndexOwner(handle: IndexHandle, uid: number, sourceName: string): void {
  if (handle.owner !== uid) {
    throw new TypeError(`fetch: the index filter belongs to another collection than "${sourceName}"`);
  }
}

/** Adds the filter `key` of index `handle` to a fetch (its owner checked by {@link checkIndexOwner}). */
export function applyIndex(s: FilterSpec, handle: IndexHandle, key: string): void {
  if (s.index !== undefined) {
    throw new TypeError('fetch: only one index filter per fetch (use one fetch per index)');
  }
  s.index = handle.view;
  s.indexKey = key;
  if (handle.namespace) s.namespace = key;
}

/**
 * The fetch filters. Key and index filters are answered from maps and recorded in a reverse
 * index, so a change to another object does not recompute the input; the others are predicates.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#filter}
 */
export const filter = {
  /** The object with this key. */
  key(key: string): FetchOption {
    return opt((s) => addKeys(s, [key]));
  },
  /** The objects with any of these keys; an empty list matches nothing. */
  keys(keys: Iterable<string>): FetchOption {
    const list = [...keys];
    return opt((s) => addKeys(s, list));
  },
  /** The object with this namespace and name (a key filter). */
  objectName(name: ObjectKey): FetchOption {
    const k = name.namespace ? `${name.namespace}/${name.name}` : name.name;
    return opt((s) => addKeys(s, [k]));
  },
  /** The objects that have `key` in `index` (the index must belong to the fetched collection). */
  index<K, O>(index: CollectionIndex<K, O>, key: K): FetchOption {
    const handle = index[INTERNAL];
    const k = typeof key === 'string' ? key : String(key);
    return opt((s, source, sourceName) => {
      checkIndexOwner(handle, source, sourceName);
      applyIndex(s, handle, k);
    });
  },
  /** The objects whose labels include every label in `labels` (undefined or empty: all). */
  labels(labels: Labels | undefined): FetchOption {
    return opt((s) => {
      if (labels !== undefined && Object.keys(labels).length > 0) s.labels = { ...s.labels, ...labels };
    });
  },
  /**
   * The objects whose label selector selects `labels`; an empty selector selects everything.
   * `undefined` labels disables the filter.
   */
  selects(labels: Labels | undefined): FetchOption {
    return opt((s) => {
      if (labels !== undefined) s.selects = labels;
    });
  },
  /** The objects whose label selector is non-empty and selects `labels` (`undefined` is `{}`). */
  selectsNonEmpty(labels: Labels | undefined): FetchOption {
    return new SelectsNonEmptyOpt(labels);
  },
  /** The objects for which `predicate` returns true (it sees the augmented object). */
  generic(predicate: (obj: unknown) => boolean): FetchOption {
    return opt((s) => {
      if (s.generic === undefined) s.generic = [];
      s.generic.push(predicate);
    });
  },
} as const;
