import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import { Http1ResponseReader } from './http1-response-reader.ts';
import { openTunnel } from './proxy-tunnel.ts';
import type { ProxyConfig } from './proxy-url.ts';
import { closedEarly, type OpenWatchConnection, type WatchConnection } from './watch-connection.ts';

/** The TLS settings of the client's agent that its watch connections use too. */
interface WatchTlsOptions {
  readonly ca?: tls.SecureContextOptions['ca'];
  readonly cert?: tls.SecureContextOptions['cert'];
  readonly key?: tls.SecureContextOptions['key'];
  readonly rejectUnauthorized?: boolean | undefined;
  /** The kubeconfig's `tls-server-name`; by default the URL's host name (no SNI for an IP address). */
  readonly servername?: string | undefined;
}

/**
 * The TLS state a client's watch connections share: one secure context (the CA, client
 * certificate and key parsed once, not per connection) and the last session the server issued,
 * which the next connection resumes, as node:https's agent does for its sockets.
 */
export class WatchTls {
  /** The agent's settings. */
  readonly options: WatchTlsOptions;
  #context: tls.SecureContext | undefined;
  /** The session to resume; dropped when a connection fails before its response. */
  session: Buffer | undefined;

  /** Creates the state for connections with `options`. */
  constructor(options: WatchTlsOptions) {
    this.options = options;
  }

  /** The secure context, created at the first connection. */
  get context(): tls.SecureContext {
    this.#context ??= tls.createSecureContext({
      ...(this.options.ca !== undefined ? { ca: this.options.ca } : {}),
      ...(this.options.cert !== undefined ? { cert: this.options.cert } : {}),
      ...(this.options.key !== undefined ? { key: this.options.key } : {}),
    });
    return this.#context;
  }

  /**
   * A TLS connection to the server of `url` (over `tunnel`, a proxy's, when given) with these
   * settings and ALPN `http/1.1`, resuming the last session and keeping the next one the server
   * issues. SNI is the `tls-server-name`, else the URL's host name (none for an IP address).
   */
  connect(url: URL, tunnel?: Socket): tls.TLSSocket {
    const { host, port } = serverAddress(url);
    const { rejectUnauthorized } = this.options;
    const servername = this.options.servername ?? (isIP(host) ? undefined : host);
    const socket = tls.connect({
      host,
      port,
      ...(tunnel ? { socket: tunnel } : {}),
      ALPNProtocols: ['http/1.1'],
      secureContext: this.context,
      ...(servername !== undefined ? { servername } : {}),
      ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
      ...(this.session !== undefined ? { session: this.session } : {}),
    });
    socket.on('session', (session: Buffer) => {
      this.session = session;
    });
    return socket;
  }
}

/** The host (an IPv6 literal without its brackets) and port of an `https:` URL. */
function serverAddress(url: URL): { readonly host: string; readonly port: number } {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: Number(url.port || 443) };
}

/** One watch request over its own TLS connection. */
export interface TlsWatchRequest {
  /** An `https:` URL with the watch query. */
  readonly url: URL;
  /** The request's header fields (User-Agent, Accept, credentials). */
  readonly headers: Readonly<Record<string, string>>;
  /** `user:password` for basic authentication, sent unless `headers` has an Authorization field. */
  readonly auth?: string | undefined;
  readonly tls: WatchTls;
  /**
   * Holds, while the connection is open, a function that cuts it as a reset would (the stream
   * then fails with a reset): how its client closes every watch on dispose.
   */
  readonly live?: Set<() => void> | undefined;
  /**
   * The cluster's `proxy-url`: the connection is then a tunnel of its own through it
   * ({@link openTunnel}, bounded by `timeoutMs`), TLS to the server running over it.
   */
  readonly proxy?: { readonly config: ProxyConfig; readonly timeoutMs: number } | undefined;
}

/**
 * A watch request written as HTTP/1.1 straight onto a TLS socket of its own (`Connection: close`,
 * ALPN `http/1.1`), its response decoded by {@link Http1ResponseReader}: no `ClientRequest`,
 * llhttp, `IncomingMessage` or stream machinery between the socket's reads and the line decoder,
 * which is most of what a watch event costs in `node:https`. A watch holds its connection for its
 * whole life, so an agent's pooling buys it nothing.
 * @throws TypeError (from node:http's validation) for a header that cannot be sent, when called.
 */
export function tlsWatchConnection(request: TlsWatchRequest): OpenWatchConnection {
  const { url, tls: shared, live, proxy } = request;
  const { ca, rejectUnauthorized } = shared.options;
  const { host, port } = serverAddress(url);
  const head = requestHead(request);
  return (events) => {
    let closed = false;
    let paused = false;
    /** Set once connected: at once, or once the proxy opened the tunnel. */
    let socket: tls.TLSSocket | undefined;
    const dialing = proxy ? new AbortController() : undefined;
    const connection: WatchConnection = {
      pause: () => {
        paused = true;
        socket?.pause();
      },
      resume: () => {
        paused = false;
        socket?.resume();
      },
      destroy: () => {
        closed = true;
        live?.delete(cut);
        dialing?.abort();
        socket?.destroy();
      },
    };
    let answered = false;
    const reader = new Http1ResponseReader({
      onHead: (head) => {
        answered = true;
        events.head(head);
      },
      onBody: events.body,
      onComplete: events.end,
    });
    const fail = (err: unknown): void => {
      if (closed) return;
      // A session that led nowhere (the server restarted, its certificate changed) is not tried again.
      if (!answered) shared.session = undefined;
      connection.destroy();
      events.fail(err);
    };
    const cut = (): void => fail(closedEarly());
    live?.add(cut);
    /** TLS to the server, over `tunnel` when there is a proxy. */
    const secure = (tunnel?: Socket): void => {
      const tlsSocket = shared.connect(url, tunnel);
      socket = tlsSocket;
      tlsSocket.on('data', (data: Buffer) => {
        let done: boolean;
        try {
          done = reader.push(data);
        } catch (err) {
          fail(err);
          return;
        }
        if (!done) events.readEnd();
      });
      tlsSocket.on('end', () => {
        // Completes a body delimited by the connection's end.
        if (!reader.end()) fail(closedEarly());
      });
      tlsSocket.on('error', fail);
      tlsSocket.on('close', () => {
        if (!reader.complete) fail(closedEarly());
        live?.delete(cut);
      });
      if (paused) tlsSocket.pause();
      tlsSocket.write(head); // sent once the handshake is done
    };
    if (!proxy) secure();
    else {
      // A failed tunnel fails the watch as a failed connection would (the client wraps it).
      openTunnel({
        proxy: proxy.config,
        target: { host, port },
        proxyTls: { ca, rejectUnauthorized },
        signal: dialing!.signal,
        timeoutMs: proxy.timeoutMs,
      }).then((tunnel) => (closed ? tunnel.destroy() : secure(tunnel)), fail);
    }
    return connection;
  };
}

/**
 * The request line and header fields of a GET, validated as node:http validates them, with
 * `Connection: close` unless `opts.close` is false (a connection kept for the next request).
 */
export function requestHead(
  request: Pick<TlsWatchRequest, 'url' | 'headers' | 'auth'>,
  opts: { readonly close: boolean } = { close: true },
): string {
  const { url, headers, auth } = request;
  const fields: Array<[string, string]> = [];
  let hasAuthorization = false;
  let hasHost = false;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'connection') continue; // set below
    validateHeaderName(name);
    validateHeaderValue(name, value);
    hasAuthorization ||= lower === 'authorization';
    hasHost ||= lower === 'host';
    fields.push([name, value]);
  }
  if (!hasHost) fields.unshift(['Host', url.host]);
  const credentials =
    auth ??
    (url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined);
  if (credentials !== undefined && !hasAuthorization)
    fields.push(['Authorization', `Basic ${Buffer.from(credentials).toString('base64')}`]);
  if (opts.close) fields.push(['Connection', 'close']);
  let text = `GET ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const [name, value] of fields) text += `${name}: ${value}\r\n`;
  return `${text}\r\n`;
}
