import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';

/** How the test proxy behaves. */
export interface ConnectProxyOptions {
  /** `user:password` the proxy requires in `Proxy-Authorization: Basic` (else it answers 407). */
  readonly credentials?: string | undefined;
  /** Answers every `CONNECT` with this status line instead of tunnelling, e.g. `502 Bad Gateway`. */
  readonly refuse?: string | undefined;
  /** Never answers a `CONNECT` (the client's side stays open until it gives up). */
  readonly hang?: boolean | undefined;
  /** Serves TLS with this certificate: an `https://` proxy. */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined;
  /** Host names only the proxy can resolve, to the address it connects to instead. */
  readonly hosts?: Readonly<Record<string, string>> | undefined;
}

/** One `CONNECT` the proxy received. */
interface SeenConnect {
  /** The request target, `host:port`. */
  readonly target: string;
  readonly authorization: string | undefined;
}

/** A running test proxy. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>` (or `https://`), without credentials. */
  readonly url: string;
  /** Every `CONNECT` so far, in order. */
  readonly connects: readonly SeenConnect[];
  /** How many client connections are open at the proxy now. */
  openConnections(): number;
  /** How many tunnels are open now (each a client connection piped to its target). */
  openTunnels(): number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/**
 * An HTTP proxy that answers `CONNECT` as a forward proxy does (node:http's `'connect'` event,
 * then both sockets piped), recording what it was asked; or, per the options, requires basic
 * credentials, refuses, hangs, or serves TLS.
 */
export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const server = options.tls ? https.createServer(options.tls) : http.createServer();
  const connects: SeenConnect[] = [];
  const clients = new Set<net.Socket>();
  const tunnels = new Set<net.Socket>();
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: net.Socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
  });
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    connects.push({ target, authorization });
    client.on('error', () => {});
    if (options.hang) {
      // Reads (and drops) what the client sends, to see it close.
      client.on('end', () => client.destroy());
      client.resume();
      return;
    }
    const expected = options.credentials && `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    if (expected && authorization !== expected) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (options.refuse) {
      client.end(`HTTP/1.1 ${options.refuse}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const colon = target.lastIndexOf(':');
    const name = target.slice(0, colon).replace(/^\[|\]$/g, '');
    const upstream = net.connect({
      host: options.hosts?.[name] ?? name,
      port: Number(target.slice(colon + 1)),
    });
    tunnels.add(upstream);
    let connected = false;
    upstream.on('close', () => {
      tunnels.delete(upstream);
      if (connected) client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => {
      if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    upstream.on('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    connects,
    openConnections: () => clients.size,
    openTunnels: () => tunnels.size,
    close: async () => {
      for (const s of [...clients, ...tunnels]) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
