/**
 * The automatic inverted indexes behind `filter.selects`, `filter.selectsNonEmpty` and
 * `filter.labels` (internal/label-index.ts): fetch results and recomputes stay exact (compared
 * with a brute-force recomputation under random churn), a selector change recomputes exactly the
 * inputs it selected before or after, and a fetch's work no longer grows with the number of
 * objects in the namespace (Istio P13).
 */
import { builtins, noopLogger, type SerializedError } from '@kubeloom/kube';
import { createFakeKubeClient, recordingLogger } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1Service } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { pod, service, type TestPod, type TestService } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { fetch } from './fetch.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';
import { isSubset, selectsNonEmpty } from './labels.ts';
import { staticCollection } from './static.ts';
import { settle } from './testing/tracker.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Counts the objects a fetch filter looked at (augment runs once per candidate it verifies). */
function counting() {
  let n = 0;
  return {
    augment: (o: unknown) => {
      n++;
      return o;
    },
    take: () => {
      const v = n;
      n = 0;
      return v;
    },
  };
}

function names(xs: readonly { metadata: { name: string } }[]): string[] {
  return xs.map((x) => x.metadata.name).sort();
}

describe('selector index', () => {
  it('a fetch verifies only the objects sharing a pair with the query, however many the namespace holds (P13)', async () => {
    const signal = stop.signal;
    const seen = counting();
    const services = staticCollection<TestService>(
      Array.from({ length: 1000 }, (_, i) => service('ns', `s${i}`, { app: `a${i}` })),
      { signal, name: 'services', augment: seen.augment },
    );
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { app: 'a7', tier: 'web' } })], {
      signal,
    });
    const c = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        svcs: names(byNs.fetch(ctx, 'ns', filter.selectsNonEmpty(p.metadata.labels))),
      }),
      { signal },
    );
    await c.waitUntilSynced(signal);
    expect(c.get('ns/p')?.svcs).toEqual(['s7']);
    seen.take(); // building the index looked at every service once
    pods.update(pod('ns', 'p', { labels: { app: 'a9', tier: 'web' } }));
    await settle(2);
    expect(c.get('ns/p')?.svcs).toEqual(['s9']);
    expect(seen.take()).toBe(1);
    // The same holds without the namespace index (the collection-wide variant of the index).
    const d = collection(
      pods,
      (ctx, p) => names(fetch(ctx, services, filter.selects(p.metadata.labels)))[0],
      {
        signal,
      },
    );
    await d.waitUntilSynced(signal);
    seen.take();
    pods.update(pod('ns', 'p', { labels: { app: 'a11', tier: 'web' } }));
    await settle(2);
    expect(d.list()).toEqual(['s11']);
    expect(seen.take()).toBe(2); // one candidate for each of the two collections
  });

  it('a selector change recomputes exactly the inputs it selected before and after, checking no other', async () => {
    const signal = stop.signal;
    const seen = counting();
    const services = staticCollection<TestService>(
      [service('ns', 'svc', { app: 'a' }), service('ns', 'other', { app: 'c' })],
      { signal, augment: seen.augment },
    );
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>(
      [
        ...['a', 'b', 'c'].flatMap((app) =>
          [0, 1].map((i) => pod('ns', `${app}${i}`, { labels: { app, tier: i === 0 ? 'web' : 'db' } })),
        ),
        pod('other-ns', 'a9', { labels: { app: 'a' } }),
        // Bystanders in the same namespace: a change to svc must not even look at them.
        ...Array.from({ length: 200 }, (_, i) => pod('ns', `x${i}`, { labels: { app: 'x', tier: 'web' } })),
      ],
      { signal },
    );
    const runs: string[] = [];
    const c = collection(
      pods,
      (ctx, p) => {
        runs.push(p.metadata.name);
        return {
          metadata: p.metadata,
          svcs: names(byNs.fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))),
        };
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    expect(c.get('ns/a0')?.svcs).toEqual(['svc']);
    runs.length = 0;
    seen.take();
    services.update(service('ns', 'svc', { app: 'b' }));
    await settle(2);
    expect(runs.sort()).toEqual(['a0', 'a1', 'b0', 'b1']);
    // Change detection confirmed 4 candidates and the 4 recomputes verified a few services:
    // without the reverse selector index every pod of the namespace would have been checked.
    expect(seen.take()).toBeLessThan(20);
    expect(c.get('ns/a0')?.svcs).toEqual([]);
    expect(c.get('ns/b1')?.svcs).toEqual(['svc']);
    runs.length = 0;
    services.update(service('ns', 'svc', { app: 'b', tier: 'web' }));
    await settle(2);
    expect(runs.sort()).toEqual(['b0', 'b1']);
    expect(c.get('ns/b1')?.svcs).toEqual([]);
    runs.length = 0;
    services.update(service('ns', 'unrelated', { app: 'zzz' }));
    services.delete('ns/unrelated');
    await settle(2);
    expect(runs).toEqual([]);
    runs.length = 0;
    services.delete('ns/svc');
    await settle(2);
    expect(runs).toEqual(['b0']);
    expect(c.get('ns/b0')?.svcs).toEqual([]);
  });

  it('selects: an empty selector selects every input of its namespace; selectsNonEmpty: none', async () => {
    const signal = stop.signal;
    const services = staticCollection<TestService>([service('ns', 'narrow', { app: 'a' })], { signal });
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>(
      [
        pod('ns', 'p1', { labels: { app: 'a' } }),
        pod('ns', 'p2', { labels: { app: 'b' } }),
        pod('elsewhere', 'p3', { labels: { app: 'a' } }),
      ],
      { signal },
    );
    const runs: string[] = [];
    const c = collection(
      pods,
      (ctx, p) => {
        runs.push(p.metadata.name);
        const ns = p.metadata.namespace;
        return {
          metadata: p.metadata,
          all: names(byNs.fetch(ctx, ns, filter.selects(p.metadata.labels))),
          nonEmpty: names(byNs.fetch(ctx, ns, filter.selectsNonEmpty(p.metadata.labels))),
        };
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    runs.length = 0;
    services.update(service('ns', 'wide', {}));
    await settle(2);
    expect(runs.sort()).toEqual(['p1', 'p2']);
    expect(c.get('ns/p1')).toMatchObject({ all: ['narrow', 'wide'], nonEmpty: ['narrow'] });
    expect(c.get('ns/p2')).toMatchObject({ all: ['wide'], nonEmpty: [] });
    expect(c.get('elsewhere/p3')).toMatchObject({ all: [], nonEmpty: [] });
  });

  it('stays equal to a brute-force recomputation under random churn of pods and services', async () => {
    const signal = stop.signal;
    const random = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const nss = ['n0', 'n1'];
    const apps = ['a', 'b', 'c'];
    const tiers = ['web', 'db'];
    const randomLabels = (): Record<string, string> => {
      const l: Record<string, string> = {};
      if (random() < 0.9) l.app = pick(apps);
      if (random() < 0.5) l.tier = pick(tiers);
      return l;
    };
    const services = staticCollection<TestService>([], { signal, name: 'services' });
    const pods = staticCollection<TestPod>([], { signal, name: 'pods' });
    const byNs = namespaceIndex(services);
    const scoped = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        nonEmpty: names(byNs.fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))),
        all: names(byNs.fetch(ctx, p.metadata.namespace, filter.selects(p.metadata.labels))),
      }),
      { signal, name: 'scoped' },
    );
    const anywhere = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        svcs: names(fetch(ctx, services, filter.selects(p.metadata.labels))),
      }),
      { signal, name: 'anywhere' },
    );
    // Services selecting by labels: the reverse direction (label filter on the pods).
    const backends = collection(
      services,
      (ctx, s) => {
        const sel = s.spec.selector ?? {};
        if (Object.keys(sel).length === 0) return { metadata: s.metadata, pods: [] as string[] };
        return { metadata: s.metadata, pods: names(fetch(ctx, pods, filter.labels(sel))) };
      },
      { signal, name: 'backends' },
    );
    const check = (): void => {
      const allPods = pods.list();
      const allSvcs = services.list();
      for (const p of allPods) {
        const key = `${p.metadata.namespace}/${p.metadata.name}`;
        const same = allSvcs.filter((s) => s.metadata.namespace === p.metadata.namespace);
        expect(scoped.get(key), key).toEqual({
          metadata: p.metadata,
          nonEmpty: names(same.filter((s) => selectsNonEmpty(s.spec.selector, p.metadata.labels))),
          all: names(same.filter((s) => isSubset(s.spec.selector, p.metadata.labels))),
        });
        expect(anywhere.get(key)?.svcs, key).toEqual(
          names(allSvcs.filter((s) => isSubset(s.spec.selector, p.metadata.labels))),
        );
      }
      for (const s of allSvcs) {
        const key = `${s.metadata.namespace}/${s.metadata.name}`;
        const sel = s.spec.selector ?? {};
        const want =
          Object.keys(sel).length === 0 ? [] : names(allPods.filter((p) => isSubset(sel, p.metadata.labels)));
        expect(backends.get(key)?.pods, key).toEqual(want);
      }
      expect(scoped.list()).toHaveLength(allPods.length);
    };
    for (let round = 0; round < 300; round++) {
      const r = random();
      const ns = pick(nss);
      if (r < 0.35) pods.update(pod(ns, `p${Math.floor(random() * 12)}`, { labels: randomLabels() }));
      else if (r < 0.45) pods.delete(`${ns}/p${Math.floor(random() * 12)}`);
      else if (r < 0.85) {
        const sel = random() < 0.15 ? {} : randomLabels();
        services.update(service(ns, `s${Math.floor(random() * 6)}`, sel));
      } else services.delete(`${ns}/s${Math.floor(random() * 6)}`);
      if (round % 10 === 9) {
        await settle(3);
        check();
      }
    }
    await settle(3);
    check();
  });

  it('an object without a selector makes the fetch fail for that input, as a scan would', async () => {
    const signal = stop.signal;
    const logger = recordingLogger();
    const things = staticCollection<{ metadata: { name: string; namespace: string } }>(
      [{ metadata: { name: 'no-spec', namespace: 'ns' } }],
      { signal },
    );
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { app: 'a' } })], { signal });
    const c = collection(
      pods,
      (ctx, p) => fetch(ctx, things, filter.selectsNonEmpty(p.metadata.labels)).length,
      {
        signal,
        logger,
        name: 'broken',
      },
    );
    await c.waitUntilSynced(signal);
    expect(c.list()).toEqual([]);
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]!.fields).toMatchObject({ collection: 'broken', key: 'ns/p' });
    expect((logger.records[0]!.fields as { err: SerializedError }).err.message).toMatch(/no label selector/);
  });
});

describe('candidate lists', () => {
  it("fetch results and index lookups are the caller's own arrays, never the cached candidates", async () => {
    const signal = stop.signal;
    const services = staticCollection<TestService>([service('ns', 's1', { app: 'a' })], { signal });
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { app: 'a' } })], { signal });
    const results: TestService[][] = [];
    const c = collection(
      pods,
      (ctx, p) => {
        const found = byNs.fetch(ctx, 'ns', filter.selectsNonEmpty(p.metadata.labels));
        results.push(found);
        const all = fetch(ctx, services, filter.labels({}), filter.selects(p.metadata.labels));
        all.push(service('ns', 'intruder', { app: 'a' }));
        return `${p.metadata.name}:${found.length}`;
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    results[0]!.push(service('ns', 'intruder', { app: 'a' }));
    const looked = byNs.lookup('ns');
    looked.length = 0;
    pods.update(pod('ns', 'p', { labels: { app: 'a', v: '2' } }));
    await settle(2);
    expect(results).toHaveLength(2);
    expect(names(results[1]!)).toEqual(['s1']);
    expect(names(byNs.lookup('ns'))).toEqual(['s1']);
  });
});

describe('label index', () => {
  it('a label change recomputes exactly the inputs that asked for the old or the new labels', async () => {
    const signal = stop.signal;
    const seen = counting();
    const pods = staticCollection<TestPod>(
      [
        pod('ns', 'p1', { labels: { app: 'a' } }),
        pod('ns', 'p2', { labels: { app: 'b' } }),
        pod('ns', 'p3', { labels: { app: 'c' } }),
      ],
      { signal, augment: seen.augment },
    );
    const selectors = staticCollection<TestService>(
      [
        ...['a', 'b', 'c'].map((app) => service('ns', `want-${app}`, { app })),
        ...Array.from({ length: 100 }, (_, i) => service('ns', `want-y${i}`, { app: `y${i}` })),
      ],
      { signal },
    );
    const byNs = namespaceIndex(pods);
    const runs: string[] = [];
    const c = collection(
      selectors,
      (ctx, s) => {
        runs.push(s.metadata.name);
        return { metadata: s.metadata, pods: names(byNs.fetch(ctx, 'ns', filter.labels(s.spec.selector))) };
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    runs.length = 0;
    seen.take();
    pods.update(pod('ns', 'p1', { labels: { app: 'b' } }));
    await settle(2);
    expect(runs.sort()).toEqual(['want-a', 'want-b']);
    expect(seen.take()).toBeLessThan(12); // not one check per selector of the namespace
    expect(c.get('ns/want-b')?.pods).toEqual(['p1', 'p2']);
    expect(c.get('ns/want-a')?.pods).toEqual([]);
    runs.length = 0;
    pods.update(pod('other', 'p1', { labels: { app: 'b' } }));
    await settle(2);
    expect(runs).toEqual([]);
  });
});

describe('informer collections keep their automatic indexes in step with their events', () => {
  it('services created, relabelled and deleted through the API are selected exactly', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const signal = stop.signal;
    signal.addEventListener('abort', () => kube.shutdown());
    const services = informer(kube, builtins.Service, { signal, name: 'services' });
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { app: 'a' } })], { signal });
    const c = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        svcs: byNs
          .fetch(ctx, 'ns', filter.selectsNonEmpty(p.metadata.labels))
          .map((s) => s.metadata!.name!)
          .sort(),
      }),
      { signal },
    );
    const svc = (name: string, app: string): V1Service => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'ns' },
      spec: { selector: { app } },
    });
    await kube.api.create(builtins.Service, svc('before-start', 'a'));
    expect(await kube.runAndWait(signal)).toBe(true);
    expect(await c.waitUntilSynced(signal)).toBe(true);
    const until = (want: string[]) =>
      waitFor(`the services of p to be ${JSON.stringify(want)}`, () => {
        expect(c.get('ns/p')?.svcs).toEqual(want);
        return true;
      });
    await until(['before-start']);
    const created = await kube.api.create(builtins.Service, svc('later', 'a'));
    await until(['before-start', 'later']);
    await kube.api.update(builtins.Service, { ...created, spec: { selector: { app: 'b' } } });
    await until(['before-start']);
    await kube.api.delete({ resource: builtins.Service, name: 'before-start', namespace: 'ns' });
    await until([]);
    pods.update(pod('ns', 'p', { labels: { app: 'b' } }));
    await until(['later']);
  });
});
