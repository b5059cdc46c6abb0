import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  type ApiClient,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
  PATCH_CONTENT_TYPES,
  type PatchOptions,
  type RawRequest,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from './api.ts';
import { apiErrorFromStatus, type Status } from './errors.ts';
import { ApiAgents, createApiAgent } from './internal/api-agent.ts';
import { requestOverConnection } from './internal/connection-request.ts';
import { httpsWatchConnection } from './internal/https-watch-connection.ts';
import {
  type BodyPeek,
  type ListOptionsWithPageHints,
  ON_CONTINUE,
  ON_PAGE_LENGTH,
  pagePeek,
} from './internal/list-continue.ts';
import { PageConnections } from './internal/page-connections.ts';
import { type ProxyConfig, parseProxyUrl } from './internal/proxy-url.ts';
import {
  buildQuery,
  checkPatchType,
  describe,
  type Query,
  requireNamespace,
  writeQuery,
} from './internal/request-helpers.ts';
import { RequestOptions } from './internal/request-options.ts';
import { ResponseBody, responseValue } from './internal/response-body.ts';
import { tlsWatchConnection, WatchTls } from './internal/tls-watch-connection.ts';
import { apiErrorFromResponse, wrapTransport } from './internal/transport-errors.ts';
import { TUNNEL_SIGNAL } from './internal/tunnelling-agent.ts';
import type { OpenWatchConnection } from './internal/watch-connection.ts';
import { watchIterable } from './internal/watch-iterable.ts';
import { WATCH_SINK, type WatchEventSink } from './internal/watch-sink.ts';
import { streamWatch, type WatchStreamSink } from './internal/watch-stream.ts';
import type { KubeObject } from './object.ts';
import { type ResourceDescriptor, resourcePath, type TypedResourceDescriptor } from './resource.ts';

/** Options of the HTTPS transport ({@link createApiClient}, `KubeClientOptions.http`). */
export interface HttpOptions {
  /** Timeout of a non-watch request while no byte arrives, and of opening a `proxy-url` tunnel, in ms. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /**
   * Maximum concurrent sockets to the apiserver. Default: unlimited. Setting it sends watches
   * through the agent too (each holds one of the sockets) instead of over their own TLS connections.
   */
  readonly maxSockets?: number;
  /** Sent as `User-Agent`. */
  readonly userAgent?: string;
}

interface Prepared {
  url: URL;
  options: https.RequestOptions;
}

/** A request before it is sent: the URL parts and the extra headers. */
interface PrepareRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Query | undefined;
  readonly headers?: Record<string, string> | undefined;
}

/** A JSON request: `body` (a string is sent as is) goes with `contentType`; `context` names it in errors. */
interface SendRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Query | undefined;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly context: string;
  /** Looks at a 2xx response's body before it is decoded. */
  readonly peek?: BodyPeek | undefined;
}

/**
 * The HTTPS {@link ApiClient}: JSON over `node:https` with a keep-alive agent, credentials from a
 * client-node `KubeConfig` (client certificates, tokens, exec and auth-provider plugins), typed
 * errors from Status bodies, and watch streams decoded line by line with an idle timeout, each
 * watch over a TLS connection of its own (HTTP/1.1 without node:https, see `#watchConnection`).
 * With a cluster `proxy-url`, every connection is a tunnel through that proxy (see proxy-tunnel.ts).
 */
export class HttpApiClient implements ApiClient {
  readonly #server: URL;
  readonly #requestTimeoutMs: number;
  readonly #userAgent: string;
  /** The cluster's `proxy-url`, parsed. */
  readonly #proxy: ProxyConfig | undefined;
  readonly #agents: ApiAgents;
  readonly #requestOptions: RequestOptions;
  readonly #maxSockets: number;
  /** Cuts each open watch and list page of the TLS transport (they hold no agent socket). */
  readonly #tlsWatches = new Set<() => void>();
  /** The TLS state of those watches, from the agent's settings. */
  #watchTls: { agent: https.Agent; tls: WatchTls } | undefined;
  /** The kept-alive connections of list pages, for the current TLS state. */
  #pages: { tls: WatchTls; connections: PageConnections } | undefined;

  /** Creates a client for the current context of `kubeConfig`. @throws without a cluster, or for a bad server or proxy-url. */
  constructor(kubeConfig: KubeConfig, options: HttpOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) {
      throw new Error(
        `kubeconfig has no cluster for context "${kubeConfig.getCurrentContext()}": check current-context and the contexts list`,
      );
    }
    let server: URL;
    try {
      server = new URL(cluster.server);
    } catch {
      throw new Error(`kubeconfig cluster "${cluster.name}" has an invalid server URL: "${cluster.server}"`);
    }
    this.#proxy = cluster.proxyUrl ? parseProxyUrl(cluster.proxyUrl) : undefined;
    this.#server = server;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.#userAgent = options.userAgent ?? 'kubeloom';
    this.#maxSockets = options.maxSockets ?? Number.POSITIVE_INFINITY;
    this.#agents = new ApiAgents((tls) =>
      createApiAgent({
        tls,
        maxSockets: this.#maxSockets,
        proxy: this.#proxy,
        tunnelTimeoutMs: this.#requestTimeoutMs,
      }),
    );
    this.#requestOptions = new RequestOptions({ kubeConfig, agents: this.#agents });
  }

  async #prepare(req: PrepareRequest): Promise<Prepared> {
    const { method, path, query, headers = {} } = req;
    const base = await this.#requestOptions.get();
    const url = new URL(this.#server.toString().replace(/\/$/, '') + path);
    buildQuery(url, query);
    return {
      url,
      options: {
        ...base,
        method,
        headers: { ...(base.headers as Record<string, string>), 'User-Agent': this.#userAgent, ...headers },
      },
    };
  }

  async #send(req: SendRequest): Promise<unknown> {
    const {
      method,
      path,
      query,
      body,
      contentType = 'application/json',
      signal,
      context,
      peek: bodyPeek,
    } = req;
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (payload !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const { url, options } = await this.#prepare({ method, path, query, headers });
    signal?.throwIfAborted();
    return await new Promise<unknown>((resolve, reject) => {
      // The signal also stops opening the connection's tunnel, with a proxy-url (see TunnellingAgent).
      const sendOptions = signal ? { ...options, signal, [TUNNEL_SIGNAL]: signal } : options;
      const req = https.request(url, sendOptions as https.RequestOptions, (res) => {
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        const collected = new ResponseBody(ok ? bodyPeek : undefined);
        res.on('data', (c: Buffer) => collected.push(c));
        res.on('error', (err) => reject(wrapTransport(err, this.#server.origin, context)));
        res.on('end', () => {
          // A body longer than a string can be is a clear rejection, not an exception out of this handler.
          try {
            resolve(responseValue(res, collected.text(context), { context, peek: bodyPeek }));
          } catch (err) {
            reject(err);
          }
        });
      });
      req.setTimeout(this.#requestTimeoutMs, () => {
        req.destroy(
          apiErrorFromStatus(
            504,
            { reason: 'Timeout', message: `no response within ${this.#requestTimeoutMs} ms` },
            { context },
          ),
        );
      });
      req.on('error', (err) => reject(wrapTransport(err, this.#server.origin, context)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** {@inheritDoc ApiClient.get} */
  async get<T extends KubeObject = KubeObject>(ref: ObjectRef<T>, opts: GetOptions = {}): Promise<T> {
    const { resource, name, namespace } = ref;
    requireNamespace('get', ref);
    const path = resourcePath(resource, { namespace, name, subresource: opts.subresource });
    return (await this.#send({
      method: 'GET',
      path,
      signal: opts.signal,
      context: `get ${describe(ref)}`,
    })) as T;
  }

  /** {@inheritDoc ApiClient.list} */
  async list<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const path = resourcePath(resource, { namespace: opts.namespace });
    const query: Query = {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
    };
    const onContinue = (opts as ListOptionsWithPageHints)[ON_CONTINUE];
    const onLength = (opts as ListOptionsWithPageHints)[ON_PAGE_LENGTH];
    const request: SendRequest = {
      method: 'GET',
      path,
      query,
      signal: opts.signal,
      context: `list ${describe({ resource, namespace: opts.namespace })}`,
      peek: onContinue || onLength ? pagePeek({ onContinue, onLength }) : undefined,
    };
    // The pager's hints mark a page of a paginated list: see #sendPage.
    const list = (request.peek ? await this.#sendPage(request) : await this.#send(request)) as ObjectList<T>;
    if (!list.metadata) list.metadata = {};
    if (!list.items) list.items = [];
    return list;
  }

  /** {@inheritDoc ApiClient.watch} */
  watch<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts: WatchOptions = {},
  ): AsyncIterable<WatchEvent<T>> {
    return watchIterable<T>((sink, cancel) =>
      this.#streamWatch(resource, {
        opts: { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, cancel]) : cancel },
        sink,
      }),
    );
  }

  /** The events of {@link HttpApiClient.watch}, pushed to `sink` as they are decoded (see {@link WATCH_SINK}). */
  [WATCH_SINK]<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts: WatchOptions,
    sink: WatchEventSink<T>,
  ): Promise<void> {
    return this.#streamWatch(resource, { opts, sink: { onEvent: sink } });
  }

  async #streamWatch<T extends KubeObject>(
    resource: ResourceDescriptor,
    watch: { readonly opts: WatchOptions; readonly sink: WatchStreamSink<T> },
  ): Promise<void> {
    const { opts, sink } = watch;
    const path = resourcePath(resource, { namespace: opts.namespace });
    const context = `watch ${describe({ resource, namespace: opts.namespace })}`;
    const { url, options } = await this.#prepare({
      method: 'GET',
      path,
      query: {
        watch: 'true',
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
        timeoutSeconds: opts.timeoutSeconds,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      },
      headers: { Accept: 'application/json' },
    });
    await streamWatch<T>(
      {
        open: this.#watchConnection(url, options),
        context,
        idleTimeoutMs: opts.idleTimeoutMs,
        signal: opts.signal,
        errorFrom: (head, body) => apiErrorFromResponse(head, body, context),
        transportError: (err) => wrapTransport(err, this.#server.origin, context),
      },
      sink,
    );
  }

  /**
   * A page of a paginated list: megabytes, written by the apiserver in chunks of ≤ 2 KiB, so over a
   * kept-alive TLS connection ({@link PageConnections}) rather than node:https's per-chunk streams;
   * through {@link HttpApiClient.#send} with a `proxy-url` or when watches use the agent too.
   */
  async #sendPage(req: SendRequest): Promise<unknown> {
    // Decided before #prepare, which the agent's path would run again.
    if (this.#proxy !== undefined || !this.#ownConnections) return await this.#send(req);
    const { url, options } = await this.#prepare({ ...req, headers: { Accept: 'application/json' } });
    const shared = this.#ownTls(options);
    if (!shared) return await this.#send(req);
    if (this.#pages?.tls !== shared) {
      this.#pages?.connections.close();
      this.#pages = { tls: shared, connections: new PageConnections(shared, this.#tlsWatches) };
    }
    return await requestOverConnection({
      open: this.#pages.connections.open({
        url,
        headers: options.headers as Record<string, string>,
        auth: options.auth ?? undefined,
      }),
      context: req.context,
      server: this.#server.origin,
      idleTimeoutMs: this.#requestTimeoutMs,
      signal: req.signal,
      peek: req.peek,
    });
  }

  /**
   * How a watch request is sent: as HTTP/1.1 over a TLS connection of its own (cheaper per event
   * than node:https, see tls-watch-connection.ts), with the agent's TLS settings and, with a
   * `proxy-url`, over a tunnel of its own; through node:https and the agent (which tunnels too)
   * when that cannot honour the configuration: a server that is not `https:` (node:https refuses
   * it with its own error) or a `maxSockets` limit (the agent counts watches against it).
   */
  #watchConnection(url: URL, options: https.RequestOptions): OpenWatchConnection {
    const shared = this.#ownTls(options);
    if (!shared) return httpsWatchConnection(url, options);
    return tlsWatchConnection({
      url,
      headers: options.headers as Record<string, string>,
      auth: options.auth ?? undefined,
      tls: shared,
      live: this.#tlsWatches,
      proxy: this.#proxy && { config: this.#proxy, timeoutMs: this.#requestTimeoutMs },
    });
  }

  /** Whether connections outside the agent may be used: no `maxSockets` limit, an `https:` server. */
  get #ownConnections(): boolean {
    return this.#server.protocol === 'https:' && this.#maxSockets === Number.POSITIVE_INFINITY;
  }

  /**
   * The TLS state of the connections outside the agent (watches, list pages): the agent's CA,
   * client certificate and key, and its session. Undefined when the configuration asks for the
   * agent: a server that is not `https:` or a `maxSockets` limit.
   */
  #ownTls(options: https.RequestOptions): WatchTls | undefined {
    const agent = options.agent;
    if (!this.#ownConnections || !(agent instanceof https.Agent)) return undefined;
    if (this.#watchTls?.agent !== agent) {
      const { ca, cert, key, rejectUnauthorized, servername } = agent.options;
      this.#watchTls = { agent, tls: new WatchTls({ ca, cert, key, rejectUnauthorized, servername }) };
    }
    return this.#watchTls.tls;
  }

  /** {@inheritDoc ApiClient.create} */
  async create<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    obj: T,
    opts: WriteOptions = {},
  ): Promise<T> {
    const namespace = obj.metadata?.namespace;
    const target = { resource, name: obj.metadata?.name ?? obj.metadata?.generateName, namespace };
    requireNamespace('create', target);
    const path = resourcePath(resource, { namespace });
    return (await this.#send({
      method: 'POST',
      path,
      query: writeQuery(opts),
      body: obj,
      contentType: 'application/json',
      signal: opts.signal,
      context: `create ${describe(target)}`,
    })) as T;
  }

  /** {@inheritDoc ApiClient.update} */
  async update<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    obj: T,
    opts: WriteOptions & { readonly subresource?: string | undefined } = {},
  ): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new TypeError(`update ${resource.plural}: the object has no metadata.name`);
    const namespace = obj.metadata?.namespace;
    requireNamespace('update', { resource, name, namespace });
    const path = resourcePath(resource, { namespace, name, subresource: opts.subresource });
    return (await this.#send({
      method: 'PUT',
      path,
      query: writeQuery(opts),
      body: obj,
      contentType: 'application/json',
      signal: opts.signal,
      context: `update ${describe({ resource, name, namespace }, opts.subresource)}`,
    })) as T;
  }

  /** {@inheritDoc ApiClient.patch} */
  async patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef<T>,
    data: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    const { resource, name, namespace } = ref;
    const type = checkPatchType(resource, name, opts);
    if (type === 'apply' && !opts.fieldManager) {
      throw new TypeError(`apply ${resource.plural}/${name}: server-side apply needs a fieldManager`);
    }
    if (type === 'strategic' && resource.strategicMergePatch === false) {
      throw new TypeError(
        `patch ${resource.plural}/${name}: strategic merge patch is not supported for ${resource.kind} (custom resources accept merge, json and apply patches)`,
      );
    }
    requireNamespace('patch', ref);
    const path = resourcePath(resource, { namespace, name, subresource: opts.subresource });
    const query: Query = { ...writeQuery(opts), force: type === 'apply' && opts.force ? 'true' : undefined };
    return (await this.#send({
      method: 'PATCH',
      path,
      query,
      body: data,
      contentType: PATCH_CONTENT_TYPES[type],
      signal: opts.signal,
      context: `patch (${type}) ${describe(ref, opts.subresource)}`,
    })) as T;
  }

  /** {@inheritDoc ApiClient.delete} */
  async delete(ref: ObjectRef, opts: DeleteOptions = {}): Promise<KubeObject | Status> {
    const { resource, name, namespace } = ref;
    requireNamespace('delete', ref);
    const path = resourcePath(resource, { namespace, name });
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    // With a DeleteOptions body the apiserver reads dryRun from the body, not the query.
    if (opts.dryRun) body.dryRun = [opts.dryRun];
    return (await this.#send({
      method: 'DELETE',
      path,
      query: { dryRun: opts.dryRun },
      body,
      contentType: 'application/json',
      signal: opts.signal,
      context: `delete ${describe(ref)}`,
    })) as KubeObject | Status;
  }

  /** {@inheritDoc ApiClient.request} */
  async request<T = unknown>(req: RawRequest): Promise<T> {
    return (await this.#send({
      method: req.method,
      path: req.path,
      query: req.query,
      body: req.body,
      contentType: req.contentType,
      signal: req.signal,
      context: `${req.method} ${req.path}`,
    })) as T;
  }

  /** {@inheritDoc ApiClient.close} */
  close(): void {
    this.#requestOptions.reset();
    // Idle sockets close now; sockets of in-flight requests close when their response ends.
    this.#agents.close();
    this.#pages?.connections.close();
  }

  /** Closes the client and destroys every socket, those of in-flight requests and open watches too. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#requestOptions.reset();
    this.#agents.destroy(); // the sockets of in-flight requests and open watches too
    for (const cut of [...this.#tlsWatches]) cut(); // watches and list pages
    this.#pages?.connections.close();
  }
}
