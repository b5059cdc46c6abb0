import type { Status } from './errors.ts';
import type { KubeObject, ObjectKey } from './object.ts';
import type { ResourceDescriptor, TypedResourceDescriptor } from './resource.ts';

/** List metadata: the collection's resourceVersion and the continue token of a paginated list. */
export interface ListMeta {
  /** The resourceVersion the list was served at. */
  resourceVersion?: string;
  /** The token for the next page, when there is one. */
  continue?: string;
  /** An estimate of the items left after this page. */
  remainingItemCount?: number;
}

/** A list response. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** e.g. `v1`. */
  apiVersion?: string;
  /** e.g. `ConfigMapList`. */
  kind?: string;
  /** List metadata. */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}

/** Selectors and scope shared by list and watch. */
export interface SelectorOptions {
  /** Restrict to one namespace; omit for all namespaces (or for cluster-scoped resources). */
  readonly namespace?: string | undefined;
  /** A label selector, e.g. `app=web,tier!=db`. */
  readonly labelSelector?: string | undefined;
  /** A field selector, e.g. `metadata.name=foo`. */
  readonly fieldSelector?: string | undefined;
}

/** Options for {@link ApiClient.list}. */
export interface ListOptions extends SelectorOptions {
  /** Page size; omit for an unpaginated list. */
  readonly limit?: number | undefined;
  /** The continue token from the previous page. */
  readonly continue?: string | undefined;
  /** `resourceVersion` semantics of the list (`''` or omitted: most recent, consistent). */
  readonly resourceVersion?: string | undefined;
  /** `NotOlderThan` or `Exact`, when `resourceVersion` is set. */
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact' | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/** Options for {@link ApiClient.watch}. */
export interface WatchOptions extends SelectorOptions {
  /** Start after this resourceVersion. */
  readonly resourceVersion?: string | undefined;
  /** Ask the server for BOOKMARK events. */
  readonly allowWatchBookmarks?: boolean | undefined;
  /** Ask the server to end the watch after this many seconds (a normal close). */
  readonly timeoutSeconds?: number | undefined;
  /** Reconnect-worthy silence: when no byte arrives for this long, the stream ends with a {@link WatchIdleTimeoutError}. */
  readonly idleTimeoutMs?: number | undefined;
  /** Ends the watch. */
  readonly signal?: AbortSignal | undefined;
}

/** Raised by a watch stream that received nothing (not even a bookmark) for `idleTimeoutMs`. */
export class WatchIdleTimeoutError extends Error {
  /** Creates the error. */
  constructor(idleTimeoutMs: number) {
    super(`watch received no data for ${idleTimeoutMs} ms`);
    this.name = 'WatchIdleTimeoutError';
  }
}

/**
 * Raised by a watch stream whose open connection broke mid-stream (reset by the API server, a
 * proxy or a load balancer, or the network). It says nothing about the resourceVersion: watching
 * again from the last resourceVersion received resumes the stream, which is what an informer does.
 */
export class WatchResetError extends Error {
  /** The Node error code of the cause, e.g. `ECONNRESET`. */
  readonly code: string | undefined;
  /** How many events the watch delivered before the reset. */
  readonly events: number;
  /** Creates the error; `context` names the watch, e.g. `watch configmaps in ns`. */
  constructor(context: string, cause: unknown, events: number) {
    const c = cause as NodeJS.ErrnoException | undefined;
    const why = `${c?.code ? `${c.code}: ` : ''}${c?.message ?? String(cause)}`;
    super(
      `${context}: the open watch was reset after ${events} event${events === 1 ? '' : 's'} (${why}). Long-lived watches are reset now and then (an API server restart, a proxy or load balancer closing connections); watch again from the last resourceVersion received to resume. An informer does this by itself.`,
      { cause },
    );
    this.name = 'WatchResetError';
    this.code = c?.code;
    this.events = events;
  }
}

/**
 * One event of a watch stream. Besides the four API event types and `ERROR`, the stream reports
 * `MALFORMED` for a line it could not decode and `UNKNOWN` for an event type it does not know:
 * nothing is dropped silently, the consumer decides.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly status: Status }
  | { readonly type: 'MALFORMED'; readonly line: string; readonly error: string }
  | { readonly type: 'UNKNOWN'; readonly eventType: string; readonly raw: unknown };

/**
 * How the server reads a patch (the `Content-Type` of the request): `merge` is a JSON merge patch
 * (RFC 7386), `json` a JSON patch (RFC 6902, an array of operations), `strategic` a strategic
 * merge patch (built-in kinds only, never custom resources) and `apply` server-side apply (a full
 * intended object, YAML or JSON, owned by a `fieldManager`).
 */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The content type of each {@link PatchType}. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Options shared by writes. */
export interface WriteOptions {
  /** Names the writer in `managedFields`; required for server-side apply. */
  readonly fieldManager?: string | undefined;
  /** `All` to validate without persisting. */
  readonly dryRun?: 'All' | undefined;
  /** Server-side field validation: `Strict` rejects unknown fields. */
  readonly fieldValidation?: 'Ignore' | 'Warn' | 'Strict' | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Options for {@link ApiClient.patch} (and the patch writes of kclient's clients): the
 * {@link PatchType} plus the write options, e.g.
 * `{ type: 'apply', fieldManager: 'my-controller', force: true }`.
 */
export interface PatchOptions extends WriteOptions {
  /** How the server reads the patch data. */
  readonly type: PatchType;
  /** Server-side apply only: take ownership of fields another manager owns instead of failing with a conflict. */
  readonly force?: boolean | undefined;
  /** Patch a subresource instead of the object, e.g. `status` or `scale`. */
  readonly subresource?: string | undefined;
}

/**
 * One object of a resource, as {@link ApiClient.get}, {@link ApiClient.patch} and
 * {@link ApiClient.delete} take it: the resource descriptor (which
 * also carries the object type), the name, and the namespace for namespaced resources (kube-rs's
 * `ObjectRef`).
 */
export interface ObjectRef<T extends KubeObject = KubeObject> extends ObjectKey {
  /** The object's resource; a typed descriptor types the result. */
  readonly resource: TypedResourceDescriptor<T>;
  /** The namespace; omit (or `undefined`) for cluster-scoped objects. */
  readonly namespace?: string | undefined;
}

/** Options for {@link ApiClient.get}. */
export interface GetOptions {
  /** Read a subresource instead of the object, e.g. `status` or `scale`. */
  readonly subresource?: string | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/** Options for {@link ApiClient.delete}. */
export interface DeleteOptions {
  /** Delete only if the object still has this uid / resourceVersion. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
  /** `Foreground`, `Background` or `Orphan`. */
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  /** Grace period; 0 deletes immediately. */
  readonly gracePeriodSeconds?: number | undefined;
  /** `All` to validate without persisting. */
  readonly dryRun?: 'All' | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/** A raw request for endpoints the typed verbs do not cover (discovery, `/version`, …). */
export interface RawRequest {
  /** HTTP method. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute path, e.g. `/apis`. */
  readonly path: string;
  /** Query parameters; `undefined` values are dropped. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>> | undefined;
  /** JSON body (or a string sent as is). */
  readonly body?: unknown;
  /** Body content type; defaults to `application/json`. */
  readonly contentType?: string | undefined;
  /** Cancels the request. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The REST verbs against any resource, as JSON. The informer engine, the resource registry and
 * every client above are written against this interface; {@link createKubeClient} backs it with
 * HTTPS to a real apiserver, `@kubeloom/kube/fake` with an in-memory cluster.
 *
 * Every method throws an {@link ApiError} subclass for an API failure (see the predicates in
 * `errors.ts`), never a raw HTTP error.
 *
 * The object type follows the resource descriptor: with a typed descriptor (`builtins.ConfigMap`,
 * or what `@kubeloom/codegen` emits) `get` resolves with a `V1ConfigMap`, with an untyped
 * {@link ResourceDescriptor} with a plain {@link KubeObject}.
 */
export interface ApiClient {
  /**
   * GET one object (or a subresource): `api.get({ resource, name, namespace })`.
   * @throws TypeError for a namespaced resource without a namespace; NotFoundError from the server.
   */
  get<T extends KubeObject = KubeObject>(ref: ObjectRef<T>, opts?: GetOptions): Promise<T>;
  /** LIST, one page when `limit` is set. @throws GoneError when a continue token expired. */
  list<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts?: ListOptions,
  ): Promise<ObjectList<T>>;
  /**
   * WATCH, as an async iterable of events. The iterable ends when the server closes the stream
   * (e.g. `timeoutSeconds`) or the signal aborts. It throws an {@link ApiError} when the request
   * is refused (e.g. `410` for a too-old resourceVersion, `429` with Retry-After), a
   * {@link WatchIdleTimeoutError} on silence, a {@link WatchResetError} when the open stream breaks,
   * or a transport error when the watch cannot be opened.
   */
  watch<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts?: WatchOptions,
  ): AsyncIterable<WatchEvent<T>>;
  /** POST a new object. @throws AlreadyExistsError, InvalidError */
  create<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    obj: T,
    opts?: WriteOptions,
  ): Promise<T>;
  /**
   * PUT an object (or its `status`/`scale` subresource). With `metadata.resourceVersion` set the
   * write is conditional. @throws ConflictError on a stale resourceVersion
   */
  update<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    obj: T,
    opts?: WriteOptions & { readonly subresource?: string | undefined },
  ): Promise<T>;
  /**
   * PATCH an object (or a subresource): `api.patch({ resource, name, namespace }, data, { type })`.
   * `type: 'apply'` is server-side apply and needs `fieldManager`; `strategic` is refused for
   * resources without strategic merge patch (every custom resource).
   * @throws TypeError for a missing or unknown `type`, `apply` without `fieldManager`, or a
   * namespaced resource without a namespace; NotFoundError, ConflictError, InvalidError from the server.
   */
  patch<T extends KubeObject = KubeObject>(ref: ObjectRef<T>, data: unknown, opts: PatchOptions): Promise<T>;
  /**
   * DELETE an object: `api.delete({ resource, name, namespace })`; resolves with what the server
   * returned (the object, or a Status).
   * @throws TypeError for a namespaced resource without a namespace; NotFoundError, ConflictError
   * (a failed precondition) from the server.
   */
  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<KubeObject | Status>;
  /** Any other request, JSON in and out. */
  request<T = unknown>(req: RawRequest): Promise<T>;
  /** Closes idle connections. In-flight requests are not affected; the client stays usable. */
  close(): void;
  /**
   * Releases every connection, in-flight requests and open watches included (they end with an
   * error), for `await using`. Use it when the client is no longer needed.
   */
  [Symbol.asyncDispose](): Promise<void>;
}
