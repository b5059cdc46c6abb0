import { recordingLogger } from '@kubeloom/kube/fake';
import { afterEach, describe, expect, it } from 'vitest';
import { handlerCount, pod, service, type TestPod, type TestService } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { fetch, fetchOne } from './fetch.ts';
import { filter } from './filter.ts';
import type { DerivedCollection } from './many-collection.ts';
import { manyCollection } from './many-collection.ts';
import { staticCollection } from './static.ts';
import { createCollectionTracker, settle } from './testing/tracker.ts';

class Workload {
  readonly name: string;
  readonly namespace: string;
  readonly ip: string;
  readonly services: string[];
  constructor({ name, namespace, ip, services }: Omit<Workload, 'resourceName'>) {
    this.name = name;
    this.namespace = namespace;
    this.ip = ip;
    this.services = services;
  }
  resourceName(): string {
    return `${this.namespace}/${this.name}`;
  }
}

function workloadKey(w: Workload): string {
  return `${w.namespace}/${w.name}`;
}

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

function setup() {
  const signal = stop.signal;
  const pods = staticCollection<TestPod>([], { signal, name: 'pods' });
  const services = staticCollection<TestService>([], { signal, name: 'services' });
  const runs: string[] = [];
  const workloads = collection(
    pods,
    (ctx, p) => {
      runs.push(p.metadata.name);
      if (!p.status?.podIP) return undefined;
      const svcs = fetch(ctx, services, filter.selectsNonEmpty(p.metadata.labels));
      return new Workload({
        name: p.metadata.name,
        namespace: p.metadata.namespace,
        ip: p.status.podIP,
        services: svcs.map((s) => s.metadata.name).sort(),
      });
    },
    { signal, name: 'workloads' },
  );
  return { pods, services, workloads, runs };
}

describe('collection', () => {
  it('transforms inputs, suppresses equal outputs, and deletes', async () => {
    const { pods, workloads } = setup();
    const tracker = createCollectionTracker(workloads, { keyOf: workloadKey });
    expect(await workloads.waitUntilSynced(stop.signal)).toBe(true);
    pods.update(pod('ns', 'a', { labels: { app: 'x' } }));
    await tracker.empty(); // no IP, no output
    pods.update(pod('ns', 'a', { labels: { app: 'x' }, ip: '1.1.1.1' }));
    await tracker.waitOrdered('add/ns/a');
    pods.update(pod('ns', 'a', { labels: { app: 'x' }, ip: '1.1.1.1' })); // same content
    await tracker.empty();
    pods.update(pod('ns', 'a', { labels: { app: 'x' }, ip: '2.2.2.2' }));
    await tracker.waitOrdered('update/ns/a');
    expect(workloads.get('ns/a')).toMatchObject({ ip: '2.2.2.2' });
    pods.delete('ns/a');
    await tracker.waitOrdered('delete/ns/a');
    expect(workloads.list()).toEqual([]);
  });

  it('recomputes only the inputs whose fetches match a changed secondary object', async () => {
    const { pods, services, workloads, runs } = setup();
    const tracker = createCollectionTracker(workloads, { keyOf: workloadKey });
    pods.update(pod('ns', 'a', { labels: { app: 'a' }, ip: '1.1.1.1' }));
    pods.update(pod('ns', 'b', { labels: { app: 'b' }, ip: '1.1.1.2' }));
    await tracker.waitUnordered('add/ns/a', 'add/ns/b');
    runs.length = 0;
    services.update(service('ns', 'svc-a', { app: 'a' }));
    await tracker.waitOrdered('update/ns/a');
    expect(runs).toEqual(['a']);
    expect(workloads.get('ns/a')).toMatchObject({ services: ['svc-a'] });
    runs.length = 0;
    // Moving the selector recomputes both the old and the new selected pod.
    services.update(service('ns', 'svc-a', { app: 'b' }));
    await tracker.waitUnordered('update/ns/a', 'update/ns/b');
    expect(runs.sort()).toEqual(['a', 'b']);
    runs.length = 0;
    services.update(service('ns', 'unrelated', { app: 'zzz' }));
    await tracker.empty();
    expect(runs).toEqual([]);
  });

  it('is synced only after every initial input was processed and fetched sources synced', async () => {
    const signal = stop.signal;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let gateSynced = false;
    void gate.then(() => {
      gateSynced = true;
    });
    const slowSource = staticCollection([service('ns', 's', { app: 'a' })], {
      signal,
      name: 'slow',
      synced: { hasSynced: () => gateSynced, waitUntilSynced: () => gate.then(() => true) },
    });
    const pods = staticCollection([pod('ns', 'a', { labels: { app: 'a' }, ip: '1' })], {
      signal,
      name: 'pods',
    });
    const c = collection(
      pods,
      (ctx, p) => ({
        key: p.metadata.name,
        n: fetch(ctx, slowSource).length,
        resourceName() {
          return this.key;
        },
      }),
      {
        signal,
        name: 'c',
      },
    );
    await settle(3);
    expect(c.list()).toHaveLength(1);
    expect(c.hasSynced()).toBe(false);
    release();
    expect(await c.waitUntilSynced(signal)).toBe(true);
  });

  it('keeps the previous output and reports name and key when a transformation throws', async () => {
    const signal = stop.signal;
    const logger = recordingLogger();
    const src = staticCollection([{ k: 'a', v: 1, resourceName: () => 'a' }], { signal });
    const c = collection(
      src,
      (_ctx, o) => {
        if (o.v < 0) throw new Error('negative');
        return { key: o.k, double: o.v * 2, resourceName: () => o.k };
      },
      { signal, name: 'doubler', logger },
    );
    await c.waitUntilSynced(signal);
    expect(c.get('a')?.double).toBe(2);
    src.update({ k: 'a', v: -1, resourceName: () => 'a' });
    await settle(2);
    expect(c.get('a')?.double).toBe(2);
    const rec = logger.records.find((r) => r.level === 'error');
    expect(rec?.fields).toMatchObject({ collection: 'doubler', key: 'a' });
    expect((rec!.fields.err as Error).message).toBe('negative');
    src.update({ k: 'a', v: 5, resourceName: () => 'a' });
    await settle(2);
    expect(c.get('a')?.double).toBe(10);
  });

  it('fetchOne returns one object or throws for several', async () => {
    const signal = stop.signal;
    const svcs = staticCollection([service('ns', 'a'), service('ns', 'b')], { signal });
    const names = staticCollection(['ns/a', 'ns/*'], { signal });
    const errors: string[] = [];
    const logger = recordingLogger();
    const c = collection(
      names,
      (ctx, n) => {
        const one = n.endsWith('*') ? fetchOne(ctx, svcs) : fetchOne(ctx, svcs, filter.key(n));
        return one ? `${n}=${one.metadata.name}` : undefined;
      },
      { signal, logger },
    );
    await c.waitUntilSynced(signal);
    for (const r of logger.records) errors.push(String((r.fields.err as Error).message));
    expect(c.list()).toEqual(['ns/a=a']);
    expect(errors[0]).toMatch(/matched 2 objects/);
  });

  it('manyCollection emits per output key and deletes outputs no longer produced', async () => {
    const signal = stop.signal;
    const src = staticCollection([{ name: 'x', n: 2, resourceName: () => 'x' }], { signal });
    const many = manyCollection(src, (_ctx, o) => Array.from({ length: o.n }, (_, i) => `${o.name}-${i}`), {
      signal,
    });
    const t = createCollectionTracker(many);
    await t.waitUnordered('add/x-0', 'add/x-1');
    src.update({ name: 'x', n: 1, resourceName: () => 'x' });
    await t.waitOrdered('delete/x-1');
    src.update({ name: 'x', n: 3, resourceName: () => 'x' });
    await t.waitUnordered('add/x-1', 'add/x-2');
    src.delete('x');
    await t.waitUnordered('delete/x-0', 'delete/x-1', 'delete/x-2');
  });

  it('fetches through a namespace index and confirms candidates with the other filters', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>([], { signal });
    const services = staticCollection<TestService>([], { signal });
    const byNs = namespaceIndex(services);
    const runs: string[] = [];
    const c = collection(
      pods,
      (ctx, p) => {
        runs.push(p.metadata.name);
        const svcs = byNs.fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels));
        return { ...p, svcs: svcs.map((s) => s.metadata.name) };
      },
      { signal },
    );
    pods.update(pod('a', 'p1', { labels: { app: '1' } }));
    pods.update(pod('b', 'p2', { labels: { app: '1' } }));
    await c.waitUntilSynced(signal);
    await settle(2);
    runs.length = 0;
    services.update(service('a', 's', { app: '1' }));
    await settle(2);
    expect(runs).toEqual(['p1']);
    expect(c.get('a/p1')?.svcs).toEqual(['s']);
    expect(c.get('b/p2')?.svcs).toEqual([]);
    const stats = (c as unknown as DerivedCollection<unknown, unknown>).dependencyStats();
    expect(stats).toEqual({ subscriptions: 1, reverseEntries: 2 });
  });

  it('unregisters from every source when stopped', async () => {
    const outer = new AbortController();
    const inner = new AbortController();
    const pods = staticCollection<TestPod>([pod('a', 'p')], { signal: outer.signal });
    const services = staticCollection<TestService>([], { signal: outer.signal });
    const c = collection(pods, (ctx, p) => ({ ...p, n: fetch(ctx, services).length }), {
      signal: inner.signal,
    });
    await c.waitUntilSynced(inner.signal);
    expect(handlerCount(pods)).toBe(1);
    expect(handlerCount(services)).toBe(1);
    inner.abort();
    expect(handlerCount(pods)).toBe(0);
    expect(handlerCount(services)).toBe(0);
    outer.abort();
  });
});

describe('output key errors', () => {
  it('an output without a key is a transformation error for that input only', async () => {
    const signal = stop.signal;
    const logger = recordingLogger();
    const src = staticCollection(['good', 'bad'], { signal });
    const c = collection(src, (_ctx, k) => (k === 'bad' ? ({ nokey: true } as unknown as string) : `${k}!`), {
      signal,
      name: 'keys',
      logger,
    });
    await c.waitUntilSynced(signal);
    expect(c.list()).toEqual(['good!']);
    expect(logger.records[0]?.fields).toMatchObject({ collection: 'keys', key: 'bad' });
  });
});
