import type { IncomingMessage, ServerResponse } from 'node:http';
import type https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import type { CertificateAuthority, CertificatePair } from '../certs.ts';
import type {
  Blackhole,
  BlackholeOptions,
  FaultProxy,
  FaultProxyStats,
  FaultRule,
  FaultRuleSpec,
  InjectErrorOptions,
  InjectOptions,
  ProxiedRequest,
  RequestMatch,
  RespondOptions,
  RuleScope,
  StallHandle,
  WaitOptions,
} from '../fault-proxy-contract.ts';
import { type Identity, identify } from './client-identity.ts';
import { Exchange } from './exchange.ts';
import { Rule } from './fault-rule.ts';
import { type LogEntry, RequestLog } from './request-log.ts';
import { matches, matchOf } from './request-match.ts';
import { sendStatus, statusObject } from './status.ts';
import type { UpstreamPump } from './upstream-pump.ts';

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/**
 * The {@link FaultProxy} behind {@link startFaultProxy}: owns the TLS listener, the client
 * connections, the rules and the request log, and decides per request whether to answer, cut,
 * hold or forward it (through its {@link UpstreamPump}).
 */
export class FaultProxyServer implements FaultProxy {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly #ca: CertificateAuthority;
  readonly #server: https.Server;
  readonly #pump: UpstreamPump;
  readonly #log: RequestLog;
  readonly #signal: AbortSignal | undefined;
  /** Client sockets, each with a promise that resolves once its 'close' was handled. */
  readonly #sockets = new Map<Socket, Promise<void>>();
  /** TLS connections, with the identity of their client certificate (if any). */
  readonly #tlsSockets = new Map<TLSSocket, Identity | undefined>();
  readonly #exchanges = new Set<Exchange>();
  readonly #entries = new WeakMap<Exchange, LogEntry>();
  readonly #listeners = new Set<() => void>();
  readonly #waitRejects = new Set<(err: Error) => void>();
  #rules: Rule[] = [];
  #nextRuleId = 1;
  #stopping: Promise<void> | undefined;

  /** Takes over a listening `server` whose certificates `ca` issued, and `pump` to the apiserver. */
  constructor(init: {
    server: https.Server;
    ca: CertificateAuthority;
    pump: UpstreamPump;
    logLimit: number;
    signal: AbortSignal | undefined;
  }) {
    this.#server = init.server;
    this.#ca = init.ca;
    this.caPem = init.ca.certPem;
    this.#pump = init.pump;
    this.#log = new RequestLog(init.logLimit);
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
    const rule = new Rule(this.#nextRuleId++, spec, {
      onRemove: (r) => this.#forgetRule(r),
      refuseConnections,
    });
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
      requests: { ...this.#log.counts },
      totalRequests: this.#log.total,
      activeConnections: this.#sockets.size,
      activeRequests: this.#exchanges.size,
      activeWatches,
      heldRequests,
      delayedRequests,
      rules: this.#rules.length,
    };
  }

  requests(match?: RequestMatch): readonly ProxiedRequest[] {
    return this.#log.requests(match);
  }

  count(match?: RequestMatch): number {
    return this.#log.count(match);
  }

  resetStats(): void {
    this.#log.reset();
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
      ...this.#pump.socketsClosed(),
      ...[...this.#exchanges].map((e) => e.done),
    ];
    for (const socket of this.#sockets.keys()) socket.destroy();
    for (const exchange of this.#exchanges) exchange.upstreamReq?.destroy();
    this.#pump.destroy();
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

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as TLSSocket;
    // A certificate identity belongs to the connection; bearer vs anonymous is per request.
    const identity = this.#tlsSockets.get(socket) ?? identify(socket, req.headers);
    const entry = this.#log.record(req, identity);
    const exchange: Exchange = new Exchange(req, res, {
      watch: entry.watch,
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
      void sendStatus(exchange, 401, {
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
    void this.#dispatch(exchange, { entry, identity, terminal });
  }

  async #dispatch(
    exchange: Exchange,
    { entry, identity, terminal }: { entry: LogEntry; identity: Identity; terminal: Rule | undefined },
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
        await sendStatus(exchange, action.status, action);
      }
      return;
    }
    this.#pump.forward(exchange, identity);
  }
}
