/**
 * The client-bound replay of informer.bench.ts: an HTTPS server on 127.0.0.1 (a certificate of
 * its own test CA) that answers every watch request with a recorded watch stream
 * (watch-recording.ts) as fast as the client reads it, so that events/s is bounded by the client
 * and CPU per event is the client's cost, not etcd's pace.
 *
 * The response is what kube-apiserver writes (HTTP/1.1, `Transfer-Encoding: chunked`,
 * `Content-Type: application/json`), framed as `framing` says:
 * - `event` (the default): one HTTP chunk per event, each written alone, so each is its own TLS
 *   record, as the apiserver writes an event that it flushes at once (its handler flushes after
 *   an event when no other is queued behind it: a watch whose events arrive one by one);
 * - `batched`: what the apiserver writes when events are queued faster than the client reads them
 *   (it then flushes only when its queue is empty): Go's net/http buffers 2 KiB of the body per
 *   chunk and writes 4 KiB to the TLS connection at a time, so chunks cut across events.
 *
 * Writes follow the socket: the next one is made only once the previous one left the process, so
 * Node never merges queued writes into one TLS record. The stream stays open after the last event
 * (a watch is ended by its client); other requests get a 404. `close()` ends every connection.
 */
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createCertificateAuthority } from '@kubeloom/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { localKubeConfig } from '../test/local-kubeconfig.ts';

/** How the recorded events are cut into HTTP chunks and TLS records. */
export type ReplayFraming = 'event' | 'batched';

/** A running replay server. */
export interface WatchReplayServer {
  /** A kubeconfig for the server: its URL and the CA that issued its certificate. */
  readonly kubeConfig: KubeConfig;
  /** Watch responses served so far. */
  readonly watches: () => number;
  /** Requests that were not a watch (answered 404). */
  readonly others: () => number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** What the server replays. */
export interface WatchReplayOptions {
  /** The recorded lines, each ending in `\n`. */
  readonly lines: readonly Buffer[];
  readonly framing?: ReplayFraming;
}

const HEAD = Buffer.from(
  'HTTP/1.1 200 OK\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
    'Transfer-Encoding: chunked\r\n\r\n',
);
const NOT_FOUND_BODY = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  reason: 'NotFound',
  code: 404,
});
const NOT_FOUND = Buffer.from(
  `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${NOT_FOUND_BODY.length}\r\n` +
    `Connection: close\r\n\r\n${NOT_FOUND_BODY}`,
);
/** Go's net/http: the response's body buffer (one chunk) and the connection's write buffer. */
const GO_CHUNK_BYTES = 2048;
const GO_WRITE_BYTES = 4096;

const chunk = (payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]);

/** The socket writes of one response: its head, then its body. */
function bodyWrites(lines: readonly Buffer[], framing: ReplayFraming): Buffer[] {
  if (framing === 'event') return [HEAD, ...lines.map(chunk)];
  const body = Buffer.concat(lines);
  const chunks: Buffer[] = [];
  for (let i = 0; i < body.length; i += GO_CHUNK_BYTES)
    chunks.push(chunk(body.subarray(i, i + GO_CHUNK_BYTES)));
  const stream = Buffer.concat(chunks);
  const writes: Buffer[] = [HEAD];
  for (let i = 0; i < stream.length; i += GO_WRITE_BYTES) writes.push(stream.subarray(i, i + GO_WRITE_BYTES));
  return writes;
}

/** Writes `writes` to `socket` one at a time, each once the previous one was handed to the kernel. */
function pump(socket: tls.TLSSocket, writes: readonly Buffer[]): void {
  let next = 0;
  /** The write whose completion the pump waits for; -1 while it runs. */
  let awaited = -1;
  const run = (): void => {
    awaited = -1;
    while (next < writes.length && !socket.destroyed) {
      const k = next++;
      socket.write(writes[k]!, () => {
        if (awaited === k) run();
      });
      // Not written through at once: wait for it, or Node would merge the next writes with it.
      if (socket.writableLength > 0) {
        awaited = k;
        return;
      }
    }
  };
  run();
}

/** Starts a replay server on 127.0.0.1 (an ephemeral port). */
export async function startWatchReplayServer(options: WatchReplayOptions): Promise<WatchReplayServer> {
  const writes = bodyWrites(options.lines, options.framing ?? 'event');
  const ca = createCertificateAuthority('kubeloom-bench-replay-ca');
  const serving = ca.issue({ commonName: 'replay', hosts: ['127.0.0.1'], usage: 'server' });
  const sockets = new Set<tls.TLSSocket>();
  let watches = 0;
  let others = 0;
  const server = tls.createServer(
    { cert: serving.certPem, key: serving.keyPem, ALPNProtocols: ['http/1.1'] },
    (socket) => {
      socket.setNoDelay(true); // as Go's net/http, which the apiserver serves with
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {}); // the client going away mid-stream
      let head = '';
      const onData = (data: Buffer): void => {
        head += data.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        const target = head.slice(0, head.indexOf('\r\n')).split(' ')[1] ?? '';
        const query = new URL(target, 'https://replay').searchParams;
        if (query.get('watch') === 'true' || query.get('watch') === '1') {
          watches++;
          pump(socket, writes);
        } else {
          others++;
          socket.end(NOT_FOUND);
        }
      };
      socket.on('data', onData);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    kubeConfig: localKubeConfig({ port, ca }),
    watches: () => watches,
    others: () => others,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
