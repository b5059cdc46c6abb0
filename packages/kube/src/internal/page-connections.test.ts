import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createCertificateAuthority, waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError } from '../connection-error.ts';
import { requestOverConnection } from './connection-request.ts';
import { PageConnections } from './page-connections.ts';
import { WatchTls } from './tls-watch-connection.ts';

const ca = createCertificateAuthority();
const serving = ca.issue({ commonName: 'kube', hosts: ['127.0.0.1'], usage: 'server' });

/** How the test server answers each request on a connection (its index on that connection). */
type Answer = (socket: tls.TLSSocket, requestIndex: number) => void;

/** A chunked JSON response; `close` adds `Connection: close`. */
function respond(socket: tls.TLSSocket, body: object, opts: { close?: boolean } = {}): void {
  const text = JSON.stringify(body);
  socket.write(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${opts.close ? 'Connection: close\r\n' : ''}\r\n` +
      `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`,
  );
}

const servers: tls.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A TLS server answering every request head it reads; counts its connections and open sockets. */
async function server(answer: Answer) {
  const stats = { connections: 0, open: new Set<tls.TLSSocket>() };
  const srv = tls.createServer({ cert: serving.certPem, key: serving.keyPem }, (socket) => {
    stats.connections++;
    stats.open.add(socket);
    socket.on('close', () => stats.open.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    let index = 0;
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
        buffered = buffered.slice(end + 4);
        answer(socket, index++);
      }
    });
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { port: (srv.address() as AddressInfo).port, stats };
}

function pages() {
  const live = new Set<() => void>();
  const shared = new WatchTls({ ca: ca.certPem });
  return { connections: new PageConnections(shared, live), live, shared };
}

function get(connections: PageConnections, port: number, page: number) {
  return requestOverConnection({
    open: connections.open({
      url: new URL(`https://127.0.0.1:${port}/api/v1/configmaps?limit=2&page=${page}`),
      headers: { Accept: 'application/json' },
    }),
    context: `list page ${page}`,
    server: `https://127.0.0.1:${port}`,
    idleTimeoutMs: 30_000,
  });
}

describe('PageConnections', () => {
  it('sends the next page over the connection the last one came on, and closes idle ones on close()', async () => {
    const { port, stats } = await server((socket, i) => respond(socket, { page: i }));
    const { connections } = pages();
    expect(await get(connections, port, 0)).toEqual({ page: 0 });
    expect(await get(connections, port, 1)).toEqual({ page: 1 });
    expect(await get(connections, port, 2)).toEqual({ page: 2 });
    expect(stats.connections).toBe(1);
    connections.close();
    await waitFor('the idle connection to close', () => stats.open.size === 0);
  });

  it('opens a new connection after a response that says Connection: close', async () => {
    const { port, stats } = await server((socket, i) => respond(socket, { page: i }, { close: true }));
    const { connections } = pages();
    expect(await get(connections, port, 0)).toEqual({ page: 0 });
    expect(await get(connections, port, 1)).toEqual({ page: 0 }); // the first request of its connection
    expect(stats.connections).toBe(2);
    connections.close();
  });

  it('sends a request again on a new connection when the kept one closes before answering it', async () => {
    let connection = 0;
    const { port, stats } = await server((socket, i) => {
      if (i === 0) {
        connection++;
        respond(socket, { connection });
      } else socket.destroy(); // the kept connection's next request: closed unanswered, as an idle timeout races it
    });
    const { connections } = pages();
    expect(await get(connections, port, 0)).toEqual({ connection: 1 });
    expect(await get(connections, port, 1)).toEqual({ connection: 2 });
    expect(stats.connections).toBe(2);
    connections.close();
  });

  it('does not send a request a third time: a new connection that fails too fails the request', async () => {
    let connection = 0;
    const { port } = await server((socket, i) => {
      if (i === 0 && connection++ === 0) respond(socket, { connection });
      else socket.destroy();
    });
    const { connections } = pages();
    await get(connections, port, 0);
    await expect(get(connections, port, 1)).rejects.toBeInstanceOf(ConnectionError);
    expect(connection).toBe(2);
    connections.close();
  });

  it('fails a page whose connection is cut by the client, without another connection', async () => {
    const { port, stats } = await server(() => {}); // never answers
    const { connections, live } = pages();
    const pending = get(connections, port, 0);
    await waitFor('the request to be in flight', () => live.size === 1 && stats.connections === 1);
    for (const cut of [...live]) cut();
    await expect(pending).rejects.toBeInstanceOf(ConnectionError);
    expect(stats.connections).toBe(1);
    await waitFor('its connection to close', () => stats.open.size === 0);
  });

  it('drops the TLS session when a new connection fails before any byte, so the next one does not resume it', async () => {
    const resumed: boolean[] = [];
    const { port } = await server((socket, i) => {
      if (i !== 0) return;
      resumed.push(socket.isSessionReused());
      // The second connection is closed unanswered (a server restarted with other keys, say).
      if (resumed.length === 2) socket.destroy();
      else respond(socket, { connection: resumed.length }, { close: true });
    });
    const { connections, shared } = pages();
    expect(await get(connections, port, 0)).toEqual({ connection: 1 });
    await waitFor('the server to issue a session', () => shared.session !== undefined);
    await expect(get(connections, port, 1)).rejects.toBeInstanceOf(ConnectionError);
    expect(shared.session).toBeUndefined();
    expect(await get(connections, port, 2)).toEqual({ connection: 3 });
    expect(resumed).toEqual([false, true, false]);
    connections.close();
  });
});
