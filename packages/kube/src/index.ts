/**
 * `@kubeloom/kube`: one client per cluster, the shared informer engine, the resource registry,
 * the CRD watcher and typed API errors. The fake cluster is at `@kubeloom/kube/fake`.
 *
 * @packageDocumentation
 */
export {
  type ApiClient,
  type DeleteOptions,
  type ListMeta,
  type ListOptions,
  type ObjectList,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  type PatchType,
  type RawRequest,
  type SelectorOptions,
  type WatchEvent,
  WatchIdleTimeoutError,
  type WatchOptions,
  type WriteOptions,
} from './api.ts';
export { builtinResources, builtins } from './builtins.ts';
export {
  describeInformerKey,
  type InformerOptions,
  type InformerTuning,
  type KubeClient,
  type ServerVersionInfo,
} from './client.ts';
export type { CrdWatcher } from './crd-watcher.ts';
export {
  AlreadyExistsError,
  ApiError,
  type ApiErrorReason,
  apiErrorFromStatus,
  ConflictError,
  ForbiddenError,
  GoneError,
  ignoreNotFound,
  InvalidError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  NotFoundError,
  type Status,
  type StatusCause,
  TimeoutError,
  TooManyRequestsError,
  toApiError,
  UnauthorizedError,
} from './errors.ts';
export {
  extractTombstone,
  type HandlerRegistration,
  type InformerHealth,
  type InformerKey,
  type InformerState,
  isTombstone,
  type ResourceEventHandler,
  type SharedInformer,
  type Tombstone,
  type TransformFunc,
} from './informer.ts';
export {
  consoleLogger,
  type Logger,
  type LogFields,
  type LogLevel,
  noopLogger,
  type RecordingLogger,
  recordingLogger,
} from './logger.ts';
export {
  deepFreeze,
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ObjectMeta,
  objectKey,
  objectKeyOf,
  type OwnerReference,
  parseKey,
  resourceVersionNumber,
} from './object.ts';
export { NamespaceFilter, type ObjectFilter, objectFilter } from './object-filter.ts';
export { type ResourceRegistry, UnknownResourceError } from './registry.ts';
export {
  apiVersionOf,
  defineResource,
  type GroupVersionKind,
  type GroupVersionResource,
  gvkOf,
  gvrOf,
  gvrString,
  type ObjectOf,
  parseApiVersion,
  type ResourceDescriptor,
  resourcePath,
  type TypedResourceDescriptor,
} from './resource.ts';
export { type IndexFunc, NAMESPACE_INDEX, type Store } from './store.ts';
