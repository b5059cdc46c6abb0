import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { type CertificatePair, TinyCA } from './certs.ts';
import { Exchange, type ExchangeFault } from './internal/exchange.ts';
import { REQUEST_VERBS, requestInfo } from './internal/request-info.ts';
import { statusObject } from './internal/status.ts';

/**
 * The kind of a request, named like the apiserver's verbs: `get`, `list` and `watch` for reads
 * (`watch` for `watch=true` or a legacy `/watch/` path), `create`, `update`, `patch`, `delete`,
 * `deletecollection` for writes, `discovery` for `/api`, `/apis`, `/apis/<group>[/<version>]`,
 * `nonresource` for anything else (`/version`, `/healthz`, `/openapi/…`), `other` for an unusual
 * method on a resource path.
 */
export type RequestVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | 'discovery'
  | 'nonresource'
  | 'other';

/** The apiserver a {@link FaultProxy} forwards to: a {@link ControlPlane} or {@link SharedControlPlane} fits. */
export interface FaultProxyUpstream {
  /** The apiserver URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /**
   * Credentials allowed to impersonate users and groups (the admin of a control plane). Its
   * cluster CA is used to verify the apiserver.
   */
  readonly kubeConfig: KubeConfig;
  /** The CA that signed the apiserver's certificate; read from `kubeConfig` when absent. */
  readonly caPem?: string;
}

/** Options for {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Where requests go. */
  readonly upstream: FaultProxyUpstream;
  /** Port on 127.0.0.1 to listen on; default 0 (an ephemeral port). */
  readonly port?: number;
  /** Aborting stops the proxy, like {@link FaultProxy.stop}. */
  readonly signal?: AbortSignal;
  /** How many requests {@link FaultProxy.requests} keeps (the oldest are dropped first). Default 10,000. */
  readonly logLimit?: number;
}

/** How a client proved who it is to the proxy. */
export type ProxyAuthentication = 'certificate' | 'bearer' | 'anonymous';

/** The kinds of fault a rule applies; see {@link FaultAction}. */
export type FaultType = FaultAction['type'] | 'inject';

/** One request seen by the proxy. */
export interface ProxiedRequest {
  /** Sequence number, from 1. */
  readonly id: number;
  /** HTTP method, upper case. */
  readonly method: string;
  /** Path and query as the client sent them. */
  readonly url: string;
  /** Path without the query. */
  readonly path: string;
  /** Query parameters; a repeated parameter keeps its last value. */
  readonly query: Readonly<Record<string, string>>;
  /** What kind of request this is. */
  readonly verb: RequestVerb;
  /** True for watch requests. */
  readonly watch: boolean;
  /** API group, `''` for the core group; absent for discovery and non-resource requests. */
  readonly apiGroup?: string;
  /** API version, e.g. `v1`. */
  readonly apiVersion?: string;
  /** Resource (plural), e.g. `configmaps`. */
  readonly resource?: string;
  /** Subresource, e.g. `status`. */
  readonly subresource?: string;
  /** Namespace, when the path names one. */
  readonly namespace?: string;
  /** Object name, when the path names one. */
  readonly name?: string;
  /** How the client authenticated to the proxy. */
  readonly authentication: ProxyAuthentication;
  /** The user of the client certificate (its CN); absent for bearer tokens and anonymous requests. */
  readonly user?: string;
  /** The groups of the client certificate (its O values). */
  readonly groups: readonly string[];
  /** The HTTP status the client received, once the response head was sent. */
  readonly status?: number;
  /** The faults applied to this request, in order. */
  readonly faults: readonly FaultType[];
}

/**
 * Which requests a rule or an operation applies to. Every given field must match; an empty match
 * matches every request.
 */
export interface RequestMatch {
  /** HTTP method(s), case-insensitive. */
  readonly method?: string | readonly string[];
  /** The path (without query): a RegExp is tested against it, a string must equal it. */
  readonly path?: RegExp | string;
  /** Request kind(s). */
  readonly verb?: RequestVerb | readonly RequestVerb[];
  /** Only watches (`true`) or only non-watch requests (`false`). */
  readonly watch?: boolean;
  /** Resource (plural), e.g. `configmaps`. */
  readonly resource?: string;
  /** Namespace. */
  readonly namespace?: string;
  /** The client-certificate user (CN). */
  readonly user?: string;
  /** Any other condition. */
  readonly where?: (request: ProxiedRequest) => boolean;
}

/** How a `respond` rule answers; see {@link FaultAction}. */
export interface RespondOptions {
  /** Status reason; default: the apiserver's for the code (`Expired` for 410, `TooManyRequests` for 429, …). */
  readonly reason?: string;
  /** Status message; default: the apiserver's usual one for the code. */
  readonly message?: string;
  /** Sets the `Retry-After` header and `details.retryAfterSeconds`. */
  readonly retryAfterSeconds?: number;
  /**
   * For watch requests: answer `200` with a single `ERROR` event carrying the Status, then end
   * the stream, as the apiserver does for a watch from a compacted resourceVersion. Other
   * requests get the plain status.
   */
  readonly asWatchEvent?: boolean;
}

/**
 * What a rule does to the requests it matches.
 *
 * - `respond`: answer locally with `status` and a Kubernetes `Status` body (reason and message
 *   as the apiserver would write them unless given; see {@link RespondOptions}). The request
 *   never reaches the apiserver.
 * - `cut`: reset the client's connection instead of answering; nothing reaches the apiserver.
 * - `stall`: hold the request (if not yet forwarded) and every response byte, keeping the
 *   connection open, until the rule is removed (bytes flow again) or its handle cuts.
 * - `delay`: wait `ms` before forwarding each response chunk (the head included).
 */
export type FaultAction =
  | ({ readonly type: 'respond'; readonly status: number } & RespondOptions)
  | { readonly type: 'cut' }
  | { readonly type: 'stall' }
  | { readonly type: 'delay'; readonly ms: number };

/**
 * Which matching requests a rule reaches. By default a `stall` or `delay` rule takes hold of
 * matching requests already in flight and of every new one; `respond` and `cut` rules apply to
 * new requests only.
 */
export interface RuleScope {
  /** Apply to the next `count` matching new requests only, then stop matching (not to those in flight). */
  readonly count?: number;
  /**
   * `stall` and `delay` only: apply to the matching requests in flight now, never to new ones;
   * e.g. stall the current watch while the client's next watch gets through.
   */
  readonly inFlightOnly?: boolean;
}

/** A rule: a match, an optional count and an action. */
export interface FaultRuleSpec extends RequestMatch, RuleScope {
  /** What to do with matching requests. */
  readonly action: FaultAction;
}

/** A rule installed on a proxy. */
export interface FaultRule {
  /** Sequence number. */
  readonly id: number;
  /** What it does. */
  readonly action: FaultAction;
  /** How many requests it matched so far. */
  readonly hits: number;
  /** How many more requests it will match; `undefined` without a count. */
  readonly remaining: number | undefined;
  /** False once removed (or, for `respond` and `cut`, once its count is used up). */
  readonly active: boolean;
  /** Removes the rule. Stalled requests resume, running delays end. Idempotent. */
  remove(): void;
}

/** A `stall` rule: {@link FaultRule.remove} (or {@link StallHandle.resume}) lets bytes flow again. */
export interface StallHandle extends FaultRule {
  /** Removes the stall; held requests are forwarded and held bytes delivered. */
  resume(): void;
  /** Resets the connections of every request the stall holds, then removes it; returns how many. */
  cut(): number;
}

/** Options for {@link FaultProxy.blackhole}. */
export interface BlackholeOptions {
  /** Only this client-certificate user; default: every client. */
  readonly user?: string;
  /**
   * `stall` (default): hold every request and response byte, like a network that drops packets;
   * clients see timeouts. `refuse`: reset existing connections at once and every new request
   * (without a user: every new connection) until healed; clients see connection errors.
   */
  readonly mode?: 'stall' | 'refuse';
}

/** A black hole: {@link Blackhole.heal} ends it. */
export interface Blackhole extends FaultRule {
  /** Ends the black hole: held requests resume, new ones pass. */
  heal(): void;
}

/** Options for the injection methods. */
export interface InjectOptions extends RequestMatch {
  /** End the watch response right after the injected line (as the apiserver does after an ERROR). */
  readonly close?: boolean;
}

/** Options for {@link FaultProxy.injectError}. */
export interface InjectErrorOptions extends InjectOptions {
  /** Status reason; default: the apiserver's for the code (`Expired` for 410). */
  readonly reason?: string;
  /** Status message. */
  readonly message?: string;
}

/** Bounds for the `waitFor…` methods. */
export interface WaitOptions {
  /** Give up after this long (rejecting with a description and the stats). Default 10 s. */
  readonly timeoutMs?: number;
  /** Give up when aborted. */
  readonly signal?: AbortSignal;
}

/** Counters and gauges of a proxy. */
export interface FaultProxyStats {
  /** Requests received per kind, since start or {@link FaultProxy.resetStats}. */
  readonly requests: Readonly<Record<RequestVerb, number>>;
  /** All requests received, since start or {@link FaultProxy.resetStats}. */
  readonly totalRequests: number;
  /** Open client connections (TCP), idle keep-alive ones included. */
  readonly activeConnections: number;
  /** Requests whose response is not finished. */
  readonly activeRequests: number;
  /** Watches whose `200` head reached the client and that are still open. */
  readonly activeWatches: number;
  /** Requests currently holding bytes (or the request itself) behind a stall. */
  readonly heldRequests: number;
  /** Requests currently waiting in a delay. */
  readonly delayedRequests: number;
  /** Installed rules. */
  readonly rules: number;
}

/**
 * A TLS-terminating proxy between Kubernetes clients and an apiserver, for breaking things in
 * tests. Create it with {@link startFaultProxy}; point clients at it with
 * {@link FaultProxy.kubeConfig}.
 */
export interface FaultProxy {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The CA of the proxy's serving certificate and of the client certificates it issues. */
  readonly caPem: string;
  /**
   * A client configuration pointing at the proxy for `user` (default `admin`, whose groups
   * default to `system:masters`) in `groups`, authenticated by a client certificate the proxy
   * trusts. The proxy forwards its requests as that user and those groups (impersonation), so
   * RBAC applies as it would for the user itself.
   */
  kubeConfig(user?: string, groups?: readonly string[]): KubeConfig;
  /** A client certificate for `user` in `groups` that the proxy accepts, for raw HTTPS clients. */
  clientCertificate(user: string, groups?: readonly string[]): CertificatePair;
  /** Installs a rule; rules are consulted in the order they were added. */
  addRule(rule: FaultRuleSpec): FaultRule;
  /**
   * Answers matching requests with `status` and a Kubernetes `Status` body; e.g.
   * `respond(429, { verb: 'list', count: 1, retryAfterSeconds: 1 })`.
   */
  respond(status: number, options?: RequestMatch & RuleScope & RespondOptions): FaultRule;
  /** Stalls matching requests: those in flight (without a count) and new ones, until resumed. */
  stall(match?: RequestMatch & RuleScope): StallHandle;
  /** Delays every response chunk of matching requests by `ms` until removed. */
  delay(ms: number, match?: RequestMatch & RuleScope): FaultRule;
  /**
   * Resets connections now. Without a match, every client connection (idle ones included);
   * with one, the connections whose in-flight request matches (`{ watch: true }`: the watches).
   * Returns how many connections were cut. Future requests are not affected.
   */
  cut(match?: RequestMatch): number;
  /** Cuts a client off the apiserver until healed; see {@link BlackholeOptions}. */
  blackhole(options?: BlackholeOptions): Blackhole;
  /**
   * Writes a raw line into matching open watch streams at the next event boundary (e.g. a
   * malformed line). Returns how many streams it was queued to.
   */
  injectLine(line: string, options?: InjectOptions): number;
  /** Writes a watch event (`{"type":…,"object":…}`) into matching open watch streams. */
  injectEvent(event: { readonly type: string; readonly object: unknown }, options?: InjectOptions): number;
  /**
   * Writes an `ERROR` event carrying a `Status` with `code` (default 410, reason `Expired`) into
   * matching open watch streams, then ends them (unless `close: false`), as the apiserver does
   * when a watch's resourceVersion is too old.
   */
  injectError(code?: number, options?: InjectErrorOptions): number;
  /** Removes every rule: stalls resume, delays and black holes end. */
  clearRules(): void;
  /** Installed rules. */
  rules(): readonly FaultRule[];
  /** Counters and gauges. */
  stats(): FaultProxyStats;
  /** Requests seen (the last {@link FaultProxyOptions.logLimit}), optionally only matching ones. */
  requests(match?: RequestMatch): readonly ProxiedRequest[];
  /** How many logged requests match, e.g. `count({ verb: 'list', resource: 'configmaps' })`. */
  count(match?: RequestMatch): number;
  /** Zeroes the counters and clears the request log. */
  resetStats(): void;
  /** Resolves once at least `count` matching watches are open (head delivered). */
  waitForWatches(count?: number, options?: RequestMatch & WaitOptions): Promise<void>;
  /** Resolves once at least `count` matching requests were logged. */
  waitForRequests(count: number, options?: RequestMatch & WaitOptions): Promise<void>;
  /** Resolves once `condition` holds; it is checked whenever the proxy's state changes, and every 10 ms. */
  waitUntil(
    condition: () => boolean,
    options?: WaitOptions & { readonly description?: string },
  ): Promise<void>;
  /** Closes the listener and every client and upstream connection; pending waits reject. Idempotent. */
  stop(): Promise<void>;
  /** Same as {@link FaultProxy.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

interface LogEntry extends ProxiedRequest {
  status?: number;
  faults: FaultType[];
}

interface Identity {
  readonly authentication: ProxyAuthentication | 'rejected';
  readonly user?: string;
  readonly groups: readonly string[];
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

function list<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** True when `request` satisfies every field of `match`. */
function matches(match: RequestMatch | undefined, request: ProxiedRequest): boolean {
  if (!match) return true;
  if (match.method !== undefined && !list(match.method).some((m) => m.toUpperCase() === request.method))
    return false;
  if (match.path !== undefined) {
    if (typeof match.path === 'string' ? match.path !== request.path : !match.path.test(request.path))
      return false;
  }
  if (match.verb !== undefined && !list(match.verb).includes(request.verb)) return false;
  if (match.watch !== undefined && match.watch !== request.watch) return false;
  if (match.resource !== undefined && match.resource !== request.resource) return false;
  if (match.namespace !== undefined && match.namespace !== request.namespace) return false;
  if (match.user !== undefined && match.user !== request.user) return false;
  if (match.where !== undefined && !match.where(request)) return false;
  return true;
}

function matchOf(options: RequestMatch | undefined): RequestMatch {
  if (!options) return {};
  const { method, path, verb, watch, resource, namespace, user, where } = options;
  return { method, path, verb, watch, resource, namespace, user, where };
}

function zeroCounts(): Record<RequestVerb, number> {
  return Object.fromEntries(REQUEST_VERBS.map((v) => [v, 0])) as Record<RequestVerb, number>;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function identify(socket: TLSSocket, headers: IncomingHttpHeaders): Identity {
  const cert = socket.getPeerCertificate();
  if (cert && Object.keys(cert).length > 0) {
    if (!socket.authorized) return { authentication: 'rejected', groups: [] };
    const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
    const user = firstValue(subject.CN);
    return {
      authentication: 'certificate',
      ...(user !== undefined ? { user } : {}),
      groups: list(subject.O),
    };
  }
  if (headers.authorization) return { authentication: 'bearer', groups: [] };
  return { authentication: 'anonymous', groups: [] };
}

function pemOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return value.map(pemOf).join('\n');
  return undefined;
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

class Rule implements FaultRule, StallHandle, Blackhole, ExchangeFault {
  readonly id: number;
  readonly action: FaultAction;
  readonly match: RequestMatch;
  /** A refusing black hole for everyone: new TCP connections are reset before the TLS handshake. */
  readonly refuseConnections: boolean;
  hits = 0;
  #remaining: number | undefined;
  #removed = false;
  readonly #inFlightOnly: boolean;
  readonly #exchanges = new Set<Exchange>();
  readonly #onRemove: (rule: Rule) => void;

  constructor(id: number, spec: FaultRuleSpec, onRemove: (rule: Rule) => void, refuseConnections = false) {
    if (spec.count !== undefined && (!Number.isInteger(spec.count) || spec.count < 1)) {
      throw new RangeError(`fault rule count must be a positive integer, got ${spec.count}`);
    }
    if (spec.action.type === 'delay' && !(spec.action.ms >= 0)) {
      throw new RangeError(`delay must be a non-negative number of milliseconds, got ${spec.action.ms}`);
    }
    if (
      spec.inFlightOnly &&
      (spec.count !== undefined || spec.action.type === 'respond' || spec.action.type === 'cut')
    ) {
      throw new TypeError(
        'inFlightOnly applies to stall and delay rules without a count (cut() cuts requests in flight)',
      );
    }
    if (spec.action.type === 'respond' && !(spec.action.status >= 100 && spec.action.status <= 599)) {
      throw new RangeError(`respond needs an HTTP status 100–599, got ${spec.action.status}`);
    }
    this.id = id;
    this.action = spec.action;
    this.match = matchOf(spec);
    this.#remaining = spec.count;
    this.#inFlightOnly = spec.inFlightOnly === true;
    this.#onRemove = onRemove;
    this.refuseConnections = refuseConnections;
  }

  get remaining(): number | undefined {
    return this.#remaining;
  }

  get active(): boolean {
    return !this.#removed && (this.#remaining === undefined || this.#remaining > 0 || !this.terminal);
  }

  get terminal(): boolean {
    return this.action.type === 'respond' || this.action.type === 'cut';
  }

  get counted(): boolean {
    return this.#remaining !== undefined;
  }

  /** Whether a new request should be caught by this rule. */
  catches(request: ProxiedRequest): boolean {
    return (
      !this.#removed &&
      !this.#inFlightOnly &&
      (this.#remaining === undefined || this.#remaining > 0) &&
      matches(this.match, request)
    );
  }

  /** Applies the rule to a request: counts it and attaches stalls and delays. */
  take(exchange: Exchange, entry: LogEntry): void {
    this.hits++;
    if (this.#remaining !== undefined) this.#remaining--;
    entry.faults.push(this.action.type);
    this.attach(exchange);
    if (this.terminal && this.#remaining === 0) this.#onRemove(this);
  }

  attach(exchange: Exchange): void {
    if (this.action.type === 'stall') exchange.attachStall(this);
    else if (this.action.type === 'delay') exchange.attachDelay(this, this.action.ms);
    else return;
    this.#exchanges.add(exchange);
  }

  forget(exchange: Exchange): void {
    this.#exchanges.delete(exchange);
  }

  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    this.#onRemove(this);
    const held = [...this.#exchanges];
    this.#exchanges.clear();
    for (const exchange of held) exchange.detach(this);
  }

  resume(): void {
    this.remove();
  }

  heal(): void {
    this.remove();
  }

  cut(): number {
    const held = [...this.#exchanges].filter((e) => !e.closed);
    for (const exchange of held) exchange.cut();
    this.remove();
    return held.length;
  }
}

class FaultProxyServer implements FaultProxy {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly #ca: TinyCA;
  readonly #server: https.Server;
  readonly #upstream: URL;
  readonly #servername: string | undefined;
  readonly #adminAgent: https.Agent;
  readonly #plainAgent: https.Agent;
  readonly #adminHeaders: Readonly<Record<string, string>>;
  readonly #logLimit: number;
  readonly #signal: AbortSignal | undefined;
  /** Client sockets, each with a promise that resolves once its 'close' was handled. */
  readonly #sockets = new Map<Socket, Promise<void>>();
  readonly #upstreamSockets = new Map<Socket, Promise<void>>();
  /** TLS connections, with the identity of their client certificate (if any). */
  readonly #tlsSockets = new Map<TLSSocket, Identity | undefined>();
  readonly #exchanges = new Set<Exchange>();
  readonly #entries = new WeakMap<Exchange, LogEntry>();
  readonly #listeners = new Set<() => void>();
  readonly #waitRejects = new Set<(err: Error) => void>();
  #rules: Rule[] = [];
  #log: LogEntry[] = [];
  #counts = zeroCounts();
  #total = 0;
  #nextRequestId = 1;
  #nextRuleId = 1;
  #stopping: Promise<void> | undefined;

  constructor(init: {
    server: https.Server;
    ca: TinyCA;
    upstream: URL;
    servername: string | undefined;
    adminAgent: https.Agent;
    plainAgent: https.Agent;
    adminHeaders: Record<string, string>;
    logLimit: number;
    signal: AbortSignal | undefined;
  }) {
    this.#server = init.server;
    this.#ca = init.ca;
    this.caPem = init.ca.certPem;
    this.#upstream = init.upstream;
    this.#servername = init.servername;
    this.#adminAgent = init.adminAgent;
    this.#plainAgent = init.plainAgent;
    this.#adminHeaders = init.adminHeaders;
    this.#logLimit = init.logLimit;
    this.#signal = init.signal;
    this.port = (init.server.address() as AddressInfo).port;
    this.url = `https://127.0.0.1:${this.port}`;
    init.server.on('connection', (socket: Socket) => this.#onConnection(socket));
    init.server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(req, res));
    init.server.on('secureConnection', (socket: TLSSocket) => this.#onSecureConnection(socket));
    init.server.on('upgrade', (req: IncomingMessage, socket: Socket) => this.#onUpgrade(req, socket));
    init.server.on('clientError', (_err: Error, socket: Socket) => socket.destroy());
    init.server.on('tlsClientError', () => {});
    init.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  // ---- clients -------------------------------------------------------------------------------

  kubeConfig(user = 'admin', groups?: readonly string[]): KubeConfig {
    const pair = this.clientCertificate(user, groups ?? (user === 'admin' ? ['system:masters'] : []));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'kubeloom-fault-proxy', server: this.url, caData: b64(this.caPem), skipTLSVerify: false },
      ],
      users: [{ name: user, certData: b64(pair.certPem), keyData: b64(pair.keyPem) }],
      contexts: [{ name: 'kubeloom-fault-proxy', cluster: 'kubeloom-fault-proxy', user }],
      currentContext: 'kubeloom-fault-proxy',
    });
    return kc;
  }

  clientCertificate(user: string, groups: readonly string[] = []): CertificatePair {
    return this.#ca.issue({ commonName: user, organizations: groups, usage: 'client' });
  }

  // ---- rules ---------------------------------------------------------------------------------

  addRule(spec: FaultRuleSpec): FaultRule {
    return this.#install(spec);
  }

  respond(status: number, options: RequestMatch & RuleScope & RespondOptions = {}): FaultRule {
    const { reason, message, retryAfterSeconds, asWatchEvent } = options;
    return this.#install({
      ...matchOf(options),
      count: options.count,
      action: { type: 'respond', status, reason, message, retryAfterSeconds, asWatchEvent },
    });
  }

  stall(match: RequestMatch & RuleScope = {}): StallHandle {
    return this.#install({
      ...matchOf(match),
      count: match.count,
      inFlightOnly: match.inFlightOnly,
      action: { type: 'stall' },
    });
  }

  delay(ms: number, match: RequestMatch & RuleScope = {}): FaultRule {
    return this.#install({
      ...matchOf(match),
      count: match.count,
      inFlightOnly: match.inFlightOnly,
      action: { type: 'delay', ms },
    });
  }

  blackhole(options: BlackholeOptions = {}): Blackhole {
    const match: RequestMatch = options.user !== undefined ? { user: options.user } : {};
    if (options.mode === 'refuse') {
      const rule = this.#install({ ...match, action: { type: 'cut' } }, options.user === undefined);
      if (options.user === undefined) this.cut();
      else {
        this.cut({ user: options.user });
        for (const [socket, identity] of [...this.#tlsSockets]) {
          if (identity?.user === options.user) socket.destroy(); // idle keep-alive connections
        }
      }
      return rule;
    }
    return this.#install({ ...match, action: { type: 'stall' } });
  }

  clearRules(): void {
    for (const rule of [...this.#rules]) rule.remove();
  }

  rules(): readonly FaultRule[] {
    return [...this.#rules];
  }

  #install(spec: FaultRuleSpec, refuseConnections = false): Rule {
    this.#assertRunning();
    const rule = new Rule(this.#nextRuleId++, spec, (r) => this.#forgetRule(r), refuseConnections);
    this.#rules.push(rule);
    if (!rule.terminal && !rule.counted) {
      for (const exchange of this.#exchanges) {
        const entry = this.#entries.get(exchange);
        if (entry && !exchange.closed && matches(rule.match, entry)) {
          rule.hits++;
          entry.faults.push(rule.action.type);
          rule.attach(exchange);
        }
      }
    }
    this.#changed();
    return rule;
  }

  #forgetRule(rule: Rule): void {
    const i = this.#rules.indexOf(rule);
    if (i !== -1) this.#rules.splice(i, 1);
    this.#changed();
  }

  // ---- immediate faults ----------------------------------------------------------------------

  cut(match?: RequestMatch): number {
    const sockets = new Set<Socket>();
    for (const exchange of this.#exchanges) {
      const entry = this.#entries.get(exchange);
      if (entry && !exchange.closed && matches(match, entry)) {
        entry.faults.push('cut');
        sockets.add(exchange.req.socket);
        exchange.cut();
      }
    }
    if (match !== undefined) return sockets.size;
    const all = [...this.#sockets.keys()];
    for (const socket of all) socket.destroy();
    this.#changed();
    return all.length;
  }

  injectLine(line: string, options: InjectOptions = {}): number {
    return this.#inject(line.endsWith('\n') ? line : `${line}\n`, options.close ?? false, options);
  }

  injectEvent(
    event: { readonly type: string; readonly object: unknown },
    options: InjectOptions = {},
  ): number {
    return this.#inject(
      `${JSON.stringify({ type: event.type, object: event.object })}\n`,
      options.close ?? false,
      options,
    );
  }

  injectError(code = 410, options: InjectErrorOptions = {}): number {
    const object = statusObject(code, { reason: options.reason, message: options.message });
    return this.#inject(`${JSON.stringify({ type: 'ERROR', object })}\n`, options.close ?? true, options);
  }

  #inject(text: string, close: boolean, match: RequestMatch): number {
    this.#assertRunning();
    const data = Buffer.from(text);
    let n = 0;
    for (const exchange of this.#exchanges) {
      const entry = this.#entries.get(exchange);
      if (!entry || !exchange.activeWatch || !matches(match, entry)) continue;
      entry.faults.push('inject');
      exchange.inject(data, close);
      n++;
    }
    return n;
  }

  // ---- observation ---------------------------------------------------------------------------

  stats(): FaultProxyStats {
    let activeWatches = 0;
    let heldRequests = 0;
    let delayedRequests = 0;
    for (const exchange of this.#exchanges) {
      if (exchange.activeWatch) activeWatches++;
      if (exchange.held) heldRequests++;
      if (exchange.delayed) delayedRequests++;
    }
    return {
      requests: { ...this.#counts },
      totalRequests: this.#total,
      activeConnections: this.#sockets.size,
      activeRequests: this.#exchanges.size,
      activeWatches,
      heldRequests,
      delayedRequests,
      rules: this.#rules.length,
    };
  }

  requests(match?: RequestMatch): readonly ProxiedRequest[] {
    return this.#log.filter((e) => matches(match, e)).map((e) => ({ ...e, faults: [...e.faults] }));
  }

  count(match?: RequestMatch): number {
    let n = 0;
    for (const entry of this.#log) if (matches(match, entry)) n++;
    return n;
  }

  resetStats(): void {
    this.#counts = zeroCounts();
    this.#total = 0;
    this.#log = [];
    this.#changed();
  }

  async waitForWatches(count = 1, options: RequestMatch & WaitOptions = {}): Promise<void> {
    const match = matchOf(options);
    const open = (): number => {
      let n = 0;
      for (const exchange of this.#exchanges) {
        const entry = this.#entries.get(exchange);
        if (entry && exchange.activeWatch && matches(match, entry)) n++;
      }
      return n;
    };
    await this.waitUntil(() => open() >= count, { ...options, description: `${count} open watch(es)` });
  }

  async waitForRequests(count: number, options: RequestMatch & WaitOptions = {}): Promise<void> {
    const match = matchOf(options);
    await this.waitUntil(() => this.count(match) >= count, {
      ...options,
      description: `${count} matching request(s)`,
    });
  }

  async waitUntil(
    condition: () => boolean,
    options: WaitOptions & { readonly description?: string } = {},
  ): Promise<void> {
    this.#assertRunning();
    if (condition()) return;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const signal = options.signal;
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const finish = (err?: unknown): void => {
        clearTimeout(timer);
        clearInterval(poll);
        this.#listeners.delete(check);
        this.#waitRejects.delete(finish);
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) resolve();
        else reject(err);
      };
      const check = (): void => {
        try {
          if (condition()) finish();
        } catch (err) {
          finish(err);
        }
      };
      const onAbort = (): void => finish(signal?.reason ?? new Error('aborted'));
      const timer = setTimeout(() => {
        finish(
          new Error(
            `fault proxy: timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'} ` +
              `(stats: ${JSON.stringify(this.stats())})`,
          ),
        );
      }, timeoutMs);
      // Conditions may also depend on the client side, which the proxy does not see change.
      const poll = setInterval(check, 10);
      this.#listeners.add(check);
      this.#waitRejects.add(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  readonly #onAbort = (): void => {
    void this.stop();
  };

  async #shutdown(): Promise<void> {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    // Cut first, so that requests held by a stall are dropped, not forwarded, when rules go.
    for (const exchange of this.#exchanges) exchange.cut();
    for (const rule of [...this.#rules]) rule.remove();
    for (const reject of [...this.#waitRejects]) reject(new Error('fault proxy stopped'));
    this.#server.closeAllConnections();
    const pending = [
      closed,
      ...this.#sockets.values(),
      ...this.#upstreamSockets.values(),
      ...[...this.#exchanges].map((e) => e.done),
    ];
    for (const socket of this.#sockets.keys()) socket.destroy();
    for (const exchange of this.#exchanges) exchange.upstreamReq?.destroy();
    this.#adminAgent.destroy();
    this.#plainAgent.destroy();
    for (const socket of this.#upstreamSockets.keys()) socket.destroy();
    // The server reports 'close' before its TLS sockets do; wait for every socket and exchange.
    await Promise.all(pending);
  }

  #assertRunning(): void {
    if (this.#stopping) throw new Error('the fault proxy is stopped');
  }

  // ---- the data path -------------------------------------------------------------------------

  #onConnection(socket: Socket): void {
    if (this.#stopping || this.#rules.some((r) => r.refuseConnections)) {
      socket.destroy();
      return;
    }
    this.#sockets.set(
      socket,
      new Promise((resolve) =>
        socket.once('close', () => {
          this.#sockets.delete(socket);
          this.#changed();
          resolve();
        }),
      ),
    );
    this.#changed();
  }

  #onSecureConnection(socket: TLSSocket): void {
    const identity = identify(socket, {});
    this.#tlsSockets.set(socket, identity.authentication === 'anonymous' ? undefined : identity);
    socket.once('close', () => this.#tlsSockets.delete(socket));
  }

  #onUpgrade(req: IncomingMessage, socket: Socket): void {
    const body = JSON.stringify(
      statusObject(501, {
        reason: 'NotImplemented',
        message: `the fault proxy does not forward protocol upgrades (${req.headers.upgrade ?? 'unknown'})`,
      }),
    );
    socket.end(
      `HTTP/1.1 501 Not Implemented\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  #record(req: IncomingMessage, identity: Identity): LogEntry {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    const info = requestInfo(method, url);
    const entry: LogEntry = {
      id: this.#nextRequestId++,
      method,
      url,
      ...info,
      authentication: identity.authentication === 'rejected' ? 'certificate' : identity.authentication,
      ...(identity.user !== undefined ? { user: identity.user } : {}),
      groups: identity.groups,
      faults: [],
    };
    this.#counts[entry.verb]++;
    this.#total++;
    this.#log.push(entry);
    if (this.#log.length > this.#logLimit) this.#log.splice(0, this.#log.length - this.#logLimit);
    return entry;
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as TLSSocket;
    // A certificate identity belongs to the connection; bearer vs anonymous is per request.
    const identity = this.#tlsSockets.get(socket) ?? identify(socket, req.headers);
    const entry = this.#record(req, identity);
    const exchange: Exchange = new Exchange(req, res, entry.watch, {
      changed: () => {
        entry.status = exchange.status;
        this.#changed();
      },
      closed: (e) => {
        entry.status = e.status;
        this.#exchanges.delete(e);
        this.#changed();
      },
    });
    this.#exchanges.add(exchange);
    this.#entries.set(exchange, entry);
    this.#changed();
    if (identity.authentication === 'rejected') {
      req.resume();
      void this.#answer(exchange, 401, {
        message: 'the client certificate is not signed by a CA the fault proxy trusts',
      });
      return;
    }
    let terminal: Rule | undefined;
    for (const rule of [...this.#rules]) {
      if (!rule.catches(entry)) continue;
      if (rule.terminal) {
        if (terminal) continue;
        terminal = rule;
      }
      rule.take(exchange, entry);
    }
    void this.#dispatch(exchange, entry, identity, terminal);
  }

  async #dispatch(
    exchange: Exchange,
    entry: LogEntry,
    identity: Identity,
    terminal: Rule | undefined,
  ): Promise<void> {
    if (!(await exchange.release())) return;
    if (this.#stopping) {
      exchange.cut();
      return;
    }
    const action = terminal?.action;
    if (action?.type === 'cut') {
      exchange.cut();
      return;
    }
    if (action?.type === 'respond') {
      exchange.req.resume();
      if (action.asWatchEvent && entry.watch) {
        const event = { type: 'ERROR', object: statusObject(action.status, action) };
        await exchange.respond(200, { 'content-type': 'application/json' }, `${JSON.stringify(event)}\n`);
      } else {
        await this.#answer(exchange, action.status, action);
      }
      return;
    }
    this.#forward(exchange, entry, identity);
  }

  async #answer(exchange: Exchange, status: number, fields: RespondOptions): Promise<void> {
    const headers: OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'cache-control': 'no-cache, private',
    };
    if (fields.retryAfterSeconds !== undefined) headers['retry-after'] = String(fields.retryAfterSeconds);
    await exchange.respond(status, headers, JSON.stringify(statusObject(status, fields)));
  }

  #forward(exchange: Exchange, entry: LogEntry, identity: Identity): void {
    const { req } = exchange;
    const headers: OutgoingHttpHeaders = {};
    const impersonating = req.headers['impersonate-user'] !== undefined;
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (identity.authentication === 'certificate') {
        if (name === 'authorization') continue;
        if (name.startsWith('impersonate-') && !impersonating) continue;
      }
      if (entry.watch && name === 'accept-encoding') continue; // keep watch bytes plain for injection
      headers[name] = value;
    }
    headers.host = this.#upstream.host;
    let agent = this.#plainAgent;
    if (identity.authentication === 'certificate') {
      agent = this.#adminAgent;
      Object.assign(headers, this.#adminHeaders);
      if (!impersonating) {
        if (identity.user !== undefined) headers['impersonate-user'] = identity.user;
        if (identity.groups.length > 0) headers['impersonate-group'] = [...identity.groups];
      }
    }
    const upstream = https.request({
      protocol: 'https:',
      hostname: this.#upstream.hostname.replace(/^\[|\]$/g, ''),
      port: this.#upstream.port || 443,
      method: req.method,
      path: req.url,
      headers,
      agent,
      ...(this.#servername !== undefined ? { servername: this.#servername } : {}),
    });
    exchange.upstreamReq = upstream;
    upstream.on('socket', (socket: Socket) => {
      if (this.#upstreamSockets.has(socket)) return;
      this.#upstreamSockets.set(
        socket,
        new Promise((resolve) =>
          socket.once('close', () => {
            this.#upstreamSockets.delete(socket);
            resolve();
          }),
        ),
      );
    });
    upstream.on('response', (upstreamRes) => {
      exchange.upstreamRes = upstreamRes;
      void this.#pump(exchange, upstreamRes);
    });
    upstream.on('error', (err) => {
      if (exchange.closed) return;
      if (exchange.headSent) exchange.cut();
      else
        void this.#answer(exchange, 502, {
          message: `the fault proxy could not reach the apiserver: ${err.message}`,
        });
    });
    req.pipe(upstream);
  }

  async #pump(exchange: Exchange, upstreamRes: IncomingMessage): Promise<void> {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(upstreamRes.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (exchange.watch && name === 'content-length') continue;
      headers[name] = value;
    }
    try {
      if (!(await exchange.sendHead(upstreamRes.statusCode ?? 502, headers))) {
        upstreamRes.destroy();
        return;
      }
      for await (const chunk of upstreamRes) {
        if (!(await exchange.sendChunk(chunk as Buffer))) {
          upstreamRes.destroy();
          return;
        }
      }
      await exchange.end();
    } catch {
      exchange.cut();
    }
  }
}

/**
 * Starts a fault-injection proxy on 127.0.0.1 in front of an apiserver.
 *
 * The proxy terminates TLS with its own CA ({@link FaultProxy.caPem}) and asks for a client
 * certificate. A client with a certificate the proxy trusts (issued by
 * {@link FaultProxy.kubeConfig} or {@link FaultProxy.clientCertificate}, or signed by the
 * upstream's CA when known) is forwarded with the upstream's admin credentials and
 * `Impersonate-User` (the CN) / `Impersonate-Group` (each O), so the apiserver authorizes the
 * request as that user. A bearer token is passed through unchanged, without admin credentials;
 * a request with neither reaches the apiserver anonymously. Watch responses are forwarded chunk
 * by chunk as they arrive. Protocol upgrades (exec, port-forward) are answered with 501.
 *
 * @example
 * ```ts
 * await using proxy = await startFaultProxy({ upstream: sharedControlPlane() });
 * const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
 * proxy.respond(429, { verb: 'list', count: 1, retryAfterSeconds: 1 });
 * await expect(core.listNamespacedConfigMap({ namespace })).rejects.toMatchObject({ code: 429 });
 * const stall = proxy.stall({ watch: true });   // hold every watch byte …
 * stall.resume();                                // … and deliver it
 * proxy.cut({ watch: true });                    // reset every watch connection now
 * expect(proxy.stats().requests.list).toBe(2);
 * ```
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  options.signal?.throwIfAborted();
  const upstream = new URL(options.upstream.server);
  if (upstream.protocol !== 'https:') {
    throw new TypeError(
      `the fault proxy forwards to https:// apiservers only, got ${options.upstream.server}`,
    );
  }
  const tls: https.RequestOptions = {};
  await options.upstream.kubeConfig.applyToHTTPSOptions(tls);
  const upstreamCa = options.upstream.caPem ?? pemOf(tls.ca);
  if (!upstreamCa && tls.rejectUnauthorized !== false) {
    throw new Error(
      "the fault proxy needs the apiserver's CA: pass upstream.caPem or a kubeConfig whose cluster has certificate-authority data",
    );
  }
  const adminHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(tls.headers ?? {})) {
    if (typeof value === 'string') adminHeaders[name.toLowerCase()] = value;
  }
  if (tls.auth) adminHeaders.authorization = `Basic ${Buffer.from(tls.auth).toString('base64')}`;
  const verify = {
    ...(upstreamCa ? { ca: upstreamCa } : {}),
    ...(tls.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
  };
  const adminAgent = new https.Agent({
    keepAlive: true,
    ...verify,
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
  });
  const plainAgent = new https.Agent({ keepAlive: true, ...verify });

  const ca = new TinyCA('kubeloom-fault-proxy-ca');
  const serving = ca.issue({
    commonName: 'kubeloom-fault-proxy',
    hosts: ['127.0.0.1', 'localhost'],
    usage: 'server',
  });
  const server = https.createServer({
    key: serving.keyPem,
    cert: serving.certPem,
    ca: upstreamCa ? [ca.certPem, upstreamCa] : [ca.certPem],
    requestCert: true,
    rejectUnauthorized: false,
    requestTimeout: 0,
    headersTimeout: 60_000,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    adminAgent.destroy();
    plainAgent.destroy();
    throw err;
  }
  const proxy = new FaultProxyServer({
    server,
    ca,
    upstream,
    servername: tls.servername,
    adminAgent,
    plainAgent,
    adminHeaders,
    logLimit: options.logLimit ?? 10_000,
    signal: options.signal,
  });
  if (options.signal?.aborted) await proxy.stop();
  return proxy;
}
