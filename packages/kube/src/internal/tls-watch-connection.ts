import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { Http1ResponseReader } from './http1-response-reader.ts';
import { closedEarly, type OpenWatchConnection, type WatchConnection } from './watch-connection.ts';

/** The TLS settings of the client's agent that a watch connection uses too. */
interface WatchTlsOptions {
  readonly ca?: tls.ConnectionOptions['ca'];
  readonly cert?: tls.ConnectionOptions['cert'];
  readonly key?: tls.ConnectionOptions['key'];
  readonly rejectUnauthorized?: boolean | undefined;
  /** The kubeconfig's `tls-server-name`; by default the URL's host name (no SNI for an IP address). */
  readonly servername?: string | undefined;
}

/** One watch request over its own TLS connection. */
export interface TlsWatchRequest {
  /** An `https:` URL with the watch query. */
  readonly url: URL;
  /** The request's header fields (User-Agent, Accept, credentials). */
  readonly headers: Readonly<Record<string, string>>;
  /** `user:password` for basic authentication, sent unless `headers` has an Authorization field. */
  readonly auth?: string | undefined;
  readonly tls: WatchTlsOptions;
  /**
   * Holds, while the connection is open, a function that cuts it as a reset would (the stream
   * then fails with a reset): how its client closes every watch on dispose.
   */
  readonly live?: Set<() => void> | undefined;
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
  const { url, tls: options, live } = request;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const servername = options.servername ?? (isIP(host) ? undefined : host);
  const head = requestHead(request);
  return (events) => {
    let closed = false;
    const socket = tls.connect({
      host,
      port: Number(url.port || 443),
      ALPNProtocols: ['http/1.1'],
      ...(servername !== undefined ? { servername } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.cert !== undefined ? { cert: options.cert } : {}),
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    });
    const connection: WatchConnection = {
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      destroy: () => {
        closed = true;
        live?.delete(cut);
        socket.destroy();
      },
    };
    const reader = new Http1ResponseReader({
      onHead: events.head,
      onBody: events.body,
      onComplete: events.end,
    });
    const fail = (err: unknown): void => {
      if (closed) return;
      connection.destroy();
      events.fail(err);
    };
    const cut = (): void => fail(closedEarly());
    live?.add(cut);
    socket.on('data', (data: Buffer) => {
      let done: boolean;
      try {
        done = reader.push(data);
      } catch (err) {
        fail(err);
        return;
      }
      if (!done) events.readEnd();
    });
    socket.on('end', () => {
      // Completes a body delimited by the connection's end.
      if (!reader.end()) fail(closedEarly());
    });
    socket.on('error', fail);
    socket.on('close', () => {
      if (!reader.complete) fail(closedEarly());
      live?.delete(cut);
    });
    socket.write(head); // sent once the handshake is done
    return connection;
  };
}

/** The request line and header fields, validated as node:http validates them. */
function requestHead(request: TlsWatchRequest): string {
  const { url, headers, auth } = request;
  const fields: Array<[string, string]> = [];
  let hasAuthorization = false;
  let hasHost = false;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'connection') continue; // this connection closes with its response
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
  fields.push(['Connection', 'close']);
  let text = `GET ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const [name, value] of fields) text += `${name}: ${value}\r\n`;
  return `${text}\r\n`;
}
