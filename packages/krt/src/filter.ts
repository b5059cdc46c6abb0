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

function opt(apply: (spec: FilterSpec, source: number, sourceName: string) => void): FetchOption {
  return { [INTERNAL]: apply };
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
interface IndexHandle {
  /** The index. */
  readonly view: IndexView<unknown>;
  /** The uid of the collection it belongs to. */
  readonly owner: number;
  /** True for the namespace index: its key then scopes the automatic label and selector indexes. */
  readonly namespace: boolean;
}

/** One key of an index, as a fetch filter. */
export interface IndexLookup {
  /** The index. */
  readonly handle: IndexHandle;
  /** The index key to fetch. */
  readonly key: string;
}

/** Adds an index filter to a fetch on the collection with uid `source` (named `sourceName`, for errors). */
export function applyIndex(
  s: FilterSpec,
  { handle, key }: IndexLookup,
  source: { uid: number; name: string },
): void {
  const { uid, name: sourceName } = source;
  if (handle.owner !== uid) {
    throw new TypeError(`fetch: the index filter belongs to another collection than "${sourceName}"`);
  }
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
    return opt((s, source, sourceName) =>
      applyIndex(s, { handle, key: k }, { uid: source, name: sourceName }),
    );
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
    return opt((s) => {
      s.selectsNonEmpty = labels ?? {};
    });
  },
  /** The objects for which `predicate` returns true (it sees the augmented object). */
  generic(predicate: (obj: unknown) => boolean): FetchOption {
    return opt((s) => {
      if (s.generic === undefined) s.generic = [];
      s.generic.push(predicate);
    });
  },
} as const;
