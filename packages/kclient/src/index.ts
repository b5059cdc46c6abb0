/**
 * `@kubeloom/kclient`: one typed client per resource — cached `Reader`, direct `Writer`,
 * `Informer` handlers with filter-aware sync — plus delayed clients for CRDs that may not exist,
 * dynamic filters and live indexes. See README.md.
 *
 * @packageDocumentation
 */

export {
  createClient,
  createDelayedClient,
  createMetadataClient,
  createUntypedClient,
  createWriteClient,
} from './create-client.ts';
export { createEventRecorder } from './create-event-recorder.ts';
export { createNamespaceSelectorFilter } from './create-namespace-selector-filter.ts';
export { type CreateOrUpdateOptions, createOrUpdate } from './create-or-update.ts';
export { createUnionClient } from './create-union-client.ts';
export { ResourceNotServedError } from './errors.ts';
export type { EventRecorder, EventRecorderOptions, EventSeverity, RecordedEvent } from './event-recorder.ts';
export type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  ClientOptions,
  DeepPartial,
  DynamicFilter,
  Filter,
  Informer,
  InformerIndex,
  PartialObjectMetadata,
  Patcher,
  Reader,
  ReadWriter,
  ScaleClient,
  Scaler,
  Untyped,
  WithScale,
  Writer,
  WriterPatchOptions,
} from './interfaces.ts';
export {
  type LabelMatcher,
  type LabelSelector,
  labelMatcher,
  labelSelectorString,
} from './label-selector.ts';
export type {
  NamespaceSelectorFilter,
  NamespaceSelectorFilterOptions,
} from './namespace-selector-filter.ts';
export { METADATA_TRANSFORM_NAME, toPartialObjectMetadata } from './partial-object-metadata.ts';
export { type RetryOptions, retryOnConflict } from './retry-on-conflict.ts';
export { createScaleClient, withScale } from './scale-client.ts';
export { type ShardUnionMembersOptions, shardUnionMembers } from './shard-union-members.ts';
export {
  createShardedClient,
  type ShardedClientOptions,
  type ShardRef,
  shardSelector,
} from './sharded-client.ts';
export { type HandlerShutdowner, shutdownAll } from './shutdown-all.ts';
export { toPatcher } from './to-patcher.ts';
export type { UnionClient, UnionClientOptions } from './union-client.ts';
