/**
 * `@kubeloom/kube`: one client per cluster, the shared informer engine, the resource registry,
 * the CRD watcher and typed API errors. The fake cluster is at `@kubeloom/kube/fake`.
 *
 * The package exports contracts ({@link ApiClient}, {@link KubeClient}, {@link SharedInformer},
 * {@link Store}, {@link ResourceRegistry}, {@link CrdWatcher}) and the factories that make them
 * ({@link createKubeClient}, {@link createApiClient}); the classes behind them are internal.
 *
 * @packageDocumentation
 */
export {
  type ApiClient,
  type DeleteOptions,
  type GetOptions,
  type ListMeta,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  type PatchType,
  type RawRequest,
  type SelectorOptions,
  type WatchEvent,
  WatchIdleTimeoutError,
  type WatchOptions,
  WatchResetError,
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
export { ConnectionError } from './connection-error.ts';
export type { CrdWatcher } from './crd-watcher.ts';
export {
  type ApiClientOptions,
  createApiClient,
  createKubeClient,
  type KubeClientOptions,
  loadKubeConfig,
} from './create-kube-client.ts';
export { createUnionInformer } from './create-union-informer.ts';
export {
  AlreadyExistsError,
  ApiError,
  type ApiErrorContext,
  type ApiErrorReason,
  apiErrorFromStatus,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  KubeConfigError,
  type KubeConfigErrorLocation,
  NotFoundError,
  type Status,
  type StatusCause,
  TimeoutError,
  TooManyRequestsError,
  toApiError,
  UnauthorizedError,
} from './errors.ts';
export {
  type FieldRequirement,
  type ParsedFieldSelector,
  parseFieldSelector,
} from './field-selector.ts';
export type { HttpOptions } from './http-api-client.ts';
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
  type LabelRequirement,
  type LabelSet,
  type ParsedLabelSelector,
  parseLabelSelector,
  type SelectorOperator,
} from './label-selector.ts';
export {
  consoleLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  noopLogger,
  type SerializedError,
} from './logger.ts';
export {
  deepFreeze,
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ObjectMeta,
  type OwnerReference,
  objectKey,
  objectKeyOf,
  parseKey,
  resourceVersionNumber,
} from './object.ts';
export { type NamespaceFilter, namespaceFilter, type ObjectFilter, objectFilter } from './object-filter.ts';
export { type ResourceRegistry, UnknownResourceError } from './registry.ts';
export type { ObservedRequest, RequestObserver } from './request-observer.ts';
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
export { ResponseTooLargeError } from './response-too-large.ts';
export { SelectorError, type SelectorKind } from './selector-error.ts';
export { serializeError } from './serialize-error.ts';
export { type IndexErrorHandler, type IndexFunc, NAMESPACE_INDEX, type Store } from './store.ts';
export { stripManagedFields } from './strip-managed-fields.ts';
export type { UnionInformer, UnionInformerOptions, UnionMember } from './union-informer.ts';
