/**
 * `@kubeloom/krt`: declarative controllers. Collections of objects derived from other collections
 * by pure transformations, with dependency tracking, indexes, joins, singletons, status
 * collections and a debug dump. See README.md.
 *
 * @packageDocumentation
 */
export { collection } from './collection.ts';
export { type CollectionIndex, type IndexObject, index, namespaceIndex } from './collection-index.ts';
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
export {
  type CollectionDump,
  createDebugHandler,
  type DebugEntry,
  type DebuggedCollection,
  type DebugHandler,
} from './debug.ts';
export { deepEqual, type Equaler, equal } from './equality.ts';
export { items, latest } from './event.ts';
export { fetch, fetchOne, fetchOrList, MultipleResultsError } from './fetch.ts';
export { type FileCollectionOptions, fileCollection, parseYamlDocuments } from './files.ts';
export { type FetchOption, filter } from './filter.ts';
export { type InformerCollectionOptions, informer } from './informer.ts';
export { joinCollection, joinWithMerge, type MergeFunc } from './join.ts';
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
export { mapCollection } from './map.ts';
export { nestedJoin } from './nested-join.ts';
export { type CollectionOptions, type OptionsBuilder, optionsBuilder } from './options.ts';
export {
  type RecomputeProtected,
  type RecomputeTrigger,
  recomputeProtected,
  recomputeTrigger,
} from './recompute-trigger.ts';
export {
  manyFromNothing,
  type StaticSingletonOptions,
  singleton,
  staticSingleton,
} from './singleton.ts';
export { type StaticCollection, type StaticCollectionOptions, staticCollection } from './static.ts';
export {
  type ObjectWithStatus,
  type StatusCollections,
  type StatusManyTransformation,
  type StatusTransformation,
  statusCollection,
  statusManyCollection,
} from './status.ts';
export {
  applyStatusWrite,
  type StatusWrite,
  type StatusWriter,
  type StatusWriterLeaderElection,
  type StatusWriterOptions,
  type StatusWriterStats,
  startStatusWriter,
} from './status-writer.ts';
