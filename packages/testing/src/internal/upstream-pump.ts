import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { FaultProxyUpstream } from '../fault-proxy-contract.ts';
import type { Identity } from './client-identity.ts';
import type { Exchange } from './exchange.ts';
import { sendStatus } from './status.ts';

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

function pemOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return value.map(pemOf).join('\n');
  return undefined;
}

/**
 * The fault proxy's way to the apiserver: forwards a request upstream (as the client's identity)
 * and pumps the response back through its {@link Exchange} chunk by chunk, so that stalls,
 * delays and injections apply to every byte.
 */
export class UpstreamPump {
  /** The CA that signed the apiserver's certificate, when known. */
  readonly caPem: string | undefined;
  readonly #upstream: URL;
  readonly #servername: string | undefined;
  /** Carries the upstream's admin credentials, for clients with a certificate. */
  readonly #adminAgent: https.Agent;
  /** Carries no credentials, for bearer and anonymous clients. */
  readonly #plainAgent: https.Agent;
  readonly #adminHeaders: Readonly<Record<string, string>>;
  /** Upstream sockets, each with a promise that resolves once it closed. */
  readonly #sockets = new Map<Socket, Promise<void>>();

  private constructor(init: {
    caPem: string | undefined;
    upstream: URL;
    servername: string | undefined;
    adminAgent: https.Agent;
    plainAgent: https.Agent;
    adminHeaders: Record<string, string>;
  }) {
    this.caPem = init.caPem;
    this.#upstream = init.upstream;
    this.#servername = init.servername;
    this.#adminAgent = init.adminAgent;
    this.#plainAgent = init.plainAgent;
    this.#adminHeaders = init.adminHeaders;
  }

  /**
   * Reads the upstream's URL, CA and admin credentials; throws for a non-https server or when the
   * apiserver's CA is unknown.
   */
  static async create(upstream: FaultProxyUpstream): Promise<UpstreamPump> {
    const url = new URL(upstream.server);
    if (url.protocol !== 'https:') {
      throw new TypeError(`the fault proxy forwards to https:// apiservers only, got ${upstream.server}`);
    }
    const tls: https.RequestOptions = {};
    await upstream.kubeConfig.applyToHTTPSOptions(tls);
    const upstreamCa = upstream.caPem ?? pemOf(tls.ca);
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
    return new UpstreamPump({
      caPem: upstreamCa,
      upstream: url,
      servername: tls.servername,
      adminAgent,
      plainAgent,
      adminHeaders,
    });
  }

  /**
   * Sends `exchange`'s request to the apiserver: with the admin credentials and impersonation
   * headers for a certificate `identity`, unchanged otherwise; then pumps the response back.
   */
  forward(exchange: Exchange, identity: Identity): void {
    const { req } = exchange;
    const headers: OutgoingHttpHeaders = {};
    const impersonating = req.headers['impersonate-user'] !== undefined;
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (identity.authentication === 'certificate') {
        if (name === 'authorization') continue;
        if (name.startsWith('impersonate-') && !impersonating) continue;
      }
      if (exchange.watch && name === 'accept-encoding') continue; // keep watch bytes plain for injection
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
      if (this.#sockets.has(socket)) return;
      this.#sockets.set(
        socket,
        new Promise((resolve) =>
          socket.once('close', () => {
            this.#sockets.delete(socket);
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
        void sendStatus(exchange, 502, {
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

  /** Promises that resolve once each upstream socket open now has closed. */
  socketsClosed(): Promise<void>[] {
    return [...this.#sockets.values()];
  }

  /** Destroys the agents and every upstream socket. */
  destroy(): void {
    this.#adminAgent.destroy();
    this.#plainAgent.destroy();
    for (const socket of this.#sockets.keys()) socket.destroy();
  }
}
