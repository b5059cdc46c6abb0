import net, { type AddressInfo } from 'node:net';

/** One SOCKS5 `CONNECT` the test proxy received. */
interface SeenSocksConnect {
  /** `host:port` as asked (a domain name as sent, not resolved). */
  readonly target: string;
  /** `user:password` from the RFC 1929 sub-negotiation, if any. */
  readonly credentials: string | undefined;
}

/** A running SOCKS5 test proxy. */
export interface Socks5Proxy {
  /** `socks5://127.0.0.1:<port>`, without credentials. */
  readonly url: string;
  readonly connects: readonly SeenSocksConnect[];
  close(): Promise<void>;
}

/**
 * A SOCKS5 proxy (RFC 1928) for tests: `CONNECT` only; with `credentials` (`user:password`) it
 * requires RFC 1929 authentication, else none. Domain names in `hosts` connect to their address.
 */
export async function startSocks5Proxy(
  options: { credentials?: string; hosts?: Readonly<Record<string, string>> } = {},
): Promise<Socks5Proxy> {
  const connects: SeenSocksConnect[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buffered = Buffer.alloc(0);
    let state: 'greeting' | 'auth' | 'request' | 'done' = 'greeting';
    let credentials: string | undefined;
    const onData = (data: Buffer): void => {
      buffered = Buffer.concat([buffered, data]);
      if (state === 'greeting' && buffered.length >= 2 && buffered.length >= 2 + buffered[1]!) {
        const methods = [...buffered.subarray(2, 2 + buffered[1]!)];
        buffered = buffered.subarray(2 + buffered[1]!);
        const want = options.credentials ? 2 : 0;
        if (!methods.includes(want)) return void client.end(Buffer.from([5, 0xff]));
        client.write(Buffer.from([5, want]));
        state = want === 2 ? 'auth' : 'request';
      }
      if (state === 'auth' && buffered.length >= 2) {
        const ulen = buffered[1]!;
        if (buffered.length < 3 + ulen) return;
        const plen = buffered[2 + ulen]!;
        if (buffered.length < 3 + ulen + plen) return;
        credentials = `${buffered.toString('utf8', 2, 2 + ulen)}:${buffered.toString('utf8', 3 + ulen, 3 + ulen + plen)}`;
        buffered = buffered.subarray(3 + ulen + plen);
        if (credentials !== options.credentials) return void client.end(Buffer.from([1, 1]));
        client.write(Buffer.from([1, 0]));
        state = 'request';
      }
      if (state === 'request' && buffered.length >= 5) {
        const kind = buffered[3];
        const length = kind === 1 ? 4 : kind === 4 ? 16 : 1 + buffered[4]!;
        if (buffered.length < 4 + length + 2) return;
        const host =
          kind === 1
            ? [...buffered.subarray(4, 8)].join('.')
            : kind === 3
              ? buffered.toString('utf8', 5, 5 + buffered[4]!)
              : 'ipv6';
        const port = buffered.readUInt16BE(4 + length);
        buffered = buffered.subarray(4 + length + 2);
        state = 'done';
        client.off('data', onData);
        connects.push({ target: `${host}:${port}`, credentials });
        const upstream = net.connect({ host: options.hosts?.[host] ?? host, port });
        sockets.add(upstream);
        upstream.on('error', () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        upstream.on('connect', () => {
          client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
          if (buffered.length > 0) upstream.write(buffered);
          upstream.pipe(client);
          client.pipe(upstream);
        });
      }
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
