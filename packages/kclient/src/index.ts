/**
 * `@kubeloom/kclient`: one typed client per resource — cached `Reader`, direct `Writer`,
 * `Informer` handlers with filter-aware sync — plus delayed clients for CRDs that may not exist,
 * dynamic filters and live indexes. See README.md.
 *
 * @packageDocumentation
 */
export { type CreateOrUpdateOptions, createOrUpdate } from './create-or-update.ts';
export { ResourceNotServedError } from './errors.ts';
export { EventRecorder, type EventRecorderOptions, type EventType } from './event-recorder.ts';
export type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  ClientOptions,
  DeepPartial,
  DynamicFilter,
  Filter,
  Index,
  Informer,
  PartialObjectMetadata,
  Patcher,
  PatchKind,
  Reader,
  ReadWriter,
  ScaleClient,
  Scaler,
  Untyped,
  WithScale,
  Writer,
} from './interfaces.ts';
export {
  type LabelMatcher,
  type LabelSelector,
  labelMatcher,
  labelSelectorString,
} from './label-selector.ts';
export { NamespaceSelectorFilter, type NamespaceSelectorFilterOptions } from './namespace-selector-filter.ts';
export {
  newClient,
  newDelayed,
  newDynamic,
  newFiltered,
  newMetadata,
  newUntyped,
  newWriteClient,
} from './new-client.ts';
export { METADATA_TRANSFORM_NAME, toPartialObjectMetadata } from './partial-object-metadata.ts';
export { type RetryOptions, retryOnConflict } from './retry-on-conflict.ts';
export { newScaleClient, withScale } from './scale-client.ts';
export { type HandlerShutdowner, shutdownAll } from './shutdown-all.ts';
export { toPatcher } from './to-patcher.ts';
