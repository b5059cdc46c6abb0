import { randomUUID } from 'node:crypto';
import { loadYaml } from '@kubernetes/client-node';
import {
  type DeleteOptions,
  type ListOptions,
  type ObjectList,
  type PatchOptions,
  type PatchType,
  type RawRequest,
  type WatchEvent,
  WatchIdleTimeoutError,
  type WatchOptions,
  type WriteOptions,
} from '../api.ts';
import type { ServerVersionInfo } from '../client.ts';
import type { Status, StatusCause } from '../errors.ts';
import { deepFreeze, type KubeObject } from '../object.ts';
import { apiVersionOf, parseApiVersion, type ResourceDescriptor } from '../resource.ts';
import type {
  FailureOptions,
  FakeClusterOptions,
  FakeRequest,
  FakeVerb,
  RequestObserver,
  ResourceMatcher,
} from './fake-cluster-options.ts';
import { clone, deepEqual, isObject, type JsonObject, toJson } from './internal/json.ts';
import { applyJsonPatch, JsonPatchError } from './internal/json-patch.ts';
import { type Shape, schemaShape, tableShape } from './internal/list-keys.ts';
import {
  type ApplyConflict,
  describePath,
  type FieldScope,
  type ManagedEntry,
  readManagedFields,
  requestedManagedFields,
  serverSideApply,
  trackUpdate,
  writeManagedFields,
} from './internal/managed-fields.ts';
import { applyMergePatch } from './internal/merge-patch.ts';
import { ResourceTable, type ServedResource, storageKeyOf } from './internal/resource-table.ts';
import {
  type ObjectPredicate,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from './internal/selectors.ts';
import { sleep } from './internal/sleep.ts';
import * as S from './internal/status.ts';
import { applyStrategicMergePatch } from './internal/strategic-merge.ts';
import { dataKeyCauses, metadataCauses, nameCauses, randomSuffix } from './internal/validation.ts';
import { WatchChannel } from './internal/watch-channel.ts';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface StoredEvent {
  readonly rv: number;
  readonly storageKey: string;
  readonly type: EventType;
  readonly key: string;
  /** The new state; for DELETED the last state, stamped with the delete's resourceVersion. */
  readonly object: JsonObject;
  /** The state before, absent for ADDED. */
  readonly prev: JsonObject | undefined;
}

interface Watcher {
  readonly storageKey: string;
  readonly served: ServedResource;
  readonly matches: ObjectPredicate;
  readonly bookmarks: boolean;
  readonly channel: WatchChannel;
  readonly owner: object | undefined;
  /** Events at or below this resourceVersion are not delivered (a watch from a future resourceVersion). */
  readonly since: number;
  touch(): void;
}

interface Failure {
  readonly verbs: ReadonlySet<FakeVerb>;
  readonly resource: ResourceMatcher | undefined;
  remaining: number;
  readonly status: Status;
}

interface Delay {
  readonly verbs: ReadonlySet<FakeVerb> | undefined;
  readonly resource: ResourceMatcher | undefined;
  readonly ms: number;
}

/** Who writes: the field manager and whether to persist. */
interface WriteContext {
  readonly manager: string;
  readonly dryRun: boolean;
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const NAMESPACE_STORAGE_KEY = '/namespaces';
const SECRET_STORAGE_KEY = '/secrets';
const CONFIGMAP_STORAGE_KEY = '/configmaps';

/** What a selection of a list or watch needs: the predicate, and the one key a `metadata.name` field selector pins. */
interface Selection {
  readonly matches: ObjectPredicate;
  readonly singleKey: string | undefined;
}

function meta(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function objectKeyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function matchesResource(m: ResourceMatcher | undefined, r: ResourceDescriptor | undefined): boolean {
  return m === undefined || (r !== undefined && r.group === m.group && r.plural === m.plural);
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch (err) {
    throw S.toError(
      S.badRequest(`invalid continue token: continue key is not valid: ${(err as Error).message}`),
    );
  }
  if (
    !isObject(parsed) ||
    parsed.v !== 'meta.k8s.io/v1' ||
    typeof parsed.rv !== 'number' ||
    typeof parsed.start !== 'string'
  ) {
    throw S.toError(
      S.badRequest(
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      ),
    );
  }
  return { rv: parsed.rv, start: parsed.start };
}

function parseBody(body: unknown, type: PatchType): unknown {
  if (typeof body !== 'string') return toJson(body);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    if (type !== 'apply') throw S.toError(S.badRequest('invalid JSON patch'));
    try {
      return toJson(loadYaml<unknown>(body));
    } catch (err) {
      throw S.toError(S.badRequest(`error decoding YAML: ${(err as Error).message}`));
    }
  }
}

/**
 * Refuses a by-name request on a namespaced resource without a namespace before "sending", as
 * the HTTPS client does (it would otherwise hit the cluster-wide path). Raw requests to that path
 * get the apiserver's 404 (405 for a POST) instead.
 */
function requireNamespace(
  resource: ResourceDescriptor,
  namespace: string | undefined,
  verb: string,
  name: string | undefined,
): void {
  if (resource.namespaced && !namespace) {
    throw new TypeError(
      `${verb} ${resource.plural}${name ? `/${name}` : ''}: ${resource.kind} is namespaced, so a namespace is required (set metadata.namespace or pass one)`,
    );
  }
}

/** Everything but metadata, status and type: what a generation bump compares. */
function specOf(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * An in-memory Kubernetes API server: the storage, watch and admission semantics of a real
 * apiserver for what controllers use, behind the `ApiClient` verbs (see
 * {@link createFakeApiClient}), plus controls for tests: seeding, failure injection, delays,
 * request observation, forced watch expiry, history compaction and on-demand bookmarks.
 *
 * Semantics follow kube-apiserver v1.37 (checked by the conformance suite in
 * `src/conformance/`): one global, monotonically increasing resourceVersion; uid,
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
  readonly #objects = new Map<string, Map<string, JsonObject>>();
  #events: StoredEvent[] = [];
  #rv = 0;
  #compacted = 0;
  readonly #watchers = new Set<Watcher>();
  readonly #failures: Failure[] = [];
  readonly #delays: Delay[] = [];
  readonly #observers = new Set<RequestObserver>();
  readonly #counts = new Map<string, number>();
  readonly #historyLimit: number;
  readonly #bookmarkIntervalMs: number;
  readonly #strictNamespaces: boolean;
  readonly #defaultManager: string;
  readonly #now: () => Date;
  readonly #version: ServerVersionInfo;
  #closed = false;

  /** Creates a cluster, installing `crds` and seeding `objects`. */
  constructor(options: FakeClusterOptions = {}) {
    this.#table = new ResourceTable(options.resources);
    this.#historyLimit = options.historyLimit ?? 10_000;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.#strictNamespaces = options.strictNamespaces ?? false;
    this.#defaultManager = options.defaultFieldManager ?? 'kubeloom';
    this.#now = options.now ?? (() => new Date());
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
    const rank = (o: KubeObject) =>
      o.kind === 'CustomResourceDefinition' ? 0 : o.kind === 'Namespace' ? 1 : 2;
    for (const input of [...objects].sort((a, b) => rank(a) - rank(b))) {
      const obj = toJson(input) as JsonObject;
      const served = this.#table.lookupKind(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
      if (!served)
        throw new Error(
          `fake cluster: cannot seed ${obj.apiVersion}/${obj.kind}: the kind is not served (install its CRD first)`,
        );
      const m = meta(obj);
      const name = str(m.name) ?? (str(m.generateName) ? `${m.generateName}${randomSuffix()}` : undefined);
      if (!name) throw new Error('fake cluster: cannot seed an object without metadata.name');
      m.name = name;
      if (served.descriptor.namespaced) m.namespace = str(m.namespace) ?? 'default';
      else delete m.namespace;
      const key = objectKeyOf(str(m.namespace), name);
      if (this.#bucket(served.storageKey).has(key))
        throw new Error(`fake cluster: cannot seed ${served.storageKey} ${key}: it exists already`);
      m.uid = str(m.uid) ?? randomUUID();
      m.creationTimestamp = str(m.creationTimestamp) ?? this.#timestamp();
      if (this.#table.tracksGeneration(served) && typeof m.generation !== 'number') m.generation = 1;
      delete m.resourceVersion;
      delete m.generateName;
      obj.apiVersion = apiVersionOf(served.descriptor);
      obj.kind = served.descriptor.kind;
      this.#normalize(served, obj);
      this.#defaultsOnCreate(served, obj, false);
      this.#commit(served, 'ADDED', key, obj, undefined);
    }
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** The resourceVersion at or below which history was compacted. */
  get compactedResourceVersion(): string {
    return String(this.#compacted);
  }

  /** A copy of one stored object, or undefined. */
  getObject<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    name: string,
    namespace?: string,
  ): T | undefined {
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (!served) return undefined;
    const obj = this.#bucket(served.storageKey).get(
      objectKeyOf(resource.namespaced ? namespace : undefined, name),
    );
    return obj ? (this.#out(served, obj) as T) : undefined;
  }

  /** Copies of every stored object of a resource (optionally in one namespace), in key order. */
  listObjects<T extends KubeObject = KubeObject>(resource: ResourceDescriptor, namespace?: string): T[] {
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (!served) return [];
    return [...this.#bucket(served.storageKey).entries()]
      .filter(([, o]) => !namespace || (o.metadata as JsonObject).namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => this.#out(served, o) as T);
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
    return this.#addFailure(verbs, times, options);
  }

  /** Fails every request of the given verbs (e.g. `['list', 'watch']`) until the returned function or {@link FakeCluster.clearFailures} is called. */
  failAlways(verbs: FakeVerb | readonly FakeVerb[], options: FailureOptions = {}): () => void {
    return this.#addFailure(verbs, Number.POSITIVE_INFINITY, options);
  }

  /** Removes every failure injection and delay. */
  clearFailures(): void {
    this.#failures.length = 0;
    this.#delays.length = 0;
  }

  /** Delays every request of the given verbs (default: all) by `ms` before it is served. Returns a function that removes the delay. */
  delay(ms: number, options: { verbs?: readonly FakeVerb[]; resource?: ResourceMatcher } = {}): () => void {
    const d: Delay = {
      ms,
      verbs: options.verbs ? new Set(options.verbs) : undefined,
      resource: options.resource,
    };
    this.#delays.push(d);
    return () => {
      const i = this.#delays.indexOf(d);
      if (i >= 0) this.#delays.splice(i, 1);
    };
  }

  /** Observes every request (before failures and delays apply). Returns an unsubscribe function. */
  onRequest(observer: RequestObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /** How many requests of a verb (optionally for one resource) were made so far. */
  requestCount(verb: FakeVerb, resource?: ResourceMatcher): number {
    return this.#counts.get(resource ? `${verb} ${resource.group}/${resource.plural}` : verb) ?? 0;
  }

  /** How many watches are open (optionally for one resource). */
  watcherCount(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of this.#watchers) if (!resource || w.storageKey === storageKeyOf(resource)) n++;
    return n;
  }

  /**
   * Drops the event history up to `resourceVersion` (default: everything up to now), as etcd
   * compaction does: watches and continue tokens from before it get `410 Expired`.
   */
  compact(resourceVersion?: string): void {
    const target = resourceVersion === undefined ? this.#rv : Number(resourceVersion);
    if (!Number.isFinite(target) || target <= this.#compacted) return;
    this.#compacted = Math.min(target, this.#rv);
    this.#events = this.#events.filter((e) => e.rv > this.#compacted);
  }

  /**
   * Ends live watches (optionally of one resource) with an `ERROR` event carrying `410 Expired`,
   * the way the apiserver ends a watch that fell out of its window. With `compact` (default true)
   * the history is compacted first, so resuming from the watcher's last resourceVersion fails
   * with 410 too and the client must relist.
   */
  expireWatches(options: { resource?: ResourceMatcher; compact?: boolean } = {}): number {
    if (options.compact ?? true) this.compact();
    let n = 0;
    for (const w of [...this.#watchers]) {
      if (options.resource && w.storageKey !== storageKeyOf(options.resource)) continue;
      w.channel.push({
        type: 'ERROR',
        status: S.expired(`too old resource version: ${this.#compacted} (${this.#compacted + 1})`),
      });
      w.channel.end();
      n++;
    }
    return n;
  }

  /** Ends live watches (optionally of one resource) normally, as a server-side timeout or a dropped connection does. Returns how many. */
  disconnectWatches(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of [...this.#watchers]) {
      if (resource && w.storageKey !== storageKeyOf(resource)) continue;
      w.channel.end();
      n++;
    }
    return n;
  }

  /** Sends a BOOKMARK at the current resourceVersion to every watch that allows bookmarks. Returns how many. */
  sendBookmarks(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of this.#watchers) {
      if (!w.bookmarks || (resource && w.storageKey !== storageKeyOf(resource))) continue;
      w.channel.push(this.#bookmark(w.served));
      w.touch();
      n++;
    }
    return n;
  }

  /** Ends every watch; later watches end at once. Stored objects stay readable. */
  close(): void {
    this.#closed = true;
    for (const w of [...this.#watchers]) w.channel.end();
  }

  /** Ends the watches opened by one client (see {@link createFakeApiClient}). */
  closeWatchesOf(owner: object): void {
    for (const w of [...this.#watchers]) if (w.owner === owner) w.channel.end();
  }

  // ---------------------------------------------------------------- verbs

  /** GET one object (or its `status` subresource, which returns the whole object). */
  async get(
    resource: ResourceDescriptor,
    name: string,
    namespace?: string,
    opts: { readonly signal?: AbortSignal | undefined; readonly subresource?: string | undefined } = {},
  ): Promise<KubeObject> {
    requireNamespace(resource, namespace, 'get', name);
    await this.#enter({ verb: 'get', resource, namespace, name, subresource: opts.subresource }, opts.signal);
    const served = this.#served(resource);
    this.#checkSubresource(served, opts.subresource);
    const obj = this.#bucket(served.storageKey).get(this.#key(served, namespace, name));
    if (!obj) throw S.toError(S.notFound(served.descriptor, name));
    return this.#out(served, obj);
  }

  /** LIST with selectors, resourceVersion semantics and pagination. */
  async list(resource: ResourceDescriptor, opts: ListOptions = {}): Promise<ObjectList> {
    await this.#enter({ verb: 'list', resource, namespace: opts.namespace, options: opts }, opts.signal);
    const served = this.#served(resource);
    const { matches, singleKey } = this.#selection(served, opts);
    let atRv = this.#rv;
    let after: string | undefined;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      if (token.rv !== -1 && token.rv < this.#compacted) {
        throw S.toError(
          S.expired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
            { continue: encodeContinue(-1, token.start) },
          ),
        );
      }
      atRv = token.rv === -1 ? this.#rv : token.rv;
      after = token.start;
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = Number(opts.resourceVersion);
      if (!/^\d+$/.test(opts.resourceVersion)) {
        throw S.toError(
          S.badRequest(`Invalid value: "${opts.resourceVersion}": resourceVersion must be an integer`),
        );
      }
      if (rv > this.#rv) {
        throw S.toError(
          S.failure(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${this.#rv}`, {
            causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
            retryAfterSeconds: 1,
          }),
        );
      }
      if (opts.resourceVersionMatch === 'Exact') {
        if (rv < this.#compacted)
          throw S.toError(S.expired('The resourceVersion for the provided list is too old.'));
        atRv = rv;
      }
    }
    const snapshot = this.#snapshot(served.storageKey, atRv);
    // The key range the apiserver reads: the namespace's (or all), or the one key a name pins.
    const ns = served.descriptor.namespaced ? opts.namespace : undefined;
    const inRange = (k: string, o: JsonObject) =>
      (after === undefined || k > after) &&
      (singleKey !== undefined ? k === singleKey : !ns || (o.metadata as JsonObject).namespace === ns);
    const range = [...snapshot.entries()]
      .filter(([k, o]) => inRange(k, o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // resourceVersion=0 is served from the watch cache, which does not paginate.
    const cached = !opts.continue && opts.resourceVersion === '0';
    const limit = opts.limit && opts.limit > 0 && !cached ? opts.limit : undefined;
    const page: Array<[string, JsonObject]> = [];
    let scanned = 0;
    for (const entry of range) {
      if (limit !== undefined && page.length >= limit) break;
      scanned++;
      if (matches(entry[1])) page.push(entry);
    }
    // Like the apiserver, a full page continues whenever keys remain, matching or not.
    const more = limit !== undefined && page.length >= limit && scanned < range.length;
    const selectors = Boolean(opts.labelSelector || opts.fieldSelector);
    const listMeta: JsonObject = { resourceVersion: String(atRv) };
    if (more) {
      listMeta.continue = encodeContinue(atRv, page[page.length - 1]![0]);
      if (!selectors) listMeta.remainingItemCount = range.length - scanned;
    }
    const custom = served.crd !== undefined;
    return {
      kind: served.descriptor.listKind ?? `${served.descriptor.kind}List`,
      apiVersion: apiVersionOf(served.descriptor),
      metadata: listMeta,
      items: page.map(([, o]) => {
        const item = this.#out(served, o) as JsonObject;
        if (!custom) {
          delete item.apiVersion;
          delete item.kind;
        }
        return item as KubeObject;
      }),
    };
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
              if (stopped) channel.return();
            }
            return channel.next();
          },
          return: async () => {
            stopped = true;
            if (channel) channel.return();
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
    requireNamespace(resource, namespace, 'create', str(meta(obj).name) ?? str(meta(obj).generateName));
    await this.#enter({ verb: 'create', resource, namespace, name: str(meta(obj).name) }, opts.signal);
    const served = this.#served(resource);
    return this.#create(served, obj, namespace, this.#ctx(opts), undefined);
  }

  /** PUT an object or its `status` subresource. */
  async update(
    resource: ResourceDescriptor,
    input: KubeObject,
    opts: WriteOptions & { readonly subresource?: string | undefined } = {},
  ): Promise<KubeObject> {
    const obj = toJson(input) as JsonObject;
    const m = meta(obj);
    const name = str(m.name) ?? '';
    const namespace = str(m.namespace);
    requireNamespace(resource, namespace, 'update', name);
    await this.#enter(
      { verb: 'update', resource, namespace, name, subresource: opts.subresource },
      opts.signal,
    );
    const served = this.#served(resource);
    this.#checkSubresource(served, opts.subresource);
    const existing = this.#bucket(served.storageKey).get(this.#key(served, namespace, name));
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const rv = str(m.resourceVersion);
    if (rv === undefined && served.crd !== undefined) {
      throw S.toError(
        S.invalid(
          this.#who(served),
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
    return this.#update(served, existing, obj, opts.subresource, this.#ctx(opts), undefined);
  }

  /**
   * PATCH an object or its `status` subresource; `apply` is server-side apply. `raw` marks a
   * patch routed from {@link FakeCluster.request}: without a field manager, a typed apply throws a
   * TypeError before "sending" (as the HTTPS client does), a raw one gets the apiserver's 422.
   */
  async patch(
    resource: ResourceDescriptor,
    name: string,
    namespace: string | undefined,
    body: unknown,
    type: PatchType,
    opts: PatchOptions & { readonly subresource?: string | undefined } = {},
    raw = false,
  ): Promise<KubeObject> {
    if (!raw) {
      // What the HTTPS client refuses before sending.
      if (type === 'apply' && !opts.fieldManager)
        throw new TypeError(`apply ${resource.plural}/${name}: server-side apply needs a fieldManager`);
      if (type === 'strategic' && resource.strategicMergePatch === false) {
        throw new TypeError(
          `patch ${resource.plural}/${name}: strategic merge patch is not supported for ${resource.kind} (custom resources accept merge, json and apply patches)`,
        );
      }
      requireNamespace(resource, namespace, 'patch', name);
    }
    await this.#enter(
      { verb: 'patch', resource, namespace, name, subresource: opts.subresource },
      opts.signal,
    );
    const served = this.#served(resource);
    this.#checkSubresource(served, opts.subresource);
    if (type === 'strategic' && !served.descriptor.strategicMergePatch) throw S.toError(S.unsupportedPatch());
    if (type === 'apply' && !opts.fieldManager) {
      throw S.toError(
        S.failure(
          422,
          'Invalid',
          'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          {
            group: 'meta.k8s.io',
            kind: 'PatchOptions',
            causes: [
              {
                reason: 'FieldValueRequired',
                message: 'Required value: is required for apply patch',
                field: 'fieldManager',
              },
            ],
          },
        ),
      );
    }
    const patch = parseBody(body, type);
    const key = this.#key(served, namespace, name);
    const existing = this.#bucket(served.storageKey).get(key);
    const ctx = this.#ctx(opts);
    if (type === 'apply') return this.#apply(served, existing, patch, name, namespace, opts, ctx);
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const base = clone(existing);
    let patched: unknown;
    if (type === 'merge') patched = applyMergePatch(base, patch);
    else if (type === 'strategic') patched = applyStrategicMergePatch(base, patch);
    else {
      try {
        patched = applyJsonPatch(base, patch);
      } catch (err) {
        if (err instanceof JsonPatchError && err.malformed)
          throw S.toError(S.badRequest(`invalid JSON patch: ${err.message}`));
        throw S.toError(S.patchRejected());
      }
    }
    if (!isObject(patched)) throw S.toError(S.patchRejected());
    return this.#update(served, existing, patched, opts.subresource, ctx, undefined);
  }

  /** DELETE an object: marks it when finalizers remain, removes it otherwise. */
  async delete(
    resource: ResourceDescriptor,
    name: string,
    namespace?: string,
    opts: DeleteOptions = {},
  ): Promise<KubeObject | Status> {
    requireNamespace(resource, namespace, 'delete', name);
    await this.#enter({ verb: 'delete', resource, namespace, name }, opts.signal);
    const served = this.#served(resource);
    const key = this.#key(served, namespace, name);
    const existing = this.#bucket(served.storageKey).get(key);
    if (!existing) throw S.toError(S.notFound(served.descriptor, name));
    const m = existing.metadata as JsonObject;
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== m.uid) {
      throw S.toError(S.preconditionFailed(served.descriptor, name, 'UID', pre.uid, String(m.uid)));
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== m.resourceVersion) {
      throw S.toError(
        S.preconditionFailed(
          served.descriptor,
          name,
          'ResourceVersion',
          pre.resourceVersion,
          String(m.resourceVersion),
        ),
      );
    }
    return this.#delete(served, key, existing, opts, opts.dryRun === 'All');
  }

  /** Discovery, `/version`, health endpoints, and resource paths routed to the typed verbs. */
  async request<T = unknown>(req: RawRequest): Promise<T> {
    await this.#enter({ verb: 'request', method: req.method, path: req.path }, req.signal);
    const path = req.path.replace(/\/+$/, '') || '/';
    if (req.method === 'GET') {
      if (path === '/version') return clone(this.#version) as T;
      if (path === '/healthz' || path === '/readyz' || path === '/livez') return 'ok' as T;
      if (path === '/api') return this.#table.apiVersions() as T;
      if (path === '/apis') return this.#table.apiGroupList() as T;
      const core = /^\/api\/([^/]+)$/.exec(path);
      if (core) return this.#discovered(this.#table.apiResourceList('', core[1]!)) as T;
      const group = /^\/apis\/([^/]+)$/.exec(path);
      if (group) return this.#discovered(this.#table.apiGroup(group[1]!)) as T;
      const gv = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
      if (gv) return this.#discovered(this.#table.apiResourceList(gv[1]!, gv[2]!)) as T;
    }
    return (await this.#route(req, path)) as T;
  }

  // ---------------------------------------------------------------- internals: plumbing

  #discovered(doc: JsonObject | undefined): JsonObject {
    if (!doc) throw S.muxNotFound();
    return doc;
  }

  async #route(req: RawRequest, path: string): Promise<unknown> {
    const m = /^\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(path);
    if (!m) throw S.toError(S.pathNotFound());
    const group = m[1] !== undefined ? '' : m[2]!;
    const version = m[1] ?? m[3]!;
    let rest = m[4]!.split('/').map(decodeURIComponent);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const inner = this.#table.lookup(group, version, rest[2]!);
      if (inner?.descriptor.namespaced) {
        namespace = rest[1];
        rest = rest.slice(2);
      }
    }
    const [plural, name, subresource] = rest;
    if (!plural || rest.length > 3) throw S.muxNotFound();
    const d = this.#served({ group, version, plural, kind: '', namespaced: false }).descriptor;
    if (d.namespaced && !namespace) {
      // The cluster-wide path of a namespaced resource lists and watches; it holds no single objects.
      if (name) throw S.toError(S.pathNotFound());
      if (req.method === 'POST') throw S.toError(S.methodNotAllowed());
    }
    const q = req.query ?? {};
    const s = (k: string) => (q[k] === undefined ? undefined : String(q[k]));
    const body = typeof req.body === 'string' ? (JSON.parse(req.body) as unknown) : req.body;
    const withNs = (o: unknown) => {
      const obj = toJson(o) as JsonObject;
      if (namespace) meta(obj).namespace = namespace;
      return obj as KubeObject;
    };
    const write = {
      fieldManager: s('fieldManager'),
      dryRun: s('dryRun') === 'All' ? ('All' as const) : undefined,
      signal: req.signal,
    };
    switch (req.method) {
      case 'GET':
        if (name) return this.get(d, name, namespace, { signal: req.signal, subresource });
        return this.list(d, {
          namespace,
          labelSelector: s('labelSelector'),
          fieldSelector: s('fieldSelector'),
          limit: q.limit === undefined ? undefined : Number(q.limit),
          continue: s('continue'),
          resourceVersion: s('resourceVersion'),
          signal: req.signal,
        });
      case 'POST':
        if (name) throw S.toError(S.methodNotAllowed());
        return this.create(d, withNs(body), write);
      case 'PUT':
        if (!name) throw S.toError(S.methodNotAllowed());
        return this.update(d, withNs(body), { ...write, subresource });
      case 'PATCH': {
        if (!name) throw S.toError(S.methodNotAllowed());
        const ct = req.contentType ?? 'application/merge-patch+json';
        const type: PatchType = ct.includes('json-patch')
          ? 'json'
          : ct.includes('strategic')
            ? 'strategic'
            : ct.includes('apply-patch')
              ? 'apply'
              : 'merge';
        return this.patch(
          d,
          name,
          namespace,
          req.body,
          type,
          {
            ...write,
            force: s('force') === 'true',
            subresource,
          },
          true,
        );
      }
      case 'DELETE':
        if (!name) throw S.toError(S.methodNotAllowed());
        return this.delete(d, name, namespace, (body ?? {}) as DeleteOptions);
    }
    throw S.toError(S.methodNotAllowed());
  }

  #addFailure(verbs: FakeVerb | readonly FakeVerb[], times: number, o: FailureOptions): () => void {
    const code = o.status?.code ?? o.code ?? 500;
    const reason = o.reason ?? REASON_BY_CODE[code] ?? 'InternalError';
    const status =
      o.status ??
      S.failure(
        code,
        reason,
        o.message ?? `injected failure (${reason})`,
        o.retryAfterSeconds !== undefined ? { retryAfterSeconds: o.retryAfterSeconds } : undefined,
      );
    const f: Failure = {
      verbs: new Set(typeof verbs === 'string' ? [verbs] : verbs),
      resource: o.resource,
      remaining: times,
      status,
    };
    this.#failures.push(f);
    return () => {
      const i = this.#failures.indexOf(f);
      if (i >= 0) this.#failures.splice(i, 1);
    };
  }

  async #enter(req: FakeRequest, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    this.#counts.set(req.verb, (this.#counts.get(req.verb) ?? 0) + 1);
    if (req.resource) {
      const k = `${req.verb} ${req.resource.group}/${req.resource.plural}`;
      this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
    }
    for (const o of [...this.#observers]) o(req);
    for (const d of [...this.#delays]) {
      if ((!d.verbs || d.verbs.has(req.verb)) && matchesResource(d.resource, req.resource) && d.ms > 0) {
        await sleep(d.ms, signal);
      }
    }
    for (const f of this.#failures) {
      if (f.remaining <= 0 || !f.verbs.has(req.verb) || !matchesResource(f.resource, req.resource)) continue;
      f.remaining--;
      if (f.remaining <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
      throw S.toError(clone(f.status));
    }
  }

  #served(resource: ResourceDescriptor): ServedResource {
    const served = this.#table.lookup(resource.group, resource.version, resource.plural);
    if (served) return served;
    const versionServed = this.#table
      .all()
      .some((r) => r.descriptor.group === resource.group && r.descriptor.version === resource.version);
    throw versionServed ? S.toError(S.pathNotFound()) : S.muxNotFound();
  }

  #checkSubresource(served: ServedResource, subresource: string | undefined): void {
    if (subresource === undefined || subresource === '') return;
    if (subresource === 'status' && served.descriptor.subresources?.status) return;
    throw S.toError(S.pathNotFound());
  }

  /**
   * The storage key of an object. Without a namespace, a namespaced resource's request goes to
   * the cluster-wide path, where the apiserver serves no single objects: 404.
   */
  #key(served: ServedResource, namespace: string | undefined, name: string): string {
    if (served.descriptor.namespaced && !namespace) throw S.toError(S.pathNotFound());
    return objectKeyOf(served.descriptor.namespaced ? namespace : undefined, name);
  }

  #bucket(storageKey: string): Map<string, JsonObject> {
    let b = this.#objects.get(storageKey);
    if (!b) {
      b = new Map();
      this.#objects.set(storageKey, b);
    }
    return b;
  }

  #timestamp(): string {
    return this.#now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  #ctx(opts: WriteOptions): WriteContext {
    return { manager: opts.fieldManager ?? this.#defaultManager, dryRun: opts.dryRun === 'All' };
  }

  /** How the apiserver names an object in Invalid messages: the kind for built-ins, `plural.group` for custom resources. */
  #who(served: ServedResource): { name: string; group: string; kind: string } {
    const d = served.descriptor;
    if (served.crd !== undefined) return { name: `${d.plural}.${d.group}`, group: d.group, kind: d.plural };
    return { name: d.group ? `${d.kind}.${d.group}` : d.kind, group: d.group, kind: d.kind };
  }

  /** A copy for the caller, with the served version's apiVersion and kind. */
  #out(served: ServedResource, obj: JsonObject): KubeObject {
    const { apiVersion: _a, kind: _k, ...rest } = clone(obj);
    return {
      kind: served.descriptor.kind,
      apiVersion: apiVersionOf(served.descriptor),
      ...rest,
    } as KubeObject;
  }

  #bookmark(served: ServedResource, initialEventsEnd = false): WatchEvent {
    return {
      type: 'BOOKMARK',
      object: {
        kind: served.descriptor.kind,
        apiVersion: apiVersionOf(served.descriptor),
        metadata: {
          resourceVersion: String(this.#rv),
          ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
        },
      },
    };
  }

  #selection(
    served: ServedResource,
    opts: {
      namespace?: string | undefined;
      labelSelector?: string | undefined;
      fieldSelector?: string | undefined;
    },
  ): Selection {
    let labels: ObjectPredicate;
    let fields: ReturnType<typeof parseFieldSelector>;
    try {
      labels = parseLabelSelector(opts.labelSelector);
      fields = parseFieldSelector(opts.fieldSelector, served.descriptor.group, served.descriptor.plural);
    } catch (err) {
      if (err instanceof SelectorError) throw S.toError(S.badRequest(err.message));
      throw err;
    }
    const namespaced = served.descriptor.namespaced;
    const ns = namespaced ? opts.namespace : undefined;
    // A pinned name reads one key: with the namespace for namespaced resources, as the apiserver's KeyFunc needs.
    const singleKey =
      fields.singleName !== undefined && (!namespaced || ns) ? objectKeyOf(ns, fields.singleName) : undefined;
    return {
      matches: (o) => (!ns || (o.metadata as JsonObject).namespace === ns) && labels(o) && fields.matches(o),
      singleKey,
    };
  }

  /** How server-side apply merges the resource's lists and maps: the field-name table, or the CRD's schema. */
  #shape(served: ServedResource): Shape {
    return served.crd !== undefined ? schemaShape(served.schema) : tableShape();
  }

  /** The objects of a resource as they were at `rv` (undoing later events). */
  #snapshot(storageKey: string, rv: number): Map<string, JsonObject> {
    const state = new Map(this.#bucket(storageKey));
    for (let i = this.#events.length - 1; i >= 0; i--) {
      const e = this.#events[i]!;
      if (e.rv <= rv) break;
      if (e.storageKey !== storageKey) continue;
      if (e.prev) state.set(e.key, e.prev);
      else state.delete(e.key);
    }
    return state;
  }

  // ---------------------------------------------------------------- internals: storage and watch

  /** Stores a new state (or removes it for DELETED), records the event and delivers it. */
  #commit(
    served: ServedResource,
    type: EventType,
    key: string,
    next: JsonObject,
    prev: JsonObject | undefined,
  ): JsonObject {
    this.#rv++;
    const stamped = clone(next);
    meta(stamped).resourceVersion = String(this.#rv);
    deepFreeze(stamped);
    const bucket = this.#bucket(served.storageKey);
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, stamped);
    const event: StoredEvent = {
      rv: this.#rv,
      storageKey: served.storageKey,
      type,
      key,
      object: stamped,
      prev,
    };
    this.#events.push(event);
    if (this.#events.length > this.#historyLimit) {
      const dropped = this.#events.splice(0, this.#events.length - this.#historyLimit);
      this.#compacted = dropped[dropped.length - 1]!.rv;
    }
    for (const w of [...this.#watchers]) if (w.storageKey === served.storageKey) this.#deliver(w, event);
    this.#afterCommit(served, type, stamped);
    return stamped;
  }

  #deliver(w: Watcher, e: StoredEvent): void {
    if (e.rv <= w.since) return;
    const now = e.type !== 'DELETED' && w.matches(e.object);
    const before = e.prev !== undefined && w.matches(e.prev);
    let type: EventType | undefined;
    if (e.type === 'DELETED') type = w.matches(e.object) ? 'DELETED' : undefined;
    else if (e.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (now) type = before ? 'MODIFIED' : 'ADDED';
    else if (before) type = 'DELETED';
    if (!type) return;
    let object = e.object;
    if (e.type === 'MODIFIED' && type === 'DELETED') {
      // Leaving the selection: the apiserver sends the last state that matched, at the new resourceVersion.
      object = clone(e.prev!);
      meta(object).resourceVersion = String(e.rv);
    }
    w.channel.push({ type, object: this.#out(w.served, object) });
    w.touch();
  }

  async #openWatch(
    resource: ResourceDescriptor,
    opts: WatchOptions,
    owner: object | undefined,
  ): Promise<WatchChannel> {
    await this.#enter({ verb: 'watch', resource, namespace: opts.namespace, options: opts }, undefined);
    const served = this.#served(resource);
    const { matches } = this.#selection(served, opts);
    const rvText = opts.resourceVersion;
    if (rvText && !/^\d+$/.test(rvText))
      throw S.toError(S.badRequest(`Invalid value: "${rvText}": resourceVersion must be an integer`));
    const from = rvText ? Number(rvText) : 0;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    let idle: ReturnType<typeof setTimeout> | undefined;
    let interval: ReturnType<typeof setInterval> | undefined;
    const abort = () => channel.end();
    const watcher: Watcher = {
      storageKey: served.storageKey,
      served,
      matches,
      bookmarks: opts.allowWatchBookmarks === true,
      owner,
      since: from > this.#rv ? from : 0,
      channel: new WatchChannel(() => {
        this.#watchers.delete(watcher);
        for (const t of timers) clearTimeout(t);
        if (idle) clearTimeout(idle);
        if (interval) clearInterval(interval);
        opts.signal?.removeEventListener('abort', abort);
      }),
      touch: () => {
        if (opts.idleTimeoutMs === undefined || channel.ended) return;
        if (idle) clearTimeout(idle);
        idle = setTimeout(
          () => channel.fail(new WatchIdleTimeoutError(opts.idleTimeoutMs!)),
          opts.idleTimeoutMs,
        );
      },
    };
    const channel = watcher.channel;
    if (this.#closed || opts.signal?.aborted) {
      channel.end();
      return channel;
    }
    opts.signal?.addEventListener('abort', abort, { once: true });
    if (!rvText || rvText === '0') {
      const current = [...this.#bucket(served.storageKey).entries()].sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      );
      for (const [, o] of current)
        if (matches(o)) channel.push({ type: 'ADDED', object: this.#out(served, o) });
      if (watcher.bookmarks) channel.push(this.#bookmark(served, true));
    } else if (from < this.#compacted) {
      channel.push({
        type: 'ERROR',
        status: S.expired(`too old resource version: ${from} (${this.#compacted + 1})`),
      });
      channel.end();
      return channel;
    } else {
      for (const e of this.#events)
        if (e.rv > from && e.storageKey === served.storageKey) this.#deliver(watcher, e);
    }
    this.#watchers.add(watcher);
    watcher.touch();
    if (opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0) {
      timers.push(setTimeout(() => channel.end(), opts.timeoutSeconds * 1000));
    }
    if (watcher.bookmarks && this.#bookmarkIntervalMs > 0) {
      interval = setInterval(() => {
        channel.push(this.#bookmark(served));
        watcher.touch();
      }, this.#bookmarkIntervalMs);
    }
    return channel;
  }

  /** Follow-ups of a write: CRDs start or stop being served; namespaces cascade. */
  #afterCommit(served: ServedResource, type: EventType, obj: JsonObject): void {
    if (served.storageKey === CRD_STORAGE_KEY) {
      const name = String((obj.metadata as JsonObject).name);
      if (type === 'DELETED') {
        for (const r of this.#table.all().filter((r) => r.crd === name)) this.#dropAll(r);
        this.#table.unserveCrd(name);
      } else {
        this.#table.serveCrd(obj);
      }
    } else if (served.storageKey === NAMESPACE_STORAGE_KEY && type === 'DELETED') {
      const ns = String((obj.metadata as JsonObject).name);
      for (const r of this.#table.all()) {
        if (!r.descriptor.namespaced) continue;
        for (const [key, o] of [...this.#bucket(r.storageKey)]) {
          if ((o.metadata as JsonObject).namespace === ns && this.#bucket(r.storageKey).get(key) === o) {
            this.#delete(r, key, o, {}, false);
          }
        }
      }
    }
  }

  /** Removes every object of a resource whose CRD is gone, and ends its watches. */
  #dropAll(served: ServedResource): void {
    const bucket = this.#bucket(served.storageKey);
    for (const [key, o] of [...bucket]) this.#commit(served, 'DELETED', key, o, o);
    for (const w of [...this.#watchers]) if (w.storageKey === served.storageKey) w.channel.end();
  }

  // ---------------------------------------------------------------- internals: write pipelines

  #defaultsOnCreate(served: ServedResource, obj: JsonObject, resetStatus: boolean): void {
    const d = served.descriptor;
    if (resetStatus && d.subresources?.status) {
      if (served.crd !== undefined) delete obj.status;
      else obj.status = served.storageKey === '/pods' ? { phase: 'Pending' } : {};
    }
    if (served.storageKey === NAMESPACE_STORAGE_KEY) {
      const m = meta(obj);
      m.labels = { ...(isObject(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': String(m.name) };
      obj.spec = { finalizers: ['kubernetes'], ...(isObject(obj.spec) ? obj.spec : {}) };
      obj.status = { phase: 'Active', ...(isObject(obj.status) ? obj.status : {}) };
    }
    if (served.storageKey === CRD_STORAGE_KEY) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const names = isObject(spec.names) ? spec.names : {};
      const kind = String(names.kind ?? '');
      const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
      const time = this.#timestamp();
      obj.status = {
        conditions: [
          {
            type: 'NamesAccepted',
            status: 'True',
            lastTransitionTime: time,
            reason: 'NoConflicts',
            message: 'no conflicts found',
          },
          {
            type: 'Established',
            status: 'True',
            lastTransitionTime: time,
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
          },
        ],
        acceptedNames: {
          ...names,
          singular: str(names.singular) ?? kind.toLowerCase(),
          listKind: str(names.listKind) ?? `${kind}List`,
        },
        storedVersions: versions.filter((v) => v.storage === true).map((v) => String(v.name)),
      };
    }
  }

  /** Conversions the apiserver makes before validation: a Secret's `stringData` joins `data` (base64), its type defaults to `Opaque`. */
  #normalize(served: ServedResource, obj: JsonObject): void {
    if (served.storageKey !== SECRET_STORAGE_KEY) return;
    if (isObject(obj.stringData)) {
      const data: JsonObject = isObject(obj.data) ? { ...obj.data } : {};
      for (const [k, v] of Object.entries(obj.stringData))
        data[k] = Buffer.from(String(v)).toString('base64');
      obj.data = data;
    }
    delete obj.stringData;
    if (str(obj.type) === undefined) obj.type = 'Opaque';
  }

  /** What the apiserver validates besides names: labels, annotation keys, ConfigMap and Secret data keys. */
  #objectCauses(served: ServedResource, obj: JsonObject): StatusCause[] {
    const causes = metadataCauses(meta(obj));
    if (served.storageKey === CONFIGMAP_STORAGE_KEY) causes.push(...dataKeyCauses(obj, 'ConfigMap'));
    if (served.storageKey === SECRET_STORAGE_KEY) causes.push(...dataKeyCauses(obj, 'Secret'));
    return causes;
  }

  #validateCreate(served: ServedResource, obj: JsonObject, name: string): void {
    const causes: StatusCause[] = [
      ...nameCauses(name, served.storageKey),
      ...this.#objectCauses(served, obj),
    ];
    if (served.storageKey === CRD_STORAGE_KEY) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const names = isObject(spec.names) ? spec.names : {};
      const expected = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`;
      if (name !== expected) {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
          field: 'metadata.name',
        });
      }
    }
    if (causes.length > 0) throw S.toError(S.invalid(this.#who(served), causes, name));
  }

  #create(
    served: ServedResource,
    obj: JsonObject,
    namespace: string | undefined,
    ctx: WriteContext,
    managed: ManagedEntry[] | undefined,
  ): KubeObject {
    const d = served.descriptor;
    const m = meta(obj);
    if (str(m.resourceVersion) !== undefined) {
      throw S.toError(
        S.failure(
          500,
          'InternalError',
          'Internal error occurred: resourceVersion should not be set on objects to be created',
        ),
      );
    }
    let name = str(m.name);
    const bucket = this.#bucket(served.storageKey);
    if (!name && str(m.generateName)) {
      do name = `${m.generateName}${randomSuffix()}`;
      while (bucket.has(objectKeyOf(d.namespaced ? namespace : undefined, name)));
    }
    if (!name) {
      throw S.toError(
        S.invalid(
          this.#who(served),
          [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: name or generateName is required',
              field: 'metadata.name',
            },
          ],
          '',
        ),
      );
    }
    this.#normalize(served, obj);
    this.#validateCreate(served, obj, name);
    const key = this.#key(served, namespace, name);
    if (d.namespaced && this.#strictNamespaces) {
      const ns = this.#bucket(NAMESPACE_STORAGE_KEY).get(namespace!);
      if (!ns)
        throw S.toError(S.notFound({ group: '', plural: 'namespaces', kind: 'Namespace' }, namespace!));
      if ((ns.metadata as JsonObject).deletionTimestamp) {
        throw S.toError(
          S.failure(
            403,
            'Forbidden',
            `${S.qualifiedResource(d)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
            {
              name,
              ...(d.group ? { group: d.group } : {}),
              kind: d.plural,
              causes: [
                {
                  reason: 'NamespaceTerminating',
                  message: `namespace ${namespace} is being terminated`,
                  field: 'metadata.namespace',
                },
              ],
            },
          ),
        );
      }
    }
    if (bucket.has(key)) throw S.toError(S.alreadyExists(d, name));
    obj.apiVersion = apiVersionOf(d);
    obj.kind = d.kind;
    m.name = name;
    if (d.namespaced) m.namespace = namespace;
    else delete m.namespace;
    m.uid = randomUUID();
    m.creationTimestamp = this.#timestamp();
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (this.#table.tracksGeneration(served)) m.generation = 1;
    else delete m.generation;
    this.#defaultsOnCreate(served, obj, true);
    const time = this.#timestamp();
    const requested = managed ? undefined : requestedManagedFields(obj, undefined);
    const entries =
      managed ??
      (requested === 'reset'
        ? []
        : trackUpdate(
            requested ?? [],
            undefined,
            obj,
            { manager: ctx.manager, apiVersion: apiVersionOf(d), time },
            this.#shape(served),
          ));
    writeManagedFields(obj, entries);
    if (ctx.dryRun) return this.#out(served, obj);
    return this.#out(served, this.#commit(served, 'ADDED', key, obj, undefined));
  }

  /**
   * The update pipeline shared by PUT, PATCH and apply: subresource rules, system metadata,
   * optimistic concurrency, generation, managed fields, no-op detection, finalizer-driven delete.
   */
  #update(
    served: ServedResource,
    existing: JsonObject,
    incoming: JsonObject,
    subresource: string | undefined,
    ctx: WriteContext,
    managed: ManagedEntry[] | undefined,
  ): KubeObject {
    const d = served.descriptor;
    const old = existing.metadata as JsonObject;
    const name = String(old.name);
    const inMeta = meta(incoming);
    const rv = str(inMeta.resourceVersion);
    if (rv !== undefined && rv !== old.resourceVersion) throw S.toError(S.conflict(d, name));
    const uid = str(inMeta.uid);
    if (uid !== undefined && uid !== old.uid) {
      throw S.toError(
        S.failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${S.qualifiedResource(d)} "${name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(old.uid)}`,
          {
            name,
            ...(d.group ? { group: d.group } : {}),
            kind: d.plural,
          },
        ),
      );
    }
    const hasStatus = Boolean(d.subresources?.status);
    let next: JsonObject;
    if (subresource === 'status') {
      next = clone(existing) as JsonObject;
      if (incoming.status !== undefined) next.status = clone(incoming.status);
      else delete next.status;
    } else {
      next = clone(incoming);
      if (hasStatus) {
        if (existing.status !== undefined) next.status = clone(existing.status);
        else delete next.status;
      }
      const m = meta(next);
      for (const k of [
        'name',
        'namespace',
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
        'managedFields',
      ]) {
        if (old[k] !== undefined) m[k] = clone(old[k]);
        else delete m[k];
      }
      delete m.selfLink;
      delete m.generateName;
      if (old.generateName !== undefined) m.generateName = old.generateName;
      if (old.deletionTimestamp) {
        const before = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
        const added = (Array.isArray(m.finalizers) ? m.finalizers : []).filter((f) => !before.has(f));
        if (added.length > 0) {
          throw S.toError(
            S.invalid(
              this.#who(served),
              [
                {
                  reason: 'FieldValueForbidden',
                  message:
                    'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{' +
                    added.map((f) => JSON.stringify(f)).join(', ') +
                    '}',
                  field: 'metadata.finalizers',
                },
              ],
              name,
            ),
          );
        }
      }
    }
    next.apiVersion = apiVersionOf(d);
    next.kind = d.kind;
    const nm = meta(next);
    nm.resourceVersion = old.resourceVersion;
    if (subresource !== 'status') this.#normalize(served, next);
    const metaProblems = subresource === 'status' ? [] : this.#objectCauses(served, next);
    if (metaProblems.length > 0) throw S.toError(S.invalid(this.#who(served), metaProblems, name));
    if (this.#table.tracksGeneration(served) && !deepEqual(specOf(next), specOf(existing))) {
      nm.generation = (typeof old.generation === 'number' ? old.generation : 0) + 1;
    }
    const time = this.#timestamp();
    const requested = managed ? undefined : requestedManagedFields(incoming, existing);
    const entries =
      managed ??
      (requested === 'reset'
        ? []
        : trackUpdate(
            requested ?? readManagedFields(existing),
            existing,
            next,
            {
              manager: ctx.manager,
              apiVersion: apiVersionOf(d),
              subresource: subresource || undefined,
              time,
            },
            this.#shape(served),
          ));
    writeManagedFields(next, entries);
    if (deepEqual(next, existing)) return this.#out(served, existing);
    const key = objectKeyOf(str(old.namespace), name);
    const finalizers = Array.isArray(nm.finalizers) ? nm.finalizers : [];
    if (nm.deletionTimestamp && finalizers.length === 0) {
      if (!ctx.dryRun) this.#commit(served, 'DELETED', key, existing, existing);
      return this.#out(served, next);
    }
    if (ctx.dryRun) return this.#out(served, next);
    return this.#out(served, this.#commit(served, 'MODIFIED', key, next, existing));
  }

  #apply(
    served: ServedResource,
    existing: JsonObject | undefined,
    patch: unknown,
    name: string,
    namespace: string | undefined,
    opts: PatchOptions & { readonly subresource?: string | undefined },
    ctx: WriteContext,
  ): KubeObject {
    const d = served.descriptor;
    if (!isObject(patch))
      throw S.toError(S.badRequest('error decoding YAML: the apply configuration must be an object'));
    const config = patch;
    if (!str(config.kind) || !str(config.apiVersion)) {
      const missing = !str(config.kind) ? 'Kind' : 'Version';
      throw S.toError(S.badRequest(`Object '${missing}' is missing in '${JSON.stringify(config)}'`));
    }
    const { group, version } = parseApiVersion(String(config.apiVersion));
    if (group !== d.group || version !== d.version || config.kind !== d.kind) {
      throw S.toError(
        S.badRequest(
          `the API version in the data (${String(config.apiVersion)}) does not match the expected API version (${apiVersionOf(d)})`,
        ),
      );
    }
    const cm = meta(config);
    if (str(cm.name) !== undefined && cm.name !== name) {
      throw S.toError(
        S.badRequest(
          `the name of the object (${String(cm.name)}) does not match the name on the URL (${name})`,
        ),
      );
    }
    const subresource = opts.subresource || undefined;
    const hasStatus = Boolean(d.subresources?.status);
    const scope: FieldScope = subresource === 'status' ? 'status' : hasStatus ? 'main' : 'all';
    const time = this.#timestamp();
    const who = {
      manager: ctx.manager,
      apiVersion: apiVersionOf(d),
      subresource,
      time,
      force: opts.force === true,
    };
    const shape = this.#shape(served);
    if (!existing) {
      if (subresource) throw S.toError(S.notFound(d, name));
      const result = serverSideApply(undefined, config, who, scope, shape);
      const obj = result.object;
      const m = meta(obj);
      m.name = name;
      if (d.namespaced) m.namespace = namespace;
      return this.#create(served, obj, namespace, ctx, result.entries);
    }
    const result = serverSideApply(existing, config, who, scope, shape);
    if (result.conflicts.length > 0) throw S.toError(this.#applyConflict(result.conflicts));
    const next = result.object;
    const m = meta(next);
    m.resourceVersion = (existing.metadata as JsonObject).resourceVersion;
    if (str(cm.resourceVersion) !== undefined) m.resourceVersion = cm.resourceVersion;
    return this.#update(served, existing, next, subresource, ctx, result.entries);
  }

  #applyConflict(conflicts: readonly ApplyConflict[]): Status {
    const sorted = [...conflicts].sort((a, b) => (describePath(a.path) < describePath(b.path) ? -1 : 1));
    const label = (c: ApplyConflict) =>
      c.operation === 'Update' ? `"${c.manager}" using ${c.apiVersion}` : `"${c.manager}"`;
    let message: string;
    if (sorted.length === 1) {
      message = `conflict with ${label(sorted[0]!)}: ${describePath(sorted[0]!.path)}`;
    } else {
      const byManager = new Map<string, string[]>();
      for (const c of sorted)
        byManager.set(label(c), [...(byManager.get(label(c)) ?? []), describePath(c.path)]);
      message = [...byManager]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([who, paths]) => [`conflicts with ${who}:`, ...paths.map((p) => `- ${p}`)].join('\n'))
        .join('\n');
    }
    return S.failure(
      409,
      'Conflict',
      `Apply failed with ${sorted.length} conflict${sorted.length === 1 ? '' : 's'}: ${message}`,
      {
        causes: sorted.map((c) => ({
          reason: 'FieldManagerConflict',
          message: `conflict with ${label(c)}`,
          field: describePath(c.path),
        })),
      },
    );
  }

  #delete(
    served: ServedResource,
    key: string,
    existing: JsonObject,
    opts: DeleteOptions,
    dryRun: boolean,
  ): KubeObject | Status {
    const d = served.descriptor;
    const old = existing.metadata as JsonObject;
    const finalizers = Array.isArray(old.finalizers) ? [...(old.finalizers as string[])] : [];
    if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
      finalizers.push('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (finalizers.length > 0) {
      if (
        old.deletionTimestamp &&
        finalizers.length === (Array.isArray(old.finalizers) ? old.finalizers.length : 0)
      ) {
        return this.#out(served, existing);
      }
      const next = clone(existing);
      const m = meta(next);
      m.finalizers = finalizers;
      if (!m.deletionTimestamp) {
        m.deletionTimestamp = this.#timestamp();
        m.deletionGracePeriodSeconds = 0;
        if (typeof m.generation === 'number') m.generation += 1;
        // A namespace held by finalizers is Terminating, and refuses new content.
        if (served.storageKey === NAMESPACE_STORAGE_KEY)
          next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
      }
      if (dryRun) return this.#out(served, next);
      return this.#out(served, this.#commit(served, 'MODIFIED', key, next, existing));
    }
    if (dryRun) return S.deleted(d, String(old.name), str(old.uid));
    this.#commit(served, 'DELETED', key, existing, existing);
    return S.deleted(d, String(old.name), str(old.uid));
  }
}
