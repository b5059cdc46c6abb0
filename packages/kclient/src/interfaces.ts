import type {
  DeleteOptions,
  HandlerRegistration,
  KubeObject,
  ObjectFilter,
  ObjectKey,
  ObjectMeta,
  PatchOptions,
  ResourceDescriptor,
  ResourceEventHandler,
  TransformFunc,
  WriteOptions,
} from '@kubeloom/kube';
import type { V1Scale } from '@kubernetes/client-node';
import type { LabelSelector } from './label-selector.ts';

/**
 * Cached reads. Objects come from the shared informer's cache: they are frozen (copy with
 * `structuredClone` before changing them) and may lag the API server (eventual consistency).
 */
export interface Reader<T extends KubeObject = KubeObject> {
  /**
   * The cached object, or `undefined` when it is not cached **or the client's object filter
   * hides it**. Pass the namespace for namespaced kinds; omit it for cluster-scoped kinds.
   */
  get(name: string, namespace?: string): T | undefined;
  /**
   * Cached objects that pass the client's object filter, in one namespace (or all when omitted)
   * and matching `selector` (all when omitted). The order is unspecified.
   */
  list(namespace?: string, selector?: LabelSelector): T[];
}

/**
 * Options of {@link Writer.patch} and {@link Writer.patchStatus}: `@kubeloom/kube`'s
 * `PatchOptions` (the `PatchType` plus write options) without `subresource`, which the method
 * picks. The client's `fieldManager` applies when none is given.
 */
export type WriterPatchOptions = Omit<PatchOptions, 'subresource'>;

/** Options of {@link Writer.apply} and {@link Writer.applyStatus}. */
export interface ApplyOptions extends Omit<WriteOptions, 'fieldManager'> {
  /** The field manager that owns the applied fields. Required: server-side apply has no default. */
  readonly fieldManager: string;
  /** Take ownership of fields another manager owns instead of failing with a conflict. Default false. */
  readonly force?: boolean | undefined;
}

/** A deep partial object, as sent to server-side apply (only the fields the manager owns). */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * An apply configuration: the fields a manager wants to own, with `metadata.name` (and
 * `metadata.namespace` for namespaced kinds). `apiVersion` and `kind` are filled in from the
 * resource when absent.
 */
export type ApplyConfiguration<T> = DeepPartial<T> & {
  metadata: DeepPartial<ObjectMeta> & { name: string; namespace?: string | undefined };
};

/**
 * Writes, straight to the API server (never through the cache). Failures are the typed errors
 * of `@kubeloom/kube` (`NotFoundError`, `ConflictError`, `InvalidError` with field `causes`, …);
 * use its predicates (`isNotFound`, `isConflict`, …) to tell them apart.
 */
export interface Writer<T extends KubeObject = KubeObject> {
  /** Creates the object (`generateName` works). `apiVersion`/`kind` are filled in when absent. */
  create(obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Replaces the object. With `metadata.resourceVersion` set the write is conditional and fails
   * with a `ConflictError` when the object changed meanwhile (see {@link retryOnConflict}).
   */
  update(obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Replaces the object's `status` through the status subresource.
   * @throws TypeError when the resource has no status subresource.
   */
  updateStatus(obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Patches the object, e.g. `patch({ name, namespace }, { data: { a: '1' } }, { type: 'merge' })`:
   * `merge` (RFC 7386), `json` (RFC 6902, an array of operations), `strategic` (built-in kinds
   * only) or `apply` (server-side apply of `data` as given; {@link Writer.apply} is the typed
   * form).
   * @throws TypeError for a missing or unknown type, `strategic` on a resource that does not
   * support it (every CRD), or `apply` without a field manager.
   */
  patch(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<T>;
  /** {@link Writer.patch} on the status subresource. @throws TypeError without a status subresource. */
  patchStatus(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<T>;
  /**
   * Server-side apply: the server merges `config` into the object (creating it if needed) and
   * records `opts.fieldManager` as the owner of its fields. A field another manager owns fails
   * with a `ConflictError` unless `opts.force` is true.
   */
  apply(config: ApplyConfiguration<T>, opts: ApplyOptions): Promise<T>;
  /** {@link Writer.apply} on the status subresource. @throws TypeError without a status subresource. */
  applyStatus(config: ApplyConfiguration<T>, opts: ApplyOptions): Promise<T>;
  /**
   * Deletes the object (with optional preconditions and propagation policy):
   * `client.delete({ name, namespace })`, without `namespace` for a cluster-scoped resource.
   */
  delete(ref: ObjectKey, opts?: DeleteOptions): Promise<void>;
}

/** A live index over a client's cache (see {@link Informer.index}). */
export interface InformerIndex<T extends KubeObject = KubeObject> {
  /** The index name, as passed to {@link Informer.index}. */
  readonly name: string;
  /**
   * The cached objects whose extract function yielded `key`, filtered by the client's object
   * filter at lookup time. Always current: objects added later are found.
   */
  lookup(key: string): T[];
}

/**
 * A typed informer: cached reads plus event handlers, over the shared informer of
 * `@kubeloom/kube` (one list/watch per resource and server-side filter, however many clients).
 */
export interface Informer<T extends KubeObject = KubeObject> extends Reader<T> {
  /** The resource this client reads. */
  readonly resource: ResourceDescriptor;
  /** Like {@link Reader.list}, ignoring the object filters (the client's and the KubeClient's). */
  listUnfiltered(namespace?: string, selector?: LabelSelector): T[];
  /**
   * Registers a handler. The client's object filter applies: an object that starts passing it
   * (through an update or a filter change) arrives as an add, one that stops passing leaves as a
   * delete. The registration has its own `hasSynced` (true once the handler received the initial
   * list) and `remove` (removes this handler only). On a stopped informer the registration never
   * syncs.
   */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration;
  /**
   * True when the informer has synced, the object filter (if dynamic) has synced, **and every
   * handler registered through this client has processed the initial list**.
   */
  hasSynced(): boolean;
  /** True when the informer (and the dynamic object filter) have synced, whatever the handlers. */
  hasSyncedIgnoringHandlers(): boolean;
  /** Removes every handler registered through this client; handlers added elsewhere stay. */
  shutdownHandlers(): void;
  /** Removes one handler registered through this client (same as `registration.remove()`). */
  shutdownHandler(registration: HandlerRegistration): void;
  /**
   * A live index over the cache. The name is shared by every client of the same shared
   * informer: when an index of that name exists it is reused, **even if `extract` differs**
   * (Istio's semantics), so give indexes distinct names.
   */
  index(name: string, extract: (obj: T) => readonly string[]): InformerIndex<T>;
  /**
   * Resolves true once {@link Informer.hasSynced} holds (handlers included), or false when
   * `signal` aborts (or the informer stops) first.
   */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean>;
  /**
   * Starts only this informer, with `signal` (normally `KubeClient.runAndWait` starts every
   * informer; this is for informers created after it), and settles once its shared informer
   * stopped. A shared informer that already runs keeps its first signal: the promise then
   * settles when that one aborts.
   */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Access to the `scale` subresource (autoscaling/v1 `Scale`: `spec.replicas`,
 * `status.replicas`, `status.selector`) of a resource that serves it (Deployments, ReplicaSets,
 * StatefulSets, CRDs with `subresources.scale`). Offered at the type level only by
 * {@link ScaleClient} (from `createScaleClient` or `withScale`), which check the descriptor.
 */
export interface Scaler {
  /** The object's current Scale, straight from the API server: `getScale({ name, namespace })`. */
  getScale(ref: ObjectKey, opts?: { readonly signal?: AbortSignal | undefined }): Promise<V1Scale>;
  /**
   * Sets the desired replicas through the scale subresource (a merge patch of
   * `spec.replicas`, as `kubectl scale` sends): `updateScale({ name, namespace }, 3)`; resolves
   * with the new Scale.
   */
  updateScale(ref: ObjectKey, replicas: number, opts?: WriteOptions): Promise<V1Scale>;
}

/** A client type plus {@link Scaler}: `WithScale<Omit<Client<T>, 'updateStatus'>>` and so on. */
export type WithScale<C> = C & Scaler;

/**
 * The typed client of a resource with a `scale` subresource: {@link Client} plus
 * {@link Scaler}. Obtain one with `createScaleClient(kube, resource)` or `withScale(client)`; both
 * throw a `TypeError` when `resource.subresources.scale` is not true.
 */
export type ScaleClient<T extends KubeObject = KubeObject> = WithScale<Client<T>>;

/**
 * A type-erased patcher (Istio's `kclient.Patcher`, from `toPatcher`): the patch writes of a
 * client without its object type, each resolving with nothing.
 */
export interface Patcher {
  /** {@link Writer.patch}, discarding the result. */
  patch(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<void>;
  /** {@link Writer.patchStatus}, discarding the result. */
  patchStatus(ref: ObjectKey, data: unknown, opts: WriterPatchOptions): Promise<void>;
  /**
   * {@link Writer.applyStatus} of `config` (an apply configuration, typically `{ status: … }`)
   * for the object `ref`, discarding the result. `force` defaults to false, as in
   * `Writer.applyStatus` (Istio's `ApplyStatus` always forces: pass `force: true` for that).
   */
  applyStatus(ref: ObjectKey, config: Readonly<Record<string, unknown>>, opts: ApplyOptions): Promise<void>;
}

/** Reads and writes without handlers. */
export interface ReadWriter<T extends KubeObject = KubeObject> extends Reader<T>, Writer<T> {}

/** The typed client of one resource: cached reads, direct writes and event handlers. */
export interface Client<T extends KubeObject = KubeObject> extends Informer<T>, Writer<T> {}

/** A client over any resource, with objects as plain JSON. */
export type Untyped = Client<KubeObject>;

/**
 * An object filter that may change at run time. It is `@kubeloom/kube`'s `ObjectFilter`
 * (`matches`, optional `subscribe`) plus an optional `hasSynced`: a filter that depends on other
 * informers (e.g. Namespace labels) is not authoritative before they synced, and a client's
 * `hasSynced` waits for it.
 */
export interface DynamicFilter extends ObjectFilter {
  /** True once the filter's answers are authoritative. Absent means always. */
  hasSynced?(): boolean;
}

/**
 * What a client sees. `namespace`, `labelSelector` and `fieldSelector` are server-side (they
 * select a separate shared list/watch); `objectFilter` is client-side (filtered objects are still
 * listed, watched and cached).
 */
export interface Filter<T extends KubeObject = KubeObject> {
  /** One namespace; all when omitted. Not allowed for cluster-scoped kinds. */
  readonly namespace?: string | undefined;
  /**
   * Several namespaces, one cache (controller-runtime's `DefaultNamespaces`): a union informer
   * (`createUnionInformer` of `@kubeloom/kube`) of one shared list/watch per namespace, each with
   * the server-side selectors below. For a controller whose RBAC covers these namespaces but not
   * the cluster. Not together with `namespace`; an empty list sees nothing. To change the set at
   * run time, use {@link createUnionClient}.
   */
  readonly namespaces?: readonly string[] | undefined;
  /** Server-side label selector. */
  readonly labelSelector?: LabelSelector | undefined;
  /** Server-side field selector, e.g. `metadata.name=x`. */
  readonly fieldSelector?: string | undefined;
  /** A client-side filter: a predicate (static) or a {@link DynamicFilter}. */
  readonly objectFilter?: DynamicFilter | ((obj: T) => boolean) | undefined;
}

/** Options of `createClient` (and the other client constructors). */
export interface ClientOptions<T extends KubeObject = KubeObject> extends Filter<T> {
  /** The field manager of writes that name none (not used by server-side apply, which needs its own). */
  readonly fieldManager?: string | undefined;
  /**
   * An ingest transform for the shared informer (its name is part of the sharing key). Default:
   * drop `metadata.managedFields`.
   */
  readonly transform?: { readonly name: string; readonly fn: TransformFunc } | undefined;
}

/**
 * What a metadata-only client caches: `apiVersion`, `kind` and `metadata` (without
 * `managedFields`). The Kubernetes analogue is `PartialObjectMetadata`.
 */
export interface PartialObjectMetadata extends KubeObject {
  /** Standard object metadata. */
  metadata: ObjectMeta;
}
