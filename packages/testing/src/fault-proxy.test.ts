import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from './certs.ts';
import { startFaultProxy } from './fault-proxy.ts';
import type { FaultProxy } from './fault-proxy-contract.ts';
import { waitFor } from './wait-for.ts';

/** What the fake apiserver saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** CN of the client certificate the proxy presented upstream. */
  clientCN: string | undefined;
  body: string;
}

/**
 * A fake apiserver: HTTPS with its own CA, an admin client certificate, a recorded request log,
 * JSON answers, and watch streams the test writes to by hand (so chunk boundaries are exact).
 */
async function startFakeApiserver() {
  const ca = createCertificateAuthority('fake-apiserver-ca');
  const serving = ca.issue({ commonName: 'fake-apiserver', hosts: ['127.0.0.1'], usage: 'server' });
  const admin = ca.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' });
  const seen: Seen[] = [];
  const watches: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const server = https.createServer({
    key: serving.keyPem,
    cert: serving.certPem,
    ca: ca.certPem,
    requestCert: true,
    rejectUnauthorized: false,
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cn = peer && Object.keys(peer).length > 0 ? (peer.subject.CN as string) : undefined;
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        clientCN: cn,
        body: Buffer.concat(chunks).toString(),
      });
      if ((req.url ?? '').includes('watch=true')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        watches.push(res);
        return;
      }
      const body = JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `https://127.0.0.1:${port}`;
  const kubeConfig = new KubeConfig();
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server: url, caData: b64(ca.certPem) }],
    users: [{ name: 'admin', certData: b64(admin.certPem), keyData: b64(admin.keyPem) }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'admin' }],
    currentContext: 'fake',
  });
  return {
    server: url,
    kubeConfig,
    caPem: ca.certPem,
    seen,
    watches,
    async stop() {
      for (const w of watches) w.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Fake = Awaited<ReturnType<typeof startFakeApiserver>>;

interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  cert?: { certPem: string; keyPem: string };
  body?: string;
}

/** A raw HTTPS request to the proxy; resolves with the whole response. */
function raw(
  proxy: FaultProxy,
  path: string,
  options: RawOptions = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${proxy.url}${path}`,
      {
        method: options.method ?? 'GET',
        agent: false,
        ca: proxy.caPem,
        headers: options.headers,
        ...(options.cert ? { cert: options.cert.certPem, key: options.cert.keyPem } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Opens a raw watch through the proxy; `text()` is everything received so far. */
function rawWatch(proxy: FaultProxy, cert: { certPem: string; keyPem: string }) {
  let received = '';
  let ended = false;
  let closed = false;
  let error: Error | undefined;
  const req = https.request(`${proxy.url}/api/v1/namespaces/ns/configmaps?watch=true`, {
    agent: false,
    ca: proxy.caPem,
    cert: cert.certPem,
    key: cert.keyPem,
  });
  req.on('response', (res) => {
    res.on('data', (c: Buffer) => {
      received += c.toString();
    });
    res.on('end', () => {
      ended = true;
    });
    res.on('error', (err) => {
      error = err;
    });
  });
  req.on('error', (err) => {
    error = err;
  });
  req.on('close', () => {
    closed = true;
  });
  req.end();
  return {
    text: () => received,
    ended: () => ended,
    closed: () => closed,
    error: () => error,
    close: () => req.destroy(),
  };
}

describe('fault proxy against a fake apiserver', () => {
  let fake: Fake;
  let proxy: FaultProxy;
  beforeEach(async () => {
    fake = await startFakeApiserver();
    proxy = await startFaultProxy({ upstream: fake });
  });
  afterEach(async () => {
    await proxy.stop();
    await fake.stop();
  });

  it('impersonates the client-certificate user and groups with the admin credentials', async () => {
    const res = await raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      cert: proxy.clientCertificate('alice', ['dev', 'ops']),
      headers: { authorization: 'Bearer should-be-dropped', 'impersonate-user': 'mallory' },
    });
    expect(res.status).toBe(200);
    const [seen] = fake.seen;
    expect(seen?.clientCN).toBe('admin');
    expect(seen?.headers['impersonate-user']).toBe('mallory');
    expect(proxy.requests()[0]).toMatchObject({
      user: 'alice',
      groups: ['dev', 'ops'],
      authentication: 'certificate',
    });

    await raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      cert: proxy.clientCertificate('bob', ['dev', 'ops']),
    });
    const second = fake.seen[1];
    expect(second?.headers['impersonate-user']).toBe('bob');
    // Node joins repeated request headers with ', ' on the receiving side.
    expect(second?.headers['impersonate-group']).toBe('dev, ops');
    expect(second?.headers.authorization).toBeUndefined();
  });

  it('passes a bearer token through without admin credentials, and anonymous requests as anonymous', async () => {
    await raw(proxy, '/api/v1/namespaces/ns/configmaps', { headers: { authorization: 'Bearer abc' } });
    await raw(proxy, '/version');
    const [bearer, anonymous] = fake.seen;
    expect(bearer?.headers.authorization).toBe('Bearer abc');
    expect(bearer?.clientCN).toBeUndefined();
    expect(bearer?.headers['impersonate-user']).toBeUndefined();
    expect(anonymous?.headers.authorization).toBeUndefined();
    expect(anonymous?.clientCN).toBeUndefined();
    expect(proxy.requests().map((r) => r.authentication)).toEqual(['bearer', 'anonymous']);
  });

  it('answers 401 with a Status to a certificate it does not trust', async () => {
    const stranger = createCertificateAuthority('stranger').issue({ commonName: 'eve', usage: 'client' });
    const res = await raw(proxy, '/api/v1/namespaces/ns/configmaps', { cert: stranger });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect(fake.seen).toHaveLength(0);
  });

  it('forwards request bodies and methods', async () => {
    const body = JSON.stringify({ metadata: { name: 'x' } });
    const res = await raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      cert: proxy.clientCertificate('alice'),
    });
    expect(res.status).toBe(200);
    expect(fake.seen[0]).toMatchObject({ method: 'POST', body });
    expect(proxy.stats().requests.create).toBe(1);
  });

  it('injects a line at the next event boundary, never inside an event', async () => {
    const watch = rawWatch(proxy, proxy.clientCertificate('alice'));
    try {
      await proxy.waitForWatches(1);
      const upstream = fake.watches[0]!;
      upstream.write('{"type":"ADDED","object":{"n":');
      await proxy.waitUntil(() => watch.text().length > 0);
      expect(proxy.injectLine('this is not json')).toBe(1);
      upstream.write('1}}\n{"type":"ADDED","object":{"n":2}}\n');
      await proxy.waitUntil(() => watch.text().includes('"n":2'), { description: 'the second event' });
      expect(watch.text().split('\n')).toEqual([
        '{"type":"ADDED","object":{"n":1}}',
        'this is not json',
        '{"type":"ADDED","object":{"n":2}}',
        '',
      ]);
      expect(proxy.requests()[0]?.faults).toEqual(['inject']);
    } finally {
      watch.close();
    }
  });

  it('ends the watch after an injected ERROR event', async () => {
    const watch = rawWatch(proxy, proxy.clientCertificate('alice'));
    await proxy.waitForWatches(1);
    expect(proxy.injectError(410, { message: 'too old resource version: 1 (2)' })).toBe(1);
    await proxy.waitUntil(() => watch.ended(), { description: 'the watch to end' });
    const event = JSON.parse(watch.text());
    expect(event).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'too old resource version: 1 (2)',
        reason: 'Expired',
        code: 410,
      },
    });
    expect(watch.error()).toBeUndefined();
    await proxy.waitUntil(() => proxy.stats().activeRequests === 0);
  });

  it('holds bytes behind a stall and delivers them in order on resume', async () => {
    const watch = rawWatch(proxy, proxy.clientCertificate('alice'));
    try {
      await proxy.waitForWatches(1);
      const stall = proxy.stall({ watch: true });
      expect(stall.hits).toBe(1);
      fake.watches[0]!.write('{"type":"ADDED","object":{"n":1}}\n');
      await proxy.waitUntil(() => proxy.stats().heldRequests === 1, { description: 'a held chunk' });
      expect(watch.text()).toBe('');
      stall.resume();
      await proxy.waitUntil(() => watch.text().includes('"n":1'));
      expect(proxy.stats().heldRequests).toBe(0);
      expect(stall.active).toBe(false);
    } finally {
      watch.close();
    }
  });

  it('an in-flight-only stall holds the current watch while the next one gets through', async () => {
    const cert = proxy.clientCertificate('alice');
    const first = rawWatch(proxy, cert);
    let next: ReturnType<typeof rawWatch> | undefined;
    try {
      await proxy.waitForWatches(1);
      const stall = proxy.stall({ watch: true, inFlightOnly: true });
      next = rawWatch(proxy, cert);
      await proxy.waitForWatches(2);
      fake.watches[0]!.write('{"type":"ADDED","object":{"n":1}}\n');
      fake.watches[1]!.write('{"type":"ADDED","object":{"n":2}}\n');
      await proxy.waitUntil(() => next!.text().includes('"n":2') && proxy.stats().heldRequests === 1);
      expect(first.text()).toBe('');
      expect(stall.hits).toBe(1);
      stall.resume();
      await proxy.waitUntil(() => first.text().includes('"n":1'));
    } finally {
      first.close();
      next?.close();
    }
  });

  it('a delay holds each chunk until it elapses or the rule is removed', async () => {
    const rule = proxy.delay(600_000, { verb: 'list' });
    const pending = raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      cert: proxy.clientCertificate('alice'),
    });
    await proxy.waitUntil(() => proxy.stats().delayedRequests === 1);
    expect(fake.seen).toHaveLength(1); // forwarded; the response is what waits
    rule.remove();
    await expect(pending).resolves.toMatchObject({ status: 200 });
    expect(proxy.stats().delayedRequests).toBe(0);
  });

  it('counted rules apply to the next N matching requests only, in rule order', async () => {
    const cert = proxy.clientCertificate('alice');
    const first = proxy.respond(500, { verb: 'list', count: 2 });
    const second = proxy.respond(503, { verb: 'list', count: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await raw(proxy, '/api/v1/namespaces/ns/configmaps', { cert })).status);
    expect(statuses).toEqual([500, 500, 503, 200]);
    expect([first.hits, first.active, second.hits, second.active]).toEqual([2, false, 1, false]);
    expect(proxy.rules()).toHaveLength(0);
    expect(fake.seen).toHaveLength(1);
  });

  it('a cut rule resets matching connections before anything reaches the apiserver', async () => {
    proxy.addRule({ method: 'get', path: /configmaps$/, action: { type: 'cut' }, count: 1 });
    await expect(raw(proxy, '/api/v1/namespaces/ns/configmaps')).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect(raw(proxy, '/api/v1/namespaces/ns/configmaps')).resolves.toMatchObject({ status: 200 });
    expect(fake.seen).toHaveLength(1);
    expect(proxy.requests().map((r) => r.faults)).toEqual([['cut'], []]);
  });

  it('answers protocol upgrades with 501', async () => {
    const res = await raw(proxy, '/api/v1/namespaces/ns/pods/p/exec', {
      headers: { connection: 'Upgrade', upgrade: 'websocket' },
    });
    expect(res.status).toBe(501);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code: 501, reason: 'NotImplemented' });
    expect(fake.seen).toHaveLength(0);
  });

  it('answers 502 with a Status when the apiserver is unreachable', async () => {
    await fake.stop();
    const res = await raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      cert: proxy.clientCertificate('alice'),
    });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code: 502, reason: 'InternalError' });
    expect(JSON.parse(res.body).message).toMatch(/could not reach the apiserver: .*ECONNREFUSED/);
  });

  it('drops, never forwards, requests still held by a stall when it stops', async () => {
    proxy.stall({ verb: 'create' });
    const pending = raw(proxy, '/api/v1/namespaces/ns/configmaps', {
      method: 'POST',
      body: '{}',
      cert: proxy.clientCertificate('alice'),
    });
    await proxy.waitUntil(() => proxy.stats().heldRequests === 1);
    await proxy.stop();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(fake.seen).toHaveLength(0);
  });

  it('rejects bad rules', () => {
    expect(() => proxy.respond(42)).toThrow(/HTTP status/);
    expect(() => proxy.delay(-1)).toThrow(/non-negative/);
    expect(() => proxy.stall({ count: 0 })).toThrow(/positive integer/);
    expect(() => proxy.stall({ count: 1, inFlightOnly: true })).toThrow(/inFlightOnly/);
    expect(() => proxy.addRule({ inFlightOnly: true, action: { type: 'cut' } })).toThrow(/inFlightOnly/);
  });
});

describe('fault proxy lifecycle', () => {
  it('stop() closes the listener, client and upstream connections and pending waits', async () => {
    // Network handles by type. Earlier tests' sockets may still be closing, so "nothing left
    // behind" means: no type has more handles than before this test started anything.
    const netHandles = () => {
      const counts: Record<string, number> = { TCPServerWrap: 0, TCPSocketWrap: 0, TLSWrap: 0 };
      for (const r of process.getActiveResourcesInfo()) if (r in counts) counts[r]!++;
      return counts;
    };
    const before = netHandles();
    const noneLeft = () => Object.entries(netHandles()).every(([type, n]) => n <= before[type]!);
    const fake = await startFakeApiserver();
    const proxy = await startFaultProxy({ upstream: fake });
    const watch = rawWatch(proxy, proxy.clientCertificate('alice'));
    await proxy.waitForWatches(1);
    expect(proxy.stats()).toMatchObject({ activeConnections: 1, activeWatches: 1 });
    const waiting = proxy.waitUntil(() => false, { timeoutMs: 60_000 }).catch((err: unknown) => err);
    await proxy.stop();
    await proxy.stop();
    expect(await waiting).toEqual(new Error('fault proxy stopped'));
    expect(() => proxy.stall()).toThrow(/stopped/);
    expect(proxy.stats()).toMatchObject({ activeConnections: 0, activeRequests: 0 });
    await expect(raw(proxy, '/version')).rejects.toThrow(/ECONNREFUSED/);
    // The client saw its connection end, and the proxy's upstream connection is gone: once the
    // fake apiserver's listener is closed too, no network handle is left.
    await fake.stop();
    await waitFor(
      'the watch to close and every network handle to be released',
      () => noneLeft() && watch.closed(),
    );
    expect(watch.closed()).toBe(true);
    expect(watch.ended()).toBe(false);
    expect(noneLeft(), JSON.stringify({ before, after: netHandles() })).toBe(true);
  });

  it('await using stops it: listener closed, client connections ended', async () => {
    const fake = await startFakeApiserver();
    try {
      let stopped: { proxy: FaultProxy; watch: ReturnType<typeof rawWatch> } | undefined;
      {
        await using proxy = await startFaultProxy({ upstream: fake });
        const watch = rawWatch(proxy, proxy.clientCertificate('alice'));
        await proxy.waitForWatches(1);
        expect(proxy.stats()).toMatchObject({ activeConnections: 1, activeWatches: 1 });
        stopped = { proxy, watch };
      }
      const { proxy, watch } = stopped;
      expect(proxy.stats()).toMatchObject({ activeConnections: 0, activeRequests: 0 });
      await expect(raw(proxy, '/version')).rejects.toThrow(/ECONNREFUSED/);
      await waitFor('the watch to close', () => watch.closed());
    } finally {
      await fake.stop();
    }
  });

  it('stops when its signal aborts, and refuses to start on an aborted signal', async () => {
    const fake = await startFakeApiserver();
    try {
      const controller = new AbortController();
      const proxy = await startFaultProxy({ upstream: fake, signal: controller.signal });
      controller.abort();
      await proxy.stop();
      await expect(raw(proxy, '/version')).rejects.toThrow(/ECONNREFUSED/);
      await expect(startFaultProxy({ upstream: fake, signal: controller.signal })).rejects.toThrow(/abort/i);
    } finally {
      await fake.stop();
    }
  });

  it('requires an https upstream with a known CA', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    await expect(startFaultProxy({ upstream: { server: 'http://127.0.0.1:1', kubeConfig } })).rejects.toThrow(
      /https:\/\//,
    );
    await expect(
      startFaultProxy({ upstream: { server: 'https://127.0.0.1:1', kubeConfig } }),
    ).rejects.toThrow(/CA/);
  });
});
