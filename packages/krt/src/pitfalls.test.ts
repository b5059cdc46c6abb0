/**
 * Regression tests for the known pitfalls of Istio's krt (istio-pkg-kube.md §7, P1–P13) that
 * apply to kubeloom, each fixed by design.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { builtins, namespaceFilter, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { handlerCount, pod, service, type TestPod, type TestService } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { index, namespaceIndex } from './collection-index.ts';
import type { Collection } from './core.ts';
import { createDebugHandler } from './debug.ts';
import { fetch, fetchOne } from './fetch.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';
import { joinCollection } from './join.ts';
import type { DerivedCollection } from './many-collection.ts';
import { nestedJoin } from './nested-join.ts';
import { singleton, staticSingleton } from './singleton.ts';
import { staticCollection } from './static.ts';
import { createCollectionTracker, settle } from './testing/tracker.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

function stats(c: Collection<unknown>) {
  return (c as unknown as DerivedCollection<unknown, unknown>).dependencyStats();
}

interface Waypoint {
  metadata: { name: string; namespace: string };
  addr: string;
}

describe('P1: reverse-index entries are replaced atomically when a key filter changes', () => {
  it('relabelling an input many times keeps one reverse entry and stops reacting to the old key', async () => {
    const signal = stop.signal;
    const waypoints = staticCollection<Waypoint>(
      Array.from({ length: 10 }, (_, i) => ({ metadata: { name: `w${i}`, namespace: 'ns' }, addr: `a${i}` })),
      { signal },
    );
    const pods = staticCollection<TestPod>([pod('ns', 'p', { labels: { waypoint: 'w0' } })], { signal });
    let runs = 0;
    const c = collection(
      pods,
      (ctx, p) => {
        runs++;
        const w = fetchOne(ctx, waypoints, filter.key(`ns/${p.metadata.labels!.waypoint}`));
        return { ...p, addr: w?.addr };
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    for (let i = 1; i <= 200; i++) pods.update(pod('ns', 'p', { labels: { waypoint: `w${i % 10}` } }));
    await settle(2);
    expect(stats(c)).toEqual({ subscriptions: 1, reverseEntries: 1 });
    expect(c.get('ns/p')?.addr).toBe('a0');
    runs = 0;
    waypoints.update({ metadata: { name: 'w5', namespace: 'ns' }, addr: 'changed' });
    await settle(2);
    expect(runs).toBe(0);
    waypoints.update({ metadata: { name: 'w0', namespace: 'ns' }, addr: 'changed' });
    await settle(2);
    expect(runs).toBe(1);
    expect(c.get('ns/p')?.addr).toBe('changed');
    pods.delete('ns/p');
    await settle(2);
    expect(stats(c)).toEqual({ subscriptions: 0, reverseEntries: 0 });
  });
});

function enableGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('P2/P3: stop releases everything; a stop signal is mandatory', () => {
  it('refuses a collection without a signal', () => {
    const src = staticCollection(['1'], { signal: stop.signal });
    expect(() => collection(src, (_c, x) => `${x}`, {} as never)).toThrow(/options.signal is required/);
    expect(() => staticCollection([], undefined as never)).toThrow(/signal is required/);
  });

  it('creating and stopping 1,000 derived collections leaves no handler, debug entry or heap growth', async () => {
    const gc = enableGc();
    const signal = stop.signal;
    const debug = createDebugHandler();
    const pods = staticCollection<TestPod>(
      Array.from({ length: 50 }, (_, i) =>
        pod('ns', `p${i}`, { labels: { app: `a${i % 5}` }, ip: '1.1.1.1' }),
      ),
      { signal, name: 'pods' },
    );
    const services = staticCollection<TestService>([service('ns', 's', { app: 'a1' })], {
      signal,
      name: 'services',
    });
    const byNs = namespaceIndex(services);
    const cycle = async (): Promise<void> => {
      const s = new AbortController();
      const c = collection(
        pods,
        (ctx, p) => ({ ...p, svcs: byNs.fetch(ctx, 'ns', filter.selectsNonEmpty(p.metadata.labels)).length }),
        { signal: s.signal, debug },
      );
      const j = joinCollection([c, pods], { signal: s.signal, debug });
      const t = createCollectionTracker(j);
      await t.registration.waitUntilSynced(s.signal);
      s.abort();
    };
    for (let i = 0; i < 100; i++) await cycle();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1000; i++) await cycle();
    gc();
    const after = process.memoryUsage().heapUsed;
    expect(handlerCount(pods)).toBe(0);
    expect(handlerCount(services)).toBe(0);
    expect(debug.size).toBe(0);
    // 1,000 leaked collections with 50 inputs each would hold tens of MB.
    expect(after - before).toBeLessThan(4 * 1024 * 1024);
  });

  it('a long-lived collection stops referencing a short-lived source once no input fetches it', async () => {
    const signal = stop.signal;
    const shortLived = new AbortController();
    const temp = staticCollection<string>(['x'], { signal: shortLived.signal, name: 'temp' });
    const useTemp = staticSingleton<boolean>(true, { signal, name: 'useTemp' });
    const inputs = staticCollection(['a', 'b'], { signal });
    const c = collection(
      inputs,
      (ctx, k) => {
        const on = fetch(ctx, useTemp.asCollection())[0];
        return on ? `${k}:${fetch(ctx, temp).length}` : `${k}:off`;
      },
      { signal },
    );
    await c.waitUntilSynced(signal);
    expect(stats(c).subscriptions).toBe(2);
    useTemp.set(false);
    await settle(2);
    expect(c.list().sort()).toEqual(['a:off', 'b:off']);
    expect(stats(c).subscriptions).toBe(1);
    expect(handlerCount(temp)).toBe(0);
    shortLived.abort();
  });
});

describe('P4: several fetches of one source each propagate changes', () => {
  it('key, index and a second index on the same source, plus a plain fetch', async () => {
    const signal = stop.signal;
    const svcs = staticCollection<TestService>(
      [service('a', 's1', { app: 'x' }), service('b', 's2', { app: 'y' }), service('c', 's3', {})],
      { signal },
    );
    const byNs = namespaceIndex(svcs);
    const byApp = index(svcs, 'app', (s) => (s.spec.selector?.app ? [s.spec.selector.app] : []));
    const inputs = staticCollection(['in'], { signal });
    const c = collection(
      inputs,
      (ctx, k) => ({
        k,
        byKey: fetch(ctx, svcs, filter.key('a/s1')).map((s) => s.spec.selector?.app),
        byNs: byNs.fetch(ctx, 'b').map((s) => s.spec.selector?.app),
        byApp: byApp.fetch(ctx, 'z').map((s) => s.metadata.name),
        resourceName: () => k,
      }),
      { signal },
    );
    await c.waitUntilSynced(signal);
    expect(c.get('in')).toMatchObject({ byKey: ['x'], byNs: ['y'], byApp: [] });
    svcs.update(service('a', 's1', { app: 'x2' }));
    await settle(2);
    expect(c.get('in')?.byKey).toEqual(['x2']);
    svcs.update(service('b', 's2', { app: 'y2' }));
    await settle(2);
    expect(c.get('in')?.byNs).toEqual(['y2']);
    svcs.update(service('c', 's3', { app: 'z' }));
    await settle(2);
    expect(c.get('in')?.byApp).toEqual(['s3']);
  });

  it('a plain fetch alongside a key fetch sees every change', async () => {
    const signal = stop.signal;
    const svcs = staticCollection<TestService>([service('a', 's1')], { signal });
    const inputs = staticCollection(['in'], { signal });
    const c = collection(
      inputs,
      (ctx, k) => ({
        k,
        one: fetch(ctx, svcs, filter.key('a/s1')).length,
        all: fetch(ctx, svcs).length,
        resourceName: () => k,
      }),
      { signal },
    );
    await c.waitUntilSynced(signal);
    svcs.update(service('z', 'other'));
    await settle(2);
    expect(c.get('in')).toMatchObject({ one: 1, all: 2 });
  });
});

describe('P5: a discarded result still records its dependencies', () => {
  it('an input waiting for a dependency converges when it appears', async () => {
    const signal = stop.signal;
    const config = staticCollection<{ metadata: { name: string }; value: string }>([], { signal });
    const inputs = staticCollection(['a'], { signal });
    const c = collection(
      inputs,
      (ctx, k) => {
        const cfg = fetchOne(ctx, config, filter.key('cfg'));
        if (!cfg) {
          ctx.discardResult();
          return undefined;
        }
        return `${k}=${cfg.value}`;
      },
      { signal },
    );
    const t = createCollectionTracker(c);
    await c.waitUntilSynced(signal);
    config.update({ metadata: { name: 'cfg' }, value: '1' });
    await t.waitOrdered('add/a=1');
    // With a previous result, a discarded computation keeps it, and still tracks dependencies.
    config.delete('cfg');
    await settle(2);
    expect(c.list()).toEqual(['a=1']);
    config.update({ metadata: { name: 'cfg' }, value: '2' });
    await t.waitUnordered('add/a=2', 'delete/a=1');
  });
});

describe('P6: join conflicts resolve by priority, with fallback on delete', () => {
  it('walks the eight cases of TestJoinCollectionConflictResolution', async () => {
    const signal = stop.signal;
    type O = { metadata: { name: string; namespace: string }; from: string };
    const o = (from: string): O => ({ metadata: { name: 'k', namespace: 'ns' }, from });
    const high = staticCollection<O>([], { signal, name: 'high' });
    const low = staticCollection<O>([], { signal, name: 'low' });
    const j = joinCollection([high, low], { signal });
    const t = createCollectionTracker(j, {
      keyOf: (x) => `${x.metadata.namespace}/${x.metadata.name}:${x.from}`,
    });
    await j.waitUntilSynced(signal);
    low.update(o('low')); // add, nobody else
    await t.waitOrdered('add/ns/k:low');
    high.update(o('high')); // add while a lower one exists: update to the winner
    await t.waitOrdered('update/ns/k:high');
    low.update(o('low2')); // update of a shadowed object: nothing
    await t.empty();
    high.update(o('high2')); // update of the winner
    await t.waitOrdered('update/ns/k:high2');
    low.delete('ns/k'); // delete of a shadowed object: nothing
    await t.empty();
    low.update(o('low3'));
    await t.empty();
    high.delete('ns/k'); // delete of the winner: fall back to the lower one
    await t.waitOrdered('update/ns/k:low3');
    expect(j.get('ns/k')?.from).toBe('low3');
    low.delete('ns/k'); // last one gone
    await t.waitOrdered('delete/ns/k:low3');
  });
});

describe('P7: singletons emit delete+add when the key changes', () => {
  it('static singleton', async () => {
    const s = staticSingleton<{ metadata: { name: string }; v: number }>(
      { metadata: { name: 'a' }, v: 1 },
      {
        signal: stop.signal,
      },
    );
    const t = createCollectionTracker(s.asCollection());
    await t.waitOrdered('add/a');
    s.set({ metadata: { name: 'a' }, v: 2 });
    await t.waitOrdered('update/a');
    s.set({ metadata: { name: 'a' }, v: 2 });
    await t.empty();
    s.set({ metadata: { name: 'b' }, v: 2 });
    await t.waitOrdered('delete/a', 'add/b');
    s.set(undefined);
    await t.waitOrdered('delete/b');
  });

  it('derived singleton', async () => {
    const signal = stop.signal;
    const name = staticSingleton('a', { signal });
    const s = singleton((ctx) => ({ metadata: { name: fetch(ctx, name.asCollection())[0]! } }), { signal });
    const t = createCollectionTracker(s.asCollection());
    await t.waitOrdered('add/a');
    name.set('b');
    await t.waitOrdered('delete/a', 'add/b');
    expect(s.get()?.metadata.name).toBe('b');
  });
});

describe('P8: fetching an unsynced source never blocks', () => {
  it('a collection fetching a source that syncs later syncs after it, and nothing blocks meanwhile', async () => {
    const signal = stop.signal;
    const gate = staticSingleton<number>(1, { signal, synced: false });
    const inputs = staticCollection(['a'], { signal });
    const c = collection(inputs, (ctx, k) => `${k}${fetch(ctx, gate.asCollection()).length}`, { signal });
    const other = collection(inputs, (_ctx, k) => `${k}!`, { signal });
    expect(await other.waitUntilSynced(signal)).toBe(true);
    expect(c.list()).toEqual(['a1']);
    expect(c.hasSynced()).toBe(false);
    gate.markSynced();
    expect(await c.waitUntilSynced(signal)).toBe(true);
  });
});

describe('P9: a dynamic client-side filter drives adds and deletes through krt', () => {
  it('deselecting a namespace removes its objects from fetches, indexes and outputs; reselecting restores them once', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const signal = stop.signal;
    signal.addEventListener('abort', () => kube.shutdown());
    const selected = namespaceFilter(['a', 'b']);
    const services = informer(kube, builtins.Service, {
      signal,
      name: 'services',
      filter: { objectFilter: selected },
    });
    const byNs = namespaceIndex(services);
    const pods = staticCollection<TestPod>(
      [pod('a', 'p', { labels: { app: 'x' } }), pod('b', 'p', { labels: { app: 'x' } })],
      {
        signal,
      },
    );
    const c = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        svcs: byNs
          .fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))
          .map((s) => s.metadata!.name!),
      }),
      { signal },
    );
    const svcEvents = createCollectionTracker(services);
    for (const ns of ['a', 'b']) {
      await kube.api.create(builtins.Service, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `svc-${ns}`, namespace: ns },
        spec: { selector: { app: 'x' } },
      });
    }
    expect(await kube.runAndWait(signal)).toBe(true);
    await svcEvents.waitUnordered('add/a/svc-a', 'add/b/svc-b');
    await waitFor('b/p to see svc-b', () => c.get('b/p')?.svcs.length === 1);
    selected.set(['a']);
    await svcEvents.waitOrdered('delete/b/svc-b');
    await waitFor('b/p to lose svc-b', () => c.get('b/p')?.svcs.length === 0);
    expect(c.get('a/p')?.svcs).toEqual(['svc-a']);
    expect(services.list().map((s) => s.metadata!.name)).toEqual(['svc-a']);
    selected.set(['a', 'b']);
    await svcEvents.waitOrdered('add/b/svc-b');
    await waitFor('b/p to see svc-b again', () => c.get('b/p')?.svcs.length === 1);
    expect(c.get('b/p')?.svcs).toEqual(['svc-b']);
    await svcEvents.empty();
  });
});

describe('P11: events are level-based', () => {
  it('a burst of writes to one input surfaces as one output event with the final state', async () => {
    const signal = stop.signal;
    const inputs = staticCollection<TestPod>([pod('ns', 'p', { ip: 'ip-0' })], { signal });
    const c = collection(inputs, (_ctx, p) => ({ metadata: p.metadata, ip: p.status?.podIP }), { signal });
    const t = createCollectionTracker(c);
    await t.waitOrdered('add/ns/p');
    for (let i = 1; i <= 100; i++) inputs.update(pod('ns', 'p', { ip: `ip-${i}` }));
    // The collection re-reads the current input: the first recompute already sees ip-100, and the
    // 99 later ones produce an equal output, which emits nothing.
    await t.waitOrdered('update/ns/p');
    await t.empty();
    expect(c.get('ns/p')?.ip).toBe('ip-100');
  });
});

describe('P12: replacing a nested sub-collection is atomic', () => {
  it('a new instance under the same name produces updates only for changed keys', async () => {
    const signal = stop.signal;
    type O = { metadata: { name: string; namespace: string }; v: number };
    const o = (name: string, v: number): O => ({ metadata: { name, namespace: 'ns' }, v });
    const mk = (objs: O[]) => staticCollection<O>(objs, { signal, name: 'cluster-1' });
    const container = staticCollection<Collection<O>>([mk([o('a', 1), o('b', 1)])], { signal });
    const j = nestedJoin(container, { signal });
    const t = createCollectionTracker(j);
    await t.waitUnordered('add/ns/a', 'add/ns/b');
    container.update(mk([o('a', 1), o('b', 2), o('c', 1)]));
    await t.waitUnordered('update/ns/b', 'add/ns/c');
    await t.empty();
    expect(j.get('ns/b')?.v).toBe(2);
    container.delete('cluster-1');
    await t.waitUnordered('delete/ns/a', 'delete/ns/b', 'delete/ns/c');
  });
});

describe('a slow handler blocks only itself', () => {
  it('a derived collection keeps up while a handler on its source is stuck', async () => {
    const signal = stop.signal;
    const src = staticCollection<string>([], { signal });
    let release!: () => void;
    const stuck = new Promise<void>((r) => {
      release = r;
    });
    const seen: string[] = [];
    src.register(async (e) => {
      await stuck;
      seen.push(e.new ?? '');
    });
    const upper = collection(src, (_ctx, s) => s.toUpperCase(), { signal });
    const t = createCollectionTracker(upper);
    for (const k of ['a', 'b', 'c']) src.update(k);
    await t.waitUnordered('add/A', 'add/B', 'add/C');
    expect(seen).toEqual([]);
    release();
    await settle(2);
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
