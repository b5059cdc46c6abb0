import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import {
  AuthenticationV1Api,
  CoreV1Api,
  KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  Watch,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startControlPlane } from './control-plane.ts';
import { startFaultProxy } from './fault-proxy.ts';
import type { FaultProxy } from './fault-proxy-contract.ts';
import { createTestNamespace } from './namespace.ts';
import { isPortClosed } from './ports.ts';
import { sharedControlPlane } from './shared.ts';
import { waitFor } from './wait-for.ts';

interface WatchEvent {
  readonly type: string;
  readonly object: KubernetesObject & { code?: number; reason?: string; message?: string };
}

/** A client-node Watch through `kubeConfig`, recording events and how it ended. */
async function watchConfigMaps(kubeConfig: KubeConfig, namespace: string) {
  const events: WatchEvent[] = [];
  let ended = false;
  let endError: unknown;
  const controller = await new Watch(kubeConfig).watch(
    `/api/v1/namespaces/${namespace}/configmaps`,
    {},
    (type: string, object: WatchEvent['object']) => {
      events.push({ type, object });
    },
    (err: unknown) => {
      ended = true;
      endError = err;
    },
  );
  return {
    events,
    names: (type = 'ADDED') => events.filter((e) => e.type === type).map((e) => e.object.metadata?.name),
    ended: () => ended,
    endError: () => endError,
    stop: () => controller.abort(),
  };
}

/**
 * A raw HTTPS GET through the proxy as `as` (default: an admin), streaming; `text()` is what
 * arrived so far.
 */
function rawGet(
  proxy: FaultProxy,
  path: string,
  as: { readonly user: string; readonly groups: string[] } = { user: 'admin', groups: ['system:masters'] },
) {
  const pair = proxy.clientCertificate(as.user, as.groups);
  let text = '';
  let done = false;
  let closed = false;
  let failed: Error | undefined;
  let status = 0;
  let headers: IncomingHttpHeaders = {};
  const req = https.request(`${proxy.url}${path}`, {
    agent: false,
    ca: proxy.caPem,
    cert: pair.certPem,
    key: pair.keyPem,
  });
  req.on('response', (res) => {
    status = res.statusCode ?? 0;
    headers = res.headers;
    res.on('data', (c: Buffer) => {
      text += c.toString();
    });
    res.on('end', () => {
      done = true;
    });
    res.on('close', () => {
      closed = true;
    });
  });
  req.on('error', (err) => {
    failed = err;
  });
  req.end();
  return {
    text: () => text,
    status: () => status,
    headers: () => headers,
    done: () => done,
    closed: () => closed || failed !== undefined,
    failed: () => failed,
    close: () => req.destroy(),
  };
}

describe('fault proxy in front of the real apiserver', () => {
  let proxy: FaultProxy;
  let admin: KubeConfig;
  let namespace: string;
  beforeEach(async () => {
    // #region startFaultProxy
    // A proxy on 127.0.0.1 in front of the apiserver: clients through it see the faults you inject.
    const plane = sharedControlPlane();
    admin = plane.kubeConfig;
    namespace = await createTestNamespace(admin, 'fault-proxy');
    proxy = await startFaultProxy({ upstream: plane });
    // #endregion startFaultProxy
  });
  afterEach(async () => {
    await proxy.stop();
  });

  it('passes get, list, create and watch through, and counts them by kind', async () => {
    const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
    const watch = await watchConfigMaps(proxy.kubeConfig(), namespace);
    try {
      await proxy.waitForWatches(1, { resource: 'configmaps', namespace });
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'one' }, data: { a: '1' } },
      });
      expect((await core.readNamespacedConfigMap({ namespace, name: 'one' })).data).toEqual({ a: '1' });
      const list = await core.listNamespacedConfigMap({ namespace });
      expect(list.items.map((c) => c.metadata?.name)).toEqual(['one']);
      await proxy.waitUntil(() => watch.names().includes('one'), { description: 'the ADDED event' });
      const stats = proxy.stats();
      expect(stats.requests).toMatchObject({ watch: 1, create: 1, get: 1, list: 1 });
      expect(stats.totalRequests).toBe(4);
      expect(stats.activeWatches).toBe(1);
      expect(proxy.count({ verb: 'list', resource: 'configmaps', namespace })).toBe(1);
      expect(proxy.requests({ verb: 'create' })[0]).toMatchObject({
        method: 'POST',
        resource: 'configmaps',
        namespace,
        user: 'admin',
        status: 201,
        faults: [],
      });
    } finally {
      watch.stop();
    }
  });

  it('forwards as the client-certificate user: RBAC applies to it, not to the proxy', async () => {
    const carol = proxy.kubeConfig('carol', ['devs']);
    await expect(carol.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace })).rejects.toMatchObject(
      {
        code: 403,
        body: expect.stringContaining('User \\"carol\\" cannot list resource \\"configmaps\\"'),
      },
    );
    const review = await carol.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe('carol');
    expect(review.status?.userInfo?.groups).toEqual(expect.arrayContaining(['devs', 'system:authenticated']));
    expect(proxy.requests().map((r) => r.user)).toEqual(['carol', 'carol']);
  });

  it('passes a bearer token through unchanged', async () => {
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'robot' } } });
    const token = await core.createNamespacedServiceAccountToken({
      namespace,
      name: 'robot',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'p', server: proxy.url, caData: Buffer.from(proxy.caPem).toString('base64') }],
      users: [{ name: 'robot', token: token.status?.token }],
      contexts: [{ name: 'p', cluster: 'p', user: 'robot' }],
      currentContext: 'p',
    });
    const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${namespace}:robot`);
    expect(proxy.requests()[0]).toMatchObject({ authentication: 'bearer', verb: 'create' });
  });

  it('cutting watches ends the client stream and leaves other requests working', async () => {
    const watch = await watchConfigMaps(proxy.kubeConfig(), namespace);
    await proxy.waitForWatches(1);
    expect(proxy.cut({ watch: true })).toBe(1);
    await proxy.waitUntil(() => watch.ended(), { description: 'the client watch to end' });
    expect(watch.endError()).toBeTruthy();
    expect(proxy.stats().activeWatches).toBe(0);
    expect(proxy.requests({ verb: 'watch' })[0]?.faults).toEqual(['cut']);
    const list = await proxy.kubeConfig().makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace });
    expect(list.items).toEqual([]);
  });

  it('cutting everything resets idle keep-alive connections too', async () => {
    const pending = rawGet(proxy, `/api/v1/namespaces/${namespace}/configmaps?watch=true`);
    await proxy.waitForWatches(1);
    expect(proxy.cut()).toBeGreaterThanOrEqual(1);
    await proxy.waitUntil(() => pending.closed(), {
      description: 'the raw watch to end',
    });
    await proxy.waitUntil(() => proxy.stats().activeConnections === 0);
  });

  it('a stall holds watch events until resumed, then delivers them in order', async () => {
    const watch = await watchConfigMaps(proxy.kubeConfig(), namespace);
    try {
      await proxy.waitForWatches(1);
      const stall = proxy.stall({ watch: true, namespace });
      const core = admin.makeApiClient(CoreV1Api); // directly, not through the proxy
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'held-1' } } });
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'held-2' } } });
      await proxy.waitUntil(() => proxy.stats().heldRequests === 1, { description: 'event bytes held' });
      expect(watch.events).toEqual([]);
      expect(watch.ended()).toBe(false);
      stall.resume();
      await proxy.waitUntil(() => watch.names().length === 2, { description: 'both held events' });
      expect(watch.names()).toEqual(['held-1', 'held-2']);
      expect(watch.ended()).toBe(false);
    } finally {
      watch.stop();
    }
  });

  it('a stall holds new requests too, and its cut resets them', async () => {
    const stall = proxy.stall({ verb: 'list' });
    const listing = proxy.kubeConfig().makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace });
    const outcome = listing.then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await proxy.waitUntil(() => proxy.stats().heldRequests === 1);
    expect(stall.cut()).toBe(1);
    expect(await outcome).toBeInstanceOf(Error);
    expect(proxy.rules()).toEqual([]);
  });

  it('answers 410, 429 (with Retry-After) and 500 with Kubernetes Status bodies', async () => {
    // #region respond
    // A client through the proxy (started with `startFaultProxy({ upstream: plane })`); the next lists fail.
    const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
    proxy.respond(410, { verb: 'list', count: 1 });
    proxy.respond(429, { verb: 'list', count: 1, retryAfterSeconds: 3 });
    proxy.respond(500, { verb: 'list', count: 1, message: 'etcd is on fire' });
    // #endregion respond
    await expect(core.listNamespacedConfigMap({ namespace })).rejects.toMatchObject({ code: 410 });
    await expect(core.listNamespacedConfigMap({ namespace })).rejects.toMatchObject({
      code: 429,
      headers: expect.objectContaining({ 'retry-after': '3' }),
    });
    await expect(core.listNamespacedConfigMap({ namespace })).rejects.toMatchObject({ code: 500 });
    await expect(core.listNamespacedConfigMap({ namespace })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });

    proxy.respond(429, { verb: 'get', count: 1, retryAfterSeconds: 1 });
    const raw = rawGet(proxy, `/api/v1/namespaces/${namespace}/configmaps/x`);
    await proxy.waitUntil(() => raw.done(), { description: 'the raw response' });
    expect(raw.status()).toBe(429);
    expect(raw.headers()['retry-after']).toBe('1');
    expect(raw.headers()['content-type']).toBe('application/json');
    expect(JSON.parse(raw.text())).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    // The real apiserver's answer has the same shape, which is the point.
    const notFound = rawGet(proxy, `/api/v1/namespaces/${namespace}/configmaps/x`);
    await proxy.waitUntil(() => notFound.done());
    expect(Object.keys(JSON.parse(notFound.text())).sort()).toEqual(
      ['apiVersion', 'code', 'details', 'kind', 'message', 'metadata', 'reason', 'status'].sort(),
    );
    expect(proxy.requests({ verb: 'list' }).map((r) => [r.status, r.faults])).toEqual([
      [410, ['respond']],
      [429, ['respond']],
      [500, ['respond']],
      [200, []],
    ]);
  });

  it('a malformed line and an ERROR event reach the client mid-stream', async () => {
    const watch = await watchConfigMaps(proxy.kubeConfig(), namespace);
    const raw = rawGet(proxy, `/api/v1/namespaces/${namespace}/configmaps?watch=true`);
    try {
      await proxy.waitForWatches(2);
      const core = admin.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before' } } });
      await proxy.waitUntil(() => watch.names().includes('before') && raw.text().includes('"before"'));
      expect(proxy.injectLine('{"type":"ADDED","object":{"trunc')).toBe(2);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'after' } } });
      await proxy.waitUntil(() => watch.names().includes('after') && raw.text().includes('"after"'));
      // client-node drops the malformed line silently and carries on; the raw stream shows it.
      expect(
        raw
          .text()
          .split('\n')
          .map((l) => (l.startsWith('{"type":"ADDED","object":{"kind"') ? 'event' : l)),
      ).toEqual(['event', '{"type":"ADDED","object":{"trunc', 'event', '']);
      expect(watch.names()).toEqual(['before', 'after']);

      expect(proxy.injectError(410, { message: 'too old resource version: 1 (42)' })).toBe(2);
      await proxy.waitUntil(() => watch.ended() && raw.done(), { description: 'both streams to end' });
      expect(watch.events.at(-1)).toEqual({
        type: 'ERROR',
        object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }),
      });
      expect(watch.endError()).toBeNull();
      expect(raw.text().trimEnd().split('\n').at(-1)).toContain('"type":"ERROR"');
    } finally {
      watch.stop();
      raw.close();
    }
  });

  it('answers the next watch with an in-stream 410 ERROR event, as for a compacted resourceVersion', async () => {
    const rule = proxy.respond(410, { verb: 'watch', count: 1, asWatchEvent: true });
    const first = await watchConfigMaps(proxy.kubeConfig(), namespace);
    await proxy.waitUntil(() => first.ended(), { description: 'the first watch to end' });
    expect(first.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) },
    ]);
    expect(rule.active).toBe(false);
    const second = await watchConfigMaps(proxy.kubeConfig(), namespace);
    try {
      await proxy.waitForWatches(1);
      expect(proxy.requests({ verb: 'watch' }).map((r) => [r.status, r.faults])).toEqual([
        [200, ['respond']],
        [200, []],
      ]);
    } finally {
      second.stop();
    }
  });

  it('injects an event without ending the stream', async () => {
    const watch = await watchConfigMaps(proxy.kubeConfig(), namespace);
    try {
      await proxy.waitForWatches(1);
      const fake = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ghost', namespace } };
      expect(proxy.injectEvent({ type: 'DELETED', object: fake }, { namespace })).toBe(1);
      expect(proxy.injectEvent({ type: 'DELETED', object: fake }, { namespace: 'elsewhere' })).toBe(0);
      await proxy.waitUntil(() => watch.names('DELETED').includes('ghost'));
      expect(watch.ended()).toBe(false);
    } finally {
      watch.stop();
    }
  });

  it('black-holes one client until healed (stall mode) while others carry on', async () => {
    const alice = proxy.kubeConfig('alice', ['system:masters']).makeApiClient(CoreV1Api);
    const bob = proxy.kubeConfig('bob', ['system:masters']).makeApiClient(CoreV1Api);
    const hole = proxy.blackhole({ user: 'alice' });
    let aliceDone = false;
    const aliceList = alice.listNamespacedConfigMap({ namespace }).finally(() => {
      aliceDone = true;
    });
    await proxy.waitUntil(() => proxy.stats().heldRequests === 1, { description: "alice's request held" });
    await expect(bob.listNamespacedConfigMap({ namespace })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });
    expect(aliceDone).toBe(false);
    hole.heal();
    await expect(aliceList).resolves.toMatchObject({ kind: 'ConfigMapList' });
    expect(hole.active).toBe(false);
  });

  it('black-holes one client in refuse mode: its connections reset, until healed', async () => {
    const aliceKc = proxy.kubeConfig('alice', ['system:masters']);
    const alice = aliceKc.makeApiClient(CoreV1Api);
    const watch = await watchConfigMaps(aliceKc, namespace);
    await proxy.waitForWatches(1, { user: 'alice' });
    const hole = proxy.blackhole({ user: 'alice', mode: 'refuse' });
    await proxy.waitUntil(() => watch.ended(), { description: "alice's watch to be reset" });
    await expect(alice.listNamespacedConfigMap({ namespace })).rejects.toThrow();
    await expect(
      proxy
        .kubeConfig('bob', ['system:masters'])
        .makeApiClient(CoreV1Api)
        .listNamespacedConfigMap({ namespace }),
    ).resolves.toMatchObject({ kind: 'ConfigMapList' });
    hole.heal();
    await expect(alice.listNamespacedConfigMap({ namespace })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });
  });

  it('black-holes everyone in refuse mode at the TCP level', async () => {
    const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
    const hole = proxy.blackhole({ mode: 'refuse' });
    await expect(core.listNamespacedConfigMap({ namespace })).rejects.toThrow();
    expect(proxy.stats().totalRequests).toBe(0); // refused before TLS: no request was read
    hole.heal();
    await expect(core.listNamespacedConfigMap({ namespace })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });
  });

  it('counts requests so a test can assert that a reconnect did not relist', async () => {
    const kc = proxy.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    // A minimal informer: list once, then watch from the list's resourceVersion, resuming from the
    // last seen resourceVersion whenever the watch ends.
    const list = await core.listNamespacedConfigMap({ namespace });
    let rv = list.metadata?.resourceVersion ?? '';
    const seen = new Set<string>();
    let controller: AbortController | undefined;
    let stopped = false;
    const startWatch = async (): Promise<void> => {
      controller = await new Watch(kc).watch(
        `/api/v1/namespaces/${namespace}/configmaps`,
        { resourceVersion: rv },
        (_type: string, obj: V1ConfigMap) => {
          rv = obj.metadata?.resourceVersion ?? rv;
          if (obj.metadata?.name) seen.add(obj.metadata.name);
        },
        () => {
          if (!stopped) void startWatch();
        },
      );
    };
    await startWatch();
    try {
      const direct = admin.makeApiClient(CoreV1Api);
      for (let i = 0; i < 3; i++) {
        await proxy.waitForRequests(i + 1, { verb: 'watch' });
        await proxy.waitForWatches(1);
        await direct.createNamespacedConfigMap({ namespace, body: { metadata: { name: `cm-${i}` } } });
        await proxy.waitUntil(() => seen.has(`cm-${i}`));
        expect(proxy.cut({ watch: true })).toBe(1);
      }
      await proxy.waitForRequests(4, { verb: 'watch' });
      await proxy.waitForWatches(1);
      expect(proxy.count({ verb: 'list', resource: 'configmaps', namespace })).toBe(1);
      expect(proxy.count({ verb: 'watch', resource: 'configmaps', namespace })).toBe(4);
      const watches = proxy.requests({ verb: 'watch' });
      expect(watches.every((w) => w.query.resourceVersion !== undefined)).toBe(true);
      proxy.resetStats();
      expect(proxy.stats().totalRequests).toBe(0);
      expect(proxy.requests()).toEqual([]);
    } finally {
      stopped = true;
      controller?.abort();
    }
  });

  it('delays every response chunk while the rule is installed', async () => {
    const rule = proxy.delay(20, { verb: 'list' });
    const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
    await expect(core.listNamespacedConfigMap({ namespace })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });
    expect(rule.hits).toBe(1);
    expect(proxy.requests({ verb: 'list' })[0]?.faults).toEqual(['delay']);
    rule.remove();
    await core.listNamespacedConfigMap({ namespace });
    expect(proxy.requests({ verb: 'list' })[1]?.faults).toEqual([]);
  });

  it('stop() ends client streams and leaves no socket or listener behind', async () => {
    const netHandles = () => {
      const counts: Record<string, number> = { TCPServerWrap: 0, TCPSocketWrap: 0, TLSWrap: 0 };
      for (const r of process.getActiveResourcesInfo()) if (r in counts) counts[r]!++;
      return counts;
    };
    await proxy.stop(); // the one from beforeEach
    const before = netHandles();
    const own = await startFaultProxy({ upstream: sharedControlPlane() });
    const watch = await watchConfigMaps(own.kubeConfig(), namespace);
    await own.kubeConfig().makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace });
    await own.waitForWatches(1);
    expect(own.stats().activeConnections).toBeGreaterThanOrEqual(2);
    await own.stop();
    expect(own.stats()).toMatchObject({ activeConnections: 0, activeRequests: 0, activeWatches: 0 });
    expect(await isPortClosed(own.port)).toBe(true);
    const noneLeft = () => Object.entries(netHandles()).every(([type, n]) => n <= before[type]!);
    await waitFor(
      'the watch to end and every network handle to be released',
      () => noneLeft() && watch.ended(),
    );
    expect(watch.ended()).toBe(true);
    expect(noneLeft(), JSON.stringify({ before, after: netHandles() })).toBe(true);
  });
});

describe('fault proxy in front of a dedicated control plane', () => {
  it('takes the plane itself as upstream and stops with its signal', async () => {
    await using plane = await startControlPlane();
    const controller = new AbortController();
    const proxy = await startFaultProxy({ upstream: plane, signal: controller.signal });
    const core = proxy.kubeConfig().makeApiClient(CoreV1Api);
    await expect(core.readNamespace({ name: 'default' })).resolves.toMatchObject({
      metadata: { name: 'default' },
    });
    expect(proxy.stats().requests.get).toBe(1);
    // A client certificate signed by the plane's own CA is trusted too (the identity is kept).
    const planeUser = plane.userKubeConfig('dave', ['ops']).getCurrentUser();
    const dave = new KubeConfig();
    dave.loadFromOptions({
      clusters: [{ name: 'p', server: proxy.url, caData: Buffer.from(proxy.caPem).toString('base64') }],
      users: [{ ...planeUser, name: 'dave' }],
      contexts: [{ name: 'p', cluster: 'p', user: 'dave' }],
      currentContext: 'p',
    });
    const review = await dave.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo).toMatchObject({
      username: 'dave',
      groups: expect.arrayContaining(['ops']),
    });
    controller.abort();
    expect(() => proxy.stall()).toThrow(/stopped/);
    await proxy.stop(); // resolves when the shutdown the signal started is complete
    expect(await isPortClosed(proxy.port)).toBe(true);
  }, 120_000);
});
