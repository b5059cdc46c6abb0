import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createCertificateAuthority, waitFor } from '@kubeloom/testing';
import type { User } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { localKubeConfig } from '../test/local-kubeconfig.ts';
import { WatchResetError } from './api.ts';
import { builtins } from './builtins.ts';
import { ConnectionError } from './connection-error.ts';
import { ForbiddenError, TooManyRequestsError } from './errors.ts';
import { HttpApiClient } from './http-api-client.ts';
import { HttpFramingError } from './internal/http1-response-reader.ts';

const ca = createCertificateAuthority();
const serving = ca.issue({ commonName: 'kube', hosts: ['127.0.0.1', 'kube.test'], usage: 'server' });
const clientCert = ca.issue({ commonName: 'tester', usage: 'client' });
const event = (name: string) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A client of `port` with the test CA; `user` and `cluster` fields added to the kubeconfig's. */
function client(
  port: number,
  opts: { user?: Partial<User>; tlsServerName?: string; maxSockets?: number } = {},
): HttpApiClient {
  const kc = localKubeConfig({ port, ca, user: opts.user, tlsServerName: opts.tlsServerName });
  return new HttpApiClient(kc, opts.maxSockets ? { maxSockets: opts.maxSockets } : {});
}

/** Every event's object name, or the error the watch ended with. */
async function drain(api: HttpApiClient): Promise<{ names: string[]; error?: unknown }> {
  const names: string[] = [];
  try {
    for await (const ev of api.watch(builtins.ConfigMap, { namespace: 'ns' }))
      names.push((ev as { object: { metadata: { name: string } } }).object.metadata.name);
  } catch (error) {
    return { names, error };
  }
  return { names };
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A TLS server that answers every connection with `respond` (raw bytes, any framing). */
async function rawServer(respond: (socket: tls.TLSSocket) => void): Promise<number> {
  const server = tls.createServer({ cert: serving.certPem, key: serving.keyPem }, (socket) => {
    socket.once('data', () => respond(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return (server.address() as AddressInfo).port;
}

describe('the watch transport: HTTP/1.1 over its own TLS connection', () => {
  it('sends the request line and headers node:https would, with the kubeconfig credentials, ALPN and SNI', async () => {
    const seen: Array<{
      url: string;
      headers: IncomingMessage['headers'];
      alpn: unknown;
      sni: unknown;
      cn?: string;
    }> = [];
    const server = createHttpsServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: false,
        ALPNProtocols: ['h2', 'http/1.1'],
      },
      (req, res) => {
        const socket = req.socket as tls.TLSSocket;
        const peer = socket.getPeerCertificate();
        seen.push({
          url: req.url!,
          headers: req.headers,
          alpn: socket.alpnProtocol,
          sni: (socket as tls.TLSSocket & { servername?: unknown }).servername,
          ...(peer.subject?.CN ? { cn: String(peer.subject.CN) } : {}),
        });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(event('a'));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const port = (server.address() as AddressInfo).port;

    const bearer = client(port, { user: { token: 'tok', impersonateUser: 'someone' } });
    expect(await drain(bearer)).toEqual({ names: ['a'] });
    const basic = client(port, {
      user: { username: 'alice', password: 'pa:ss' },
      tlsServerName: 'kube.test',
    });
    expect(await drain(basic)).toEqual({ names: ['a'] });
    const certificate = client(port, {
      user: {
        certData: Buffer.from(clientCert.certPem).toString('base64'),
        keyData: Buffer.from(clientCert.keyPem).toString('base64'),
      },
    });
    expect(await drain(certificate)).toEqual({ names: ['a'] });

    expect(seen[0]).toEqual({
      url: '/api/v1/namespaces/ns/configmaps?watch=true',
      headers: {
        host: `127.0.0.1:${port}`,
        'user-agent': 'kubeloom',
        accept: 'application/json',
        authorization: 'Bearer tok',
        'impersonate-user': 'someone',
        connection: 'close',
      },
      alpn: 'http/1.1',
      sni: false, // no SNI for an IP address, as node:https
    });
    expect(seen[1]!.headers.authorization).toBe(`Basic ${Buffer.from('alice:pa:ss').toString('base64')}`);
    expect(seen[1]!.sni).toBe('kube.test'); // the kubeconfig's tls-server-name, checked against the certificate
    expect(seen[2]!.cn).toBe('tester');
    for (const api of [bearer, basic, certificate]) await api[Symbol.asyncDispose]();
  });

  it('is the path of every watch, unless maxSockets asks the agent to count them', async () => {
    const port = await rawServer((socket) => {
      socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(event('a'))}0\r\n\r\n`);
    });
    const viaHttps: string[] = [];
    const onRequest = (message: unknown) =>
      viaHttps.push((message as { request: ClientRequest }).request.path);
    dc.subscribe('http.client.request.start', onRequest);
    cleanups.push(() => dc.unsubscribe('http.client.request.start', onRequest));
    const direct = client(port);
    expect(await drain(direct)).toEqual({ names: ['a'] });
    expect(viaHttps).toEqual([]);
    const limited = client(port, { maxSockets: 4 });
    expect(await drain(limited)).toEqual({ names: ['a'] });
    expect(viaHttps).toEqual(['/api/v1/namespaces/ns/configmaps?watch=true']);
    direct.close();
    limited.close();
  });

  it('reads Content-Length and close-delimited bodies as well as chunked ones', async () => {
    const body = `${event('a')}${event('b')}`;
    const length = await rawServer((s) =>
      s.end(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
    );
    expect(await drain(client(length))).toEqual({ names: ['a', 'b'] });
    const untilClose = await rawServer((s) => s.end(`HTTP/1.1 200 OK\r\n\r\n${body}`));
    expect(await drain(client(untilClose))).toEqual({ names: ['a', 'b'] });
  });

  it('reports a connection closed before the terminating chunk as a reset of the open watch', async () => {
    const port = await rawServer((s) =>
      s.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(event('a'))}`),
    );
    const { names, error } = await drain(client(port));
    expect(names).toEqual(['a']);
    expect(error).toBeInstanceOf(WatchResetError);
    expect((error as WatchResetError).code).toBe('ECONNRESET');
    expect((error as Error).message).toMatch(
      /reset after 1 event \(ECONNRESET: the connection closed before the end of the response\)/,
    );
  });

  it('reports broken framing of the open stream as a reset caused by an HttpFramingError', async () => {
    const port = await rawServer((s) =>
      s.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(event('a'))}zz\r\n`),
    );
    const { names, error } = await drain(client(port));
    expect(names).toEqual(['a']);
    expect(error).toBeInstanceOf(WatchResetError);
    expect((error as Error).cause).toBeInstanceOf(HttpFramingError);
    expect((error as Error).message).toMatch(/ERR_HTTP_FRAMING: the chunk size starts with "z"/);
  });

  it('refuses, as a connection error, a response it cannot take before the stream opened', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n',
        /101 Switching Protocols, an informational response/,
      ],
      [`HTTP/1.1 200 OK\r\nX-Big: ${'x'.repeat(70_000)}\r\n\r\n`, /header is larger than 65536 bytes/],
      ['SSH-2.0-OpenSSH\r\n\r\n', /does not start with an HTTP\/1.1 status line/],
      ['HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n', /Content-Encoding gzip/],
    ];
    for (const [response, message] of cases) {
      const port = await rawServer((s) => s.end(response));
      const { error } = await drain(client(port));
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(message);
      expect((error as ConnectionError).code).toBe('ERR_HTTP_FRAMING');
    }
    const closed = await rawServer((s) => s.destroy());
    const { error } = await drain(client(closed));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('ECONNRESET');
  });

  it('turns a refused watch, its Status body chunked or not, into the typed error', async () => {
    const status = JSON.stringify({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      message: 'slow down',
    });
    const chunked = await rawServer((s) =>
      s.end(
        `HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(status.slice(0, 10))}${chunk(status.slice(10))}0\r\n\r\n`,
      ),
    );
    const { error } = await drain(client(chunked));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ retryAfterSeconds: 7 });
    expect((error as Error).message).toMatch(/watch configmaps in ns.*slow down/);
    const forbidden = JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
    const withLength = await rawServer((s) =>
      s.end(`HTTP/1.1 403 Forbidden\r\nContent-Length: ${forbidden.length}\r\n\r\n${forbidden}`),
    );
    expect((await drain(client(withLength))).error).toBeInstanceOf(ForbiddenError);
  });

  it('delivers every event in order to a slow consumer, and the end after them, however reads and pauses interleave', async () => {
    const n = 3000;
    let body = '';
    for (let i = 0; i < n; i++) body += chunk(event(`e${i}`));
    // Sent at once and closed: reads arrive while the consumer holds the stream paused.
    const port = await rawServer((s) =>
      s.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\n\r\n`),
    );
    const names: string[] = [];
    for await (const ev of client(port).watch(builtins.ConfigMap, {})) {
      names.push((ev as { object: { metadata: { name: string } } }).object.metadata.name);
      if (names.length % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(names).toEqual(Array.from({ length: n }, (_, i) => `e${i}`));
  });

  it('resumes the TLS session after a reset of an open watch, not after a failure before the response', async () => {
    let mode: 'reset' | 'answer' | 'refuse' = 'answer';
    const reused: boolean[] = [];
    const port = await rawServer((s) => {
      reused.push(s.isSessionReused());
      const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
      if (mode === 'refuse') s.destroy();
      else if (mode === 'reset') s.write(`${head}${chunk(event('a'))}`, () => s.destroy());
      else s.end(`${head}${chunk(event('a'))}0\r\n\r\n`);
    });
    const api = client(port);
    expect(await drain(api)).toEqual({ names: ['a'] });
    mode = 'reset';
    expect((await drain(api)).error).toBeInstanceOf(WatchResetError);
    mode = 'answer';
    expect(await drain(api)).toEqual({ names: ['a'] });
    mode = 'refuse';
    expect((await drain(api)).error).toBeInstanceOf(ConnectionError);
    mode = 'answer';
    expect(await drain(api)).toEqual({ names: ['a'] });
    expect(reused).toEqual([false, true, true, true, false]);
    api.close();
  });

  it('closes the connection of a watch that is aborted, broken out of, or disposed of', async () => {
    const open = new Set<tls.TLSSocket>();
    const port = await rawServer((s) => {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(event('a'))}`);
    });
    const api = client(port);
    for await (const _ev of api.watch(builtins.ConfigMap, {})) break;
    await waitFor('the connection to close after break', () => open.size === 0);
    const stop = new AbortController();
    for await (const _ev of api.watch(builtins.ConfigMap, { signal: stop.signal })) stop.abort();
    await waitFor('the connection to close after abort', () => open.size === 0);
    const events = api.watch(builtins.ConfigMap, {})[Symbol.asyncIterator]();
    await events.next();
    const rest = events.next().catch((e: unknown) => e);
    await api[Symbol.asyncDispose]();
    expect(await rest).toBeInstanceOf(WatchResetError);
    await waitFor('the connection to close after dispose', () => open.size === 0);
  });
});
