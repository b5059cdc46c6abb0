import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WatchReader } from '../../test/conformance/watch-reader.ts';
import type { WatchEvent } from '../api.ts';
import { WatchIdleTimeoutError } from '../api.ts';
import { builtins } from '../builtins.ts';
import { ApiError, isGone, TooManyRequestsError } from '../errors.ts';
import { extractTombstone, isTombstone } from '../informer.ts';
import { noopLogger } from '../logger.ts';
import type { KubeObject } from '../object.ts';
import { createFakeKubeClient } from './create-fake-kube-client.ts';
import { createFakeApiClient } from './fake-api-client.ts';
import { FakeCluster } from './fake-cluster.ts';
import type { FakeRequest } from './fake-cluster-options.ts';

const cm = (name: string, namespace = 'ns', data: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }) as KubeObject;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'things', kind: 'Thing' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }],
  },
} as KubeObject;
const Thing = {
  group: 'example.com',
  version: 'v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
  subresources: { status: true },
};

const controllers: AbortController[] = [];
function watch(
  api: ReturnType<typeof createFakeApiClient>,
  opts: Parameters<typeof api.watch>[1] = {},
  resource = builtins.ConfigMap,
): WatchReader {
  const c = new AbortController();
  controllers.push(c);
  return new WatchReader(api.watch(resource, { ...opts, signal: c.signal }), c);
}
afterEach(() => {
  for (const c of controllers.splice(0)) c.abort();
});

const name = (e: WatchEvent | 'end') =>
  e !== 'end' && 'object' in e
    ? `${e.type} ${e.object.metadata?.name ?? ''}`.trim()
    : e === 'end'
      ? 'end'
      : e.type;

describe('FakeCluster seeding and inspection', () => {
  it('seeds CRDs first, keeps status and given metadata, fills uid, timestamps and resourceVersions', () => {
    const cluster = new FakeCluster({
      objects: [
        {
          apiVersion: 'example.com/v1',
          kind: 'Thing',
          metadata: { name: 't', namespace: 'ns' },
          status: { ready: true },
        } as KubeObject,
        cm('a'),
      ],
      crds: [crd],
    });
    const t = cluster.getObject<KubeObject & { status: unknown }>(Thing, 't', 'ns');
    expect(t?.status).toEqual({ ready: true });
    expect(t?.metadata?.generation).toBe(1);
    expect(cluster.getObject(builtins.ConfigMap, 'a', 'ns')?.metadata?.uid).toBeDefined();
    expect(cluster.listObjects(builtins.ConfigMap).map((o) => o.metadata?.name)).toEqual(['a']);
    expect(Number(cluster.resourceVersion)).toBe(3);
    expect(() => cluster.seed(cm('a'))).toThrow(/exists already/);
    expect(() => cluster.seed({ apiVersion: 'nope/v1', kind: 'Nope', metadata: { name: 'x' } })).toThrow(
      /not served/,
    );
  });

  it('defaults a seeded namespaced object to the default namespace, and allows creates in missing namespaces unless strict', async () => {
    const api = createFakeApiClient({
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }],
    });
    expect(api.cluster.getObject(builtins.ConfigMap, 'x', 'default')).toBeDefined();
    await api.create(builtins.ConfigMap, cm('a', 'nowhere'));
    const strict = createFakeApiClient({ strictNamespaces: true });
    const err = await strict
      .create(builtins.ConfigMap, cm('a', 'nowhere'))
      .catch((e: unknown) => e as ApiError);
    expect(err).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
  });

  it('deleting a namespace deletes what it holds', async () => {
    const api = createFakeApiClient({
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } }, cm('a'), cm('b', 'other')],
    });
    await api.delete({ resource: builtins.Namespace, name: 'ns' });
    expect(api.cluster.listObjects(builtins.ConfigMap).map((o) => o.metadata?.name)).toEqual(['b']);
  });

  it('uses the injected clock and version', async () => {
    const api = createFakeApiClient({
      now: () => new Date('2030-01-02T03:04:05.678Z'),
      version: { minor: '99' },
    });
    const a = await api.create(builtins.ConfigMap, cm('a'));
    expect(a.metadata?.creationTimestamp).toBe('2030-01-02T03:04:05Z');
    expect(await api.request({ method: 'GET', path: '/version' })).toMatchObject({ major: '1', minor: '99' });
  });
});

describe('FakeCluster failure injection and observation', () => {
  it('fails the next N calls of a verb with the given status, then recovers', async () => {
    const api = createFakeApiClient({ objects: [cm('a')] });
    api.cluster.failNext('get', 2, { code: 503 });
    for (let i = 0; i < 2; i++) {
      const err = (await api
        .get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' })
        .catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    }
    expect((await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' })).metadata?.name).toBe(
      'a',
    );
  });

  it('fails per resource, with Retry-After, and every list/watch until cleared', async () => {
    const api = createFakeApiClient({ objects: [cm('a')] });
    api.cluster.failNext(['list'], 1, { resource: builtins.Secret, code: 429, retryAfterSeconds: 7 });
    await api.list(builtins.ConfigMap);
    const err = await api.list(builtins.Secret).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyRequestsError);
    expect((err as ApiError).retryAfterSeconds).toBe(7);
    const clear = api.cluster.failAlways(['list', 'watch']);
    for (let i = 0; i < 3; i++)
      await expect(api.list(builtins.ConfigMap)).rejects.toMatchObject({ code: 500 });
    const w = watch(api);
    await expect(w.next()).rejects.toMatchObject({ code: 500, reason: 'InternalError' });
    clear();
    expect((await api.list(builtins.ConfigMap)).items).toHaveLength(1);
  });

  it('observes and counts every request, failed ones included', async () => {
    const api = createFakeApiClient({ objects: [cm('a')] });
    const seen: FakeRequest[] = [];
    const stop = api.cluster.onRequest((r) => seen.push(r));
    api.cluster.failNext('list', 1);
    await api.list(builtins.ConfigMap).catch(() => {});
    await api.list(builtins.ConfigMap, { namespace: 'ns' });
    const w = watch(api, { resourceVersion: api.cluster.resourceVersion });
    await api.create(builtins.ConfigMap, cm('b'));
    await w.next();
    stop();
    await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' });
    // A watch starts when it is first read, like an HTTP watch request.
    expect(seen.map((r) => r.verb)).toEqual(['list', 'list', 'create', 'watch']);
    expect(api.cluster.requestCount('list')).toBe(2);
    expect(api.cluster.requestCount('list', builtins.ConfigMap)).toBe(2);
    expect(api.cluster.requestCount('list', builtins.Secret)).toBe(0);
    expect(api.cluster.requestCount('get')).toBe(1);
    expect(api.cluster.watcherCount(builtins.ConfigMap)).toBe(1);
  });

  it('delays requests on the global timers (so fake timers control them) and honours the signal while delaying', async () => {
    vi.useFakeTimers();
    try {
      const api = createFakeApiClient({ objects: [cm('a')] });
      const remove = api.cluster.delay(20, { verbs: ['get'] });
      const order: string[] = [];
      const delayed = api
        .get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' })
        .then(() => order.push('get'));
      await api.list(builtins.ConfigMap).then(() => order.push('list (not delayed)'));
      await vi.advanceTimersByTimeAsync(19);
      order.push('19 ms');
      await vi.advanceTimersByTimeAsync(1);
      await delayed;
      expect(order).toEqual(['list (not delayed)', '19 ms', 'get']);
      const c = new AbortController();
      const pending = api.get(
        { resource: builtins.ConfigMap, name: 'a', namespace: 'ns' },
        { signal: c.signal },
      );
      c.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(vi.getTimerCount()).toBe(0);
      remove();
      expect(
        (await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' })).metadata?.name,
      ).toBe('a');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('FakeCluster watch controls', () => {
  it('expireWatches ends live watches with 410 Expired and compacts, so resuming fails too', async () => {
    const api = createFakeApiClient({ objects: [cm('a')] });
    const from = api.cluster.resourceVersion;
    const w = watch(api, { resourceVersion: from });
    await api.create(builtins.ConfigMap, cm('b'));
    expect(name(await w.next())).toBe('ADDED b');
    expect(api.cluster.expireWatches()).toBe(1);
    const error = await w.next();
    expect(error).toMatchObject({ type: 'ERROR', status: { code: 410, reason: 'Expired' } });
    expect(await w.next()).toBe('end');
    const resumed = watch(api, { resourceVersion: from });
    expect(await resumed.next()).toMatchObject({ type: 'ERROR', status: { code: 410 } });
    expect(api.cluster.watcherCount()).toBe(0);
  });

  it('disconnectWatches ends streams normally; resuming from the last resourceVersion loses nothing', async () => {
    const api = createFakeApiClient();
    const w = watch(api, { resourceVersion: api.cluster.resourceVersion });
    const a = await api.create(builtins.ConfigMap, cm('a'));
    expect(name(await w.next())).toBe('ADDED a');
    api.cluster.disconnectWatches();
    expect(await w.next()).toBe('end');
    await api.create(builtins.ConfigMap, cm('b'));
    const resumed = watch(api, { resourceVersion: a.metadata!.resourceVersion! });
    expect(name(await resumed.next())).toBe('ADDED b');
  });

  it('sends bookmarks on demand and periodically, only to watches that allow them', async () => {
    const api = createFakeApiClient({ bookmarkIntervalMs: 10 });
    const withBookmarks = watch(api, { resourceVersion: '0', allowWatchBookmarks: true });
    const without = watch(api, { resourceVersion: api.cluster.resourceVersion });
    expect(await withBookmarks.next()).toMatchObject({
      type: 'BOOKMARK',
      object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    expect(api.cluster.sendBookmarks()).toBe(1);
    const onDemand = await withBookmarks.next();
    expect(onDemand).toMatchObject({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', metadata: { resourceVersion: api.cluster.resourceVersion } },
    });
    expect(await withBookmarks.next()).toMatchObject({ type: 'BOOKMARK' });
    await api.create(builtins.ConfigMap, cm('a'));
    expect(name(await without.next())).toBe('ADDED a');
  });

  it('sends a periodic BOOKMARK every 60 s by default, as the apiserver does (too slow for the conformance suite)', async () => {
    vi.useFakeTimers();
    try {
      const api = createFakeApiClient({ objects: [cm('a')] });
      const c = new AbortController();
      const stream = api
        .watch(builtins.ConfigMap, {
          resourceVersion: api.cluster.resourceVersion,
          allowWatchBookmarks: true,
          signal: c.signal,
        })
        [Symbol.asyncIterator]();
      const order: string[] = [];
      const first = stream.next().then((r) => order.push(r.done ? 'end' : r.value.type));
      await vi.advanceTimersByTimeAsync(59_999);
      order.push('59.999 s');
      await vi.advanceTimersByTimeAsync(1);
      await first;
      expect(order).toEqual(['59.999 s', 'BOOKMARK']);
      c.abort();
      await stream.return?.();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('compaction by history limit expires old resourceVersions and continue tokens', async () => {
    const api = createFakeApiClient({ historyLimit: 3 });
    const first = await api.create(builtins.ConfigMap, cm('a'));
    for (const n of ['b', 'c', 'd', 'e']) await api.create(builtins.ConfigMap, cm(n));
    expect(Number(api.cluster.compactedResourceVersion)).toBe(2);
    expect(await watch(api, { resourceVersion: first.metadata!.resourceVersion! }).next()).toMatchObject({
      type: 'ERROR',
    });
    const page = await api.list(builtins.ConfigMap, { limit: 2 });
    await api.create(builtins.ConfigMap, cm('f'));
    api.cluster.compact();
    const err = await api
      .list(builtins.ConfigMap, { limit: 2, continue: page.metadata.continue })
      .catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
  });

  it('idleTimeoutMs fails a silent watch with WatchIdleTimeoutError', async () => {
    const api = createFakeApiClient();
    const w = watch(api, { resourceVersion: api.cluster.resourceVersion, idleTimeoutMs: 20 });
    await expect(w.next()).rejects.toBeInstanceOf(WatchIdleTimeoutError);
  });

  it('close() of a client ends its watches only; cluster.close() ends all', async () => {
    const cluster = new FakeCluster();
    const one = createFakeApiClient(cluster);
    const two = createFakeApiClient(cluster);
    const w1 = watch(one, { resourceVersion: cluster.resourceVersion });
    const w2 = watch(two, { resourceVersion: cluster.resourceVersion });
    await one.create(builtins.ConfigMap, cm('a'));
    await w1.next();
    await w2.next();
    one.close();
    expect(await w1.next()).toBe('end');
    await one.create(builtins.ConfigMap, cm('b'));
    expect(name(await w2.next())).toBe('ADDED b');
    cluster.close();
    expect(await w2.next()).toBe('end');
    expect(await watch(two).next()).toBe('end');
  });

  it('await using a client ends its watches; await using the cluster ends all', async () => {
    const cluster = new FakeCluster();
    const other = createFakeApiClient(cluster);
    const w2 = watch(other, { resourceVersion: cluster.resourceVersion });
    {
      await using one = createFakeApiClient(cluster);
      const w1 = watch(one, { resourceVersion: cluster.resourceVersion });
      await one.create(builtins.ConfigMap, cm('a'));
      await w1.next();
      await w2.next();
      expect(cluster.watcherCount()).toBe(2);
    }
    expect(cluster.watcherCount()).toBe(1);
    await other.create(builtins.ConfigMap, cm('b'));
    expect(name(await w2.next())).toBe('ADDED b');
    {
      await using disposed = cluster;
      expect(disposed.watcherCount()).toBe(1);
    }
    expect(await w2.next()).toBe('end');
    expect(cluster.watcherCount()).toBe(0);
  });

  it('watch events are copies', async () => {
    const api = createFakeApiClient();
    const w = watch(api, { resourceVersion: api.cluster.resourceVersion });
    await api.create(builtins.ConfigMap, cm('a', 'ns', { v: '1' }));
    const e = await w.next();
    if (e === 'end' || !('object' in e)) throw new Error('expected an object event');
    (e.object as KubeObject & { data: Record<string, string> }).data.v = 'changed';
    expect(
      (api.cluster.getObject(builtins.ConfigMap, 'a', 'ns') as KubeObject & { data: unknown }).data,
    ).toEqual({ v: '1' });
  });

  it('deleting a CRD deletes its objects and ends its watches', async () => {
    const api = createFakeApiClient({
      crds: [crd],
      objects: [{ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'ns' } }],
    });
    const w = watch(api, { resourceVersion: api.cluster.resourceVersion }, Thing);
    const first = w.next();
    await waitFor('the watch to be open', () => api.cluster.watcherCount(Thing) === 1);
    await api.delete({ resource: builtins.CustomResourceDefinition, name: 'things.example.com' });
    expect(name(await first)).toBe('DELETED t');
    expect(await w.next()).toBe('end');
    await expect(api.list(Thing)).rejects.toMatchObject({ code: 404 });
  });
});

describe('FakeCluster patches and requests', () => {
  it('accepts server-side apply configurations as YAML text', async () => {
    const api = createFakeApiClient();
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  namespace: ns\ndata:\n  k: v\n';
    const obj = await api.patch({ resource: builtins.ConfigMap, name: 'y', namespace: 'ns' }, yaml, {
      type: 'apply',
      fieldManager: 'me',
    });
    expect((obj as KubeObject & { data: unknown }).data).toEqual({ k: 'v' });
  });

  it('routes raw requests for resource paths to the verbs', async () => {
    const api = createFakeApiClient();
    await api.request({
      method: 'POST',
      path: '/api/v1/namespaces/ns/configmaps',
      body: { metadata: { name: 'r' }, data: { a: '1' } },
    });
    const got = await api.request<KubeObject>({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps/r' });
    expect(got.metadata?.namespace).toBe('ns');
    const list = await api.request<{ items: unknown[] }>({
      method: 'GET',
      path: '/api/v1/configmaps',
      query: { labelSelector: '' },
    });
    expect(list.items).toHaveLength(1);
    await api.request({
      method: 'PATCH',
      path: '/api/v1/namespaces/ns/configmaps/r',
      body: { data: { b: '2' } },
    });
    await api.request({ method: 'DELETE', path: '/api/v1/namespaces/ns/configmaps/r' });
    expect(api.cluster.listObjects(builtins.ConfigMap)).toEqual([]);
    expect(await api.request({ method: 'GET', path: '/healthz' })).toBe('ok');
  });

  it('tracks managedFields for updates by field manager', async () => {
    const api = createFakeApiClient({ defaultFieldManager: 'default-writer' });
    const a = await api.create(builtins.ConfigMap, cm('a', 'ns', { x: '1' }));
    expect(a.metadata?.managedFields).toMatchObject([
      { manager: 'default-writer', operation: 'Update', fieldsV1: { 'f:data': { 'f:x': {} } } },
    ]);
    const b = await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: 'ns' },
      { data: { x: '2', y: '3' } },
      { type: 'merge', fieldManager: 'other' },
    );
    expect(b.metadata?.managedFields).toMatchObject([
      { manager: 'other', fieldsV1: { 'f:data': { 'f:x': {}, 'f:y': {} } } },
    ]);
  });
});

describe('createFakeKubeClient', () => {
  it('runs informers on the fake cluster: initial sync, live events; what vanished while disconnected comes back as a Tombstone after a forced 410', async () => {
    const kube = createFakeKubeClient({ objects: [cm('a')], logger: noopLogger });
    const informer = kube.informer(builtins.ConfigMap);
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata?.name}`),
      onUpdate: (_, n) => events.push(`update ${n.metadata?.name}`),
      onDelete: (o) =>
        events.push(`delete ${isTombstone(o) ? 'tombstone ' : ''}${extractTombstone(o).metadata?.name}`),
    });
    const stop = new AbortController();
    try {
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      expect(events).toEqual(['add a']);
      await kube.api.create(builtins.ConfigMap, cm('b'));
      await waitFor('the add of b', () => events.includes('add b'));
      await waitFor('the informer to watch', () => kube.cluster.watcherCount(builtins.ConfigMap) === 1);
      const lists = kube.cluster.requestCount('list', builtins.ConfigMap);
      // Disconnect the informer and keep it from watching again, then delete behind its back.
      const stall = kube.cluster.failAlways('watch', { code: 503 });
      kube.cluster.disconnectWatches();
      expect(kube.cluster.watcherCount(builtins.ConfigMap)).toBe(0);
      const watches = kube.cluster.requestCount('watch', builtins.ConfigMap);
      await waitFor(
        'the informer to try to watch again',
        () => kube.cluster.requestCount('watch', builtins.ConfigMap) > watches,
      );
      await kube.api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' });
      // Its resume point is compacted away: the next watch gets 410 and the informer relists.
      kube.cluster.compact();
      stall();
      await waitFor('the delete of a, as a tombstone', () => events.includes('delete tombstone a'));
      expect(events).toEqual(['add a', 'add b', 'delete tombstone a']);
      expect(kube.cluster.requestCount('list', builtins.ConfigMap)).toBe(lists + 1);
      expect(informer.store.list().map((o) => o.metadata?.name)).toEqual(['b']);
      expect(kube.cluster).toBeInstanceOf(FakeCluster);
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });
});
