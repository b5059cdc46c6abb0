/**
 * `@kubeloom/krt`: declarative controllers. Collections of objects derived from other collections
 * by pure transformations, with dependency tracking, indexes, joins, singletons, status
 * collections and a debug dump. See README.md.
 *
 * @packageDocumentation
 */
export { collection } from './collection.ts';
export { type Index, type IndexObject, index, namespaceIndex } from './collection-index.ts';
export type {
  BatchHandler,
  Collection,
  Event,
  EventHandler,
  EventStream,
  EventType,
  HandlerContext,
  Metadata,
  Registration,
  Singleton,
  StaticSingleton,
  Syncer,
  TransformationEmpty,
  TransformationEmptyToMulti,
  TransformationMulti,
  TransformationSingle,
} from './core.ts';
export { type DebugEntry, DebugHandler } from './debug.ts';
export { deepEqual, type Equaler, equal } from './equality.ts';
export { items, latest } from './event.ts';
export { fetch, fetchOne, fetchOrList, MultipleResultsError } from './fetch.ts';
export { type FetchOption, filter } from './filter.ts';
export { getKey, MissingKeyError, type Named, named, type ResourceNamer, tryGetKey } from './keys.ts';
export {
  getLabelSelector,
  getLabels,
  isSubset,
  type Labeler,
  type LabelSelectorer,
  type Labels,
  LabelsUnavailableError,
  selectsNonEmpty,
} from './labels.ts';
export { manyCollection } from './many-collection.ts';
export { type CollectionOptions, type OptionsBuilder, optionsBuilder } from './options.ts';
export {
  manyFromNothing,
  type StaticSingletonOptions,
  singleton,
  staticSingleton,
} from './singleton.ts';
export { type StaticCollection, type StaticCollectionOptions, staticCollection } from './static.ts';
