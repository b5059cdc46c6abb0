import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  RawRequest,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../api.ts';
import type { ServerVersionInfo } from '../client.ts';
import type { Status } from '../errors.ts';
import { checkPatchType, requireNamespace } from '../internal/request-helpers.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceDescriptor, TypedResourceDescriptor } from '../resource.ts';
import type {
  FailureOptions,
  FakeClusterOptions,
  FakeVerb,
  RequestObserver,
  ResourceMatcher,
} from './fake-cluster-options.ts';
import { invalidSubject } from './internal/admission.ts';
import { FaultInjection } from './internal/fault-injection.ts';
import { isFrozenWatch } from './internal/frozen-watches.ts';
import { isObject, type JsonObject, toJson, toJsonSharing } from './internal/json.ts';
import { ObjectHistory } from './internal/object-history.ts';
import { type RouteTarget, routeRequest } from './internal/request-router.ts';
import { checkSubresource, requestKey, selectionOf, servedResource } from './internal/request-target.ts';
import { ResourceTable } from './internal/resource-table.ts';
import * as S from './internal/status.ts';
import { meta, objectKeyOf, outputOf, str } from './internal/stored-object.ts';
import type { WatchChannel } from './internal/watch-channel.ts';
import { WritePipeline } from './internal/write-pipeline.ts';

/**
 * An in-memory Kubernetes API server: the storage, watch and admission semantics of a real
 * apiserver for what controllers use, behind the `ApiClient` verbs (see
 * {@link createFakeApiClient}), plus controls for tests: seeding, failure injection, delays,
 * request observation, forced watch expiry, history compaction and on-demand bookmarks.
 *
 * Semantics follow kube-apiserver v1.37 (checked by the conformance suite in
 * `test/conformance/`): one global, monotonically increasing resourceVersion; uid,
 * creationTimestamp, generateName, generation bumps on spec changes; the status subresource;
 * optimistic concurrency; finalizers and deletionTimestamp; delete preconditions; merge, JSON,
 * strategic merge (common cases) and server-side apply (common cases) patches; dryRun; list with
 * label and field selectors and pagination whose continue tokens expire with compaction; watch
 * from a resourceVersion with replay, 410 on compacted history, bookmarks and timeouts;
 * discovery of the built-ins and of CRDs created in the fake. The deliberate differences are
 * listed in the package README and in the conformance suite.
 */
export class FakeCluster {
  readonly #table: ResourceTable;
  readonly #history: ObjectHistory;
  readonly #writes: WritePipeline;
  readonly #faults = new FaultInjection();
  readonly #version: ServerVersionInfo;

  /** Creates a cluster, installing `crds` and seeding `objects`. */
  constructor(options: FakeClusterOptions = {}) {
    this.#table = new ResourceTable(options.resources);
    this.#history = new ObjectHistory({
      historyLimit: options.historyLimit ?? 10_000,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      onCommit: (served, type, stored) => this.#writes.afterCommit(served, type, stored),
    });
    this.#writes = new WritePipeline({
      table: this.#table,
      history: this.#history,
      strictNamespaces: options.strictNamespaces ?? false,
      defaultManager: options.defaultFieldManager ?? 'kubeloom',
      now: options.now ?? (() => new Date()),
    });
    this.#version = {
      major: '1',
      minor: '37',
      gitVersion: 'v1.37.2-fake',
      gitCommit: 'fake',
      gitTreeState: 'clean',
      buildDate: '1970-01-01T00:00:00Z',
      goVersion: 'fake',
      compiler: 'fake',
      platform: 'linux/amd64',
      ...options.version,
    } as ServerVersionInfo;
    this.seed(...(options.crds ?? []), ...(options.objects ?? []));
  }

  // ---------------------------------------------------------------- test controls

  /**
   * Stores objects as they are (status, finalizers and given metadata kept; uid, timestamps and
   * resourceVersion filled in), each as one write with an ADDED event. CRDs go first, then
   * namespaces. @throws Error when a kind is not served or an object exists already.
   */
  seed(...objects: readonly KubeObject[]): void {
    this.#writes.seed(objects);
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): string {
    return String(this.#history.rv);
  }

  /** The resourceVersion at or below which history was compacted. */
  get compactedResourceVersion(): string {
    return String(this.#history.compacted);
  }

  /** A copy of one stored object (typed by the descriptor), or undefined. */
  getObject<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    name: string,
    namespace?: string,
  ): T | undefined {
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (!served) return undefined;
    const obj = this.#history
      .bucket(served.storageKey)
      .get(objectKeyOf(resource.namespaced ? namespace : undefined, name));
    return obj ? (outputOf(served, obj) as T) : undefined;
  }

  /** Copies of every stored object of a resource (optionally in one namespace), in key order. */
  listObjects<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    namespace?: string,
  ): T[] {
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (!served) return [];
    return [...this.#history.bucket(served.storageKey).entries()]
      .filter(([, o]) => !namespace || (o.metadata as JsonObject).namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => outputOf(served, o) as T);
  }

  /** The descriptors served now: built-ins, extra resources and CRDs. */
  servedResources(): ResourceDescriptor[] {
    return this.#table.all().map((r) => r.descriptor);
  }

  /**
   * Fails the next `times` requests of the given verbs (optionally for one resource) with a
   * Status built from `options` (default `500 InternalError`). Returns a function that cancels
   * what is left of the injection.
   */
  failNext(verbs: FakeVerb | readonly FakeVerb[], times = 1, options: FailureOptions = {}): () => void {
    return this.#faults.fail(verbs, times, options);
  }

  /** Fails every request of the given verbs (e.g. `['list', 'watch']`) until the returned function or {@link FakeCluster.clearFailures} is called. */
  failAlways(verbs: FakeVerb | readonly FakeVerb[], options: FailureOptions = {}): () => void {
    return this.#faults.fail(verbs, Number.POSITIVE_INFINITY, options);
  }

  /** Removes every failure injection and delay. */
  clearFailures(): void {
    this.#faults.clear();
  }

  /** Delays every request of the given verbs (default: all) by `ms` before it is served. Returns a function that removes the delay. */
  delay(ms: number, options: { verbs?: readonly FakeVerb[]; resource?: ResourceMatcher } = {}): () => void {
    return this.#faults.delay(ms, options);
  }

  /** Observes every request (before failures and delays apply). Returns an unsubscribe function. */
  onRequest(observer: RequestObserver): () => void {
    return this.#faults.onRequest(observer);
  }

  /** How many requests of a verb (optionally for one resource) were made so far. */
  requestCount(verb: FakeVerb, resource?: ResourceMatcher): number {
    return this.#faults.requestCount(verb, resource);
  }

  /** How many watches are open (optionally for one resource). */
  watcherCount(resource?: ResourceMatcher): number {
    return this.#history.watcherCount(resource);
  }

  /**
   * Drops the event history up to `resourceVersion` (default: everything up to now), as etcd
   * compaction does: watches and continue tokens from before it get `410 Expired`.
   */
  compact(resourceVersion?: string): void {
    this.#history.compact(resourceVersion);
  }

  /**
   * Ends live watches (optionally of one resource) with an `ERROR` event carrying `410 Expired`,
   * the way the apiserver ends a watch that fell out of its window. With `compact` (default true)
   * the history is compacted first, so resuming from the watcher's last resourceVersion fails
   * with 410 too and the client must relist.
   */
  expireWatches(options: { resource?: ResourceMatcher; compact?: boolean } = {}): number {
    return this.#history.expireWatches(options);
  }

  /** Ends live watches (optionally of one resource) normally, as a server-side timeout or a dropped connection does. Returns how many. */
  disconnectWatches(resource?: ResourceMatcher): number {
    return this.#history.disconnectWatches(resource);
  }

  /** Sends a BOOKMARK at the current resourceVersion to every watch that allows bookmarks. Returns how many. */
  sendBookmarks(resource?: ResourceMatcher): number {
    return this.#history.sendBookmarks(resource);
  }

  /** Ends every watch; later watches end at once. Stored objects stay readable. */
  close(): void {
    this.#history.close();
  }

  /** {@link FakeCluster.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }

  /** Ends the watches opened by one client (see {@link createFakeApiClient}). */
  closeWatchesOf(owner: object): void {
    this.#history.closeWatchesOf(owner);
  }

  // ---------------------------------------------------------------- verbs

  /** GET one object (or its `status` subresource, which returns the whole object). */
  async get(ref: ObjectRef, opts: GetOptions = {}): Promise<KubeObject> {
    const { resource, name, namespace } = ref;
    requireNamespace('get', ref);
    await this.#faults.enter(
      { verb: 'get', resource, namespace, name, subresource: opts.subresource },
      opts.signal,
    );
    const served = servedResource(this.#table, resource);
    checkSubresource(served, opts.subresource);
    const obj = this.#history.bucket(served.storageKey).get(requestKey(served, namespace, name));
    if (!obj) throw S.toError(S.notFound(served.descriptor, name));
    return outputOf(served, obj);
  }

  /** LIST with selectors, resourceVersion semantics and pagination. */
  async list(resource: ResourceDescriptor, opts: ListOptions = {}): Promise<ObjectList> {
    await this.#faults.enter(
      { verb: 'list', resource, namespace: opts.namespace, options: opts },
      opts.signal,
    );
    const served = servedResource(this.#table, resource);
    return this.#history.list(served, opts, selectionOf(served, opts));
  }

  /** WATCH, as an async iterable; the watch starts when iteration starts. */
  watch(resource: ResourceDescriptor, opts: WatchOptions = {}, owner?: object): AsyncIterable<WatchEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        let channel: WatchChannel | undefined;
        let starting: Promise<WatchChannel> | undefined;
        let stopped = false;
        const iterator: AsyncIterableIterator<WatchEvent> = {
          next: async () => {
            if (stopped) return { value: undefined, done: true };
            if (!channel) {
              starting ??= this.#openWatch(resource, opts, owner);
              channel = await starting;
              if (stopped) await channel.return();
            }
            return channel.next();
          },
          return: async () => {
            stopped = true;
            if (channel) await channel.return();
            else
              void starting?.then(
                (c) => c.return(),
                () => {},
              );
            return { value: undefined, done: true };
          },
          [Symbol.asyncIterator]: () => iterator,
        };
        return iterator;
      },
    };
  }

  /** POST a new object. */
  async create(
    resource: ResourceDescriptor,
    input: KubeObject,
    opts: WriteOptions = {},
  ): Promise<KubeObject> {
    const obj = toJson(input) as JsonObject;
    const namespace = str(meta(obj).namespace);
    requireNamespace('create', {
      resource,
      name: str(meta(obj).name) ?? str(meta(obj).generateName),
      namespace,
    });
    await this.#faults.enter({ verb: 'create', resource, namespace, name: str(meta(obj).name) }, opts.signal);
    const served = servedResource(this.#table, resource);
    return this.#writes.create(served, obj, { namespace, ctx: this.#writes.context(opts) });
  }

  /** PUT an object or its `status` subresource. */
  async update(
    resource: ResourceDescriptor,
    input: KubeObject,
    opts: WriteOptions & { readonly subresource?: string | undefined } = {},
  ): Promise<KubeObject> {
    // The request's own copy, sharing with the stored object the parts it does not change.
    const obj = toJsonSharing(input, this.#storedFor(resource, input)) as JsonObject;
    const m = meta(obj);
    const name = str(m.name) ?? '';
    const namespace = str(m.namespace);
    requireNamespace('update', { resource, name, namespace });
    await this.#faults.enter(
      { verb: 'update', resource, namespace, name, subresource: opts.subresource },
      opts.signal,
    );
    const served = servedResource(this.#table, resource);
    checkSubresource(served, opts.subresource);
    const existing = this.#history.bucket(served.storageKey).get(requestKey(served, namespace, name));
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const rv = str(m.resourceVersion);
    if (rv === undefined && served.crd !== undefined) {
      throw S.toError(
        S.invalid(
          invalidSubject(served),
          [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
          name,
        ),
      );
    }
    return this.#writes.update(
      served,
      { existing, incoming: obj },
      { subresource: opts.subresource, ctx: this.#writes.context(opts) },
    );
  }

  /**
   * The stored object `input` names, if any (looked up without the request's checks and errors:
   * only what a write may share with its copy of `input`).
   */
  #storedFor(resource: ResourceDescriptor, input: KubeObject): JsonObject | undefined {
    const m: unknown = input.metadata;
    if (!isObject(m) || typeof m.name !== 'string') return undefined;
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (!served) return undefined;
    const namespace = served.descriptor.namespaced ? str(m.namespace) : undefined;
    if (served.descriptor.namespaced && namespace === undefined) return undefined;
    return this.#history.bucket(served.storageKey).get(objectKeyOf(namespace, m.name));
  }

  /**
   * PATCH an object or a subresource (`opts.type`; `apply` is server-side apply). Before
   * "sending" it refuses what the HTTPS client refuses with a TypeError (a missing or unknown
   * type, apply without a field manager, strategic merge on a custom resource, no namespace for a
   * namespaced resource); a raw PATCH through {@link FakeCluster.request} gets the apiserver's
   * answers instead.
   */
  async patch(ref: ObjectRef, data: unknown, opts: PatchOptions): Promise<KubeObject> {
    const { resource, name } = ref;
    const type = checkPatchType(resource, name, opts);
    if (type === 'apply' && !opts.fieldManager)
      throw new TypeError(`apply ${resource.plural}/${name}: server-side apply needs a fieldManager`);
    if (type === 'strategic' && resource.strategicMergePatch === false) {
      throw new TypeError(
        `patch ${resource.plural}/${name}: strategic merge patch is not supported for ${resource.kind} (custom resources accept merge, json and apply patches)`,
      );
    }
    requireNamespace('patch', ref);
    return await this.#patch(ref, data, opts);
  }

  /** PATCH as the apiserver sees it: no client-side checks. */
  async #patch(ref: ObjectRef, data: unknown, opts: PatchOptions): Promise<KubeObject> {
    const { resource, name, namespace } = ref;
    await this.#faults.enter(
      { verb: 'patch', resource, namespace, name, subresource: opts.subresource },
      opts.signal,
    );
    const served = servedResource(this.#table, resource);
    checkSubresource(served, opts.subresource);
    return this.#writes.patch({ served, name, namespace }, data, opts);
  }

  /** DELETE an object: marks it when finalizers remain, removes it otherwise. */
  async delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<KubeObject | Status> {
    const { resource, name, namespace } = ref;
    requireNamespace('delete', ref);
    await this.#faults.enter({ verb: 'delete', resource, namespace, name }, opts.signal);
    const served = servedResource(this.#table, resource);
    const key = requestKey(served, namespace, name);
    const existing = this.#history.bucket(served.storageKey).get(key);
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const m = existing.metadata as JsonObject;
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== m.uid) {
      throw S.toError(
        S.preconditionFailed(served.descriptor, name, { what: 'UID', want: pre.uid, have: String(m.uid) }),
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== m.resourceVersion) {
      throw S.toError(
        S.preconditionFailed(served.descriptor, name, {
          what: 'ResourceVersion',
          want: pre.resourceVersion,
          have: String(m.resourceVersion),
        }),
      );
    }
    return this.#writes.delete(served, { key, object: existing }, opts);
  }

  /** Discovery, `/version`, health endpoints, and resource paths routed to the typed verbs. */
  async request<T = unknown>(req: RawRequest): Promise<T> {
    await this.#faults.enter({ verb: 'request', method: req.method, path: req.path }, req.signal);
    const target: RouteTarget = {
      get: (ref, opts) => this.get(ref, opts),
      list: (resource, opts) => this.list(resource, opts),
      create: (resource, obj, opts) => this.create(resource, obj, opts),
      update: (resource, obj, opts) => this.update(resource, obj, opts),
      // A raw PATCH gets the apiserver's answers, not the typed client's TypeErrors.
      patch: (ref, data, opts) => this.#patch(ref, data, opts),
      delete: (ref, opts) => this.delete(ref, opts),
    };
    return (await routeRequest({ target, table: this.#table, version: this.#version }, req)) as T;
  }

  /** Opens a watch once iteration starts: counted, observed, delayed and failed like every request. */
  async #openWatch(
    resource: ResourceDescriptor,
    opts: WatchOptions,
    owner: object | undefined,
  ): Promise<WatchChannel> {
    await this.#faults.enter(
      { verb: 'watch', resource, namespace: opts.namespace, options: opts },
      undefined,
    );
    const served = servedResource(this.#table, resource);
    const { matches } = selectionOf(served, opts);
    return this.#history.openWatch(served, opts, { matches, owner, frozen: isFrozenWatch(opts) });
  }
}
