import type { KubeConfig } from '@kubernetes/client-node';
import type { CertificatePair } from './certs.ts';

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
