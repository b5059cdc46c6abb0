/**
 * Adoption without relabelling first: the ring view's fenced shards, the sharder moving a dead
 * owner's objects to the standby named on them, and the reconciler's adoption rule.
 */
import { builtins, type KubeObject, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../test/manual-clock.ts';
import { configMap, lease, webSharderOptions } from '../test/shard-fixtures.ts';
import { createShardRing } from './create-shard-ring.ts';
import { createSharder } from './create-sharder.ts';
import { hashRing } from './hash-ring.ts';
import { LeaseResource } from './internal/lease.ts';
import { shardLabels } from './shard-labels.ts';
import { shardedReconciler } from './sharded-reconciler.ts';

const L = shardLabels('web');

describe('ShardRing.isFenced', () => {
  it("names the shards whose Lease another holder keeps, for two thirds of that holder's lease duration", async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('a', 'a', 60)); // live, its own holder
    await kube.api.create(LeaseResource, lease('b', 'sharder-evicting', 60)); // fenced
    await kube.api.create(LeaseResource, lease('c', '', 60)); // released: neither
    await kube.api.create(LeaseResource, lease('d', 'sharder-evicting', 0.9)); // fenced for 600 ms
    // Time moves only by hand: the fence's end is reached by advancing the clock, not by waiting.
    const clock = manualClock();
    await using ring = createShardRing({ kube, ring: 'web', namespace: 'default', clock });
    const changes: string[][] = [];
    ring.subscribe(() => changes.push([...ring.fenced()]));
    const stop = new AbortController();
    const running = ring.run(stop.signal);
    try {
      expect(await ring.waitUntilSynced(stop.signal)).toBe(true);
      await waitFor('the fenced shards', () => ring.fenced().length === 2, { timeoutMs: 30_000 });
      expect(ring.fenced()).toEqual(['b', 'd']);
      expect(ring.members()).toEqual(['a']);
      expect(['a', 'b', 'c', 'd'].map((s) => ring.isFenced(s))).toEqual([false, true, false, true]);
      // d's holder stays silent: its fence ends after 2/3 of 0.9 s (an adopter lets go before anyone
      // may take the Lease), and subscribers hear of it.
      clock.advance(590);
      expect(ring.isFenced('d')).toBe(true);
      clock.advance(20);
      expect(ring.isFenced('d')).toBe(false);
      await waitFor('subscribers told', () => changes.at(-1)?.join() === 'b', { timeoutMs: 30_000 });
      // The shard takes its Lease back: no longer fenced, live again.
      const b = await kube.api.get({ resource: LeaseResource, name: 'b', namespace: 'default' });
      await kube.api.update(LeaseResource, { ...b, spec: { ...b.spec, holderIdentity: 'b' } });
      await waitFor('b live', () => ring.isLive('b') && !ring.isFenced('b'), { timeoutMs: 30_000 });
      expect(ring.fenced()).toEqual([]);
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe("createSharder: a dead owner's objects", () => {
  it('move to the live standby named on them (not the ring’s choice), else to the ring’s choice, one write each, before any standby-only write', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    for (const s of ['web-0', 'web-1', 'web-2']) await kube.api.create(LeaseResource, lease(s, s, 600));
    const names = Array.from({ length: 60 }, (_, i) => `cm-${i}`);
    for (const name of names) await kube.api.create(builtins.ConfigMap, configMap(name));
    const list = async () =>
      new Map(
        (await kube.api.list(builtins.ConfigMap, { namespace: 'default' })).items.map((cm) => [
          cm.metadata?.name ?? '',
          cm.metadata?.labels ?? {},
        ]),
      );
    const three = hashRing(['web-0', 'web-1', 'web-2']);
    const key = (n: string) => `default/${n}`;
    const options = webSharderOptions(kube, {
      leaseDurationMs: 1000,
      renewDeadlineMs: 800,
      retryPeriodMs: 200,
    });
    {
      await using first = createSharder(options);
      const stop = new AbortController();
      const running = first.run(stop.signal);
      await waitFor(
        'every object labelled with its shard and standby',
        async () =>
          [...(await list())].every(
            ([n, l]) => l[L.shard] === three.shardFor(key(n)) && l[L.standby] === three.successorFor(key(n)),
          ),
        { timeoutMs: 30_000 },
      );
      stop.abort();
      await running;
    }
    // web-2 dies. Some of its objects name another standby than the ring would pick (the ring
    // changed after they were labelled), some a standby that is gone too.
    const dead = names.filter((n) => three.shardFor(key(n)) === 'web-2');
    expect(dead.length).toBeGreaterThan(6);
    const two = hashRing(['web-0', 'web-1']);
    const otherLive = (n: string) => (two.shardFor(key(n)) === 'web-0' ? 'web-1' : 'web-0');
    const retargeted = dead.slice(0, 3);
    const orphaned = dead.slice(3, 6);
    for (const n of retargeted) await setLabels(kube, n, { [L.standby]: otherLive(n) });
    for (const n of orphaned) await setLabels(kube, n, { [L.standby]: 'web-9' });
    const w2 = await kube.api.get({ resource: LeaseResource, name: 'web-2', namespace: 'default' });
    await kube.api.update(LeaseResource, { ...w2, spec: { ...w2.spec, holderIdentity: '' } });
    // The writes that landed (a conflicting attempt on a stale cache changes nothing): each one
    // is an update event on a watch.
    const writes: string[] = [];
    const watcher = kube.informer(builtins.ConfigMap, { namespace: 'default' });
    watcher.addEventHandler({ onUpdate: (_old, cm) => writes.push(cm.metadata?.name ?? '') });
    const watching = new AbortController();
    void watcher.run(watching.signal);
    expect(await watcher.waitUntilSynced(watching.signal)).toBe(true);
    // A fresh client (its informers list anew), as a new sharder process would have.
    await using kube2 = createFakeKubeClient({ logger: noopLogger, cluster: kube.cluster });
    await using second = createSharder({ ...options, kube: kube2 });
    const stop = new AbortController();
    const running = second.run(stop.signal);
    try {
      const expectedOwner = (n: string) => (retargeted.includes(n) ? otherLive(n) : two.shardFor(key(n)));
      // Objects of live owners whose standby was web-2 get a standby-only write.
      const restandby = names.filter((n) => !dead.includes(n) && three.successorFor(key(n)) === 'web-2');
      await waitFor(
        "web-2's objects moved and every standby right",
        async () =>
          [...(await list())].every(
            ([n, l]) =>
              l[L.shard] === expectedOwner(n) &&
              l[L.standby] ===
                (expectedOwner(n) === two.shardFor(key(n))
                  ? two.successorFor(key(n))
                  : two.shardFor(key(n))) &&
              // Moved to a standby the ring would not pick: only then a normal drain moves it on.
              (l[L.drain] === 'true') === retargeted.includes(n),
          ),
        { timeoutMs: 30_000 },
      );
      // One write per moved object (shard and fresh standby together), then a drain request for
      // the retargeted; one standby-only write per live owner's object whose standby was web-2.
      const expected = dead.length + retargeted.length + restandby.length;
      await waitFor('the watch to see every write', () => writes.length >= expected, { timeoutMs: 10_000 });
      expect(writes.filter((n) => dead.includes(n)).sort()).toEqual([...dead, ...retargeted].sort());
      expect(writes.filter((n) => !dead.includes(n)).sort()).toEqual([...restandby].sort());
      // The retargeted ones went to their standby, not the ring's choice; the others to the ring's.
      for (const n of retargeted) expect(otherLive(n)).not.toBe(two.shardFor(key(n)));
      // Moves first: every dead owner's object moved before any standby-only write landed.
      const lastMove = Math.max(...dead.map((n) => writes.indexOf(n)));
      const firstStandbyOnly = Math.min(...restandby.map((n) => writes.indexOf(n)));
      expect(lastMove).toBeLessThan(firstStandbyOnly);
    } finally {
      watching.abort();
      stop.abort();
      await running;
    }
  });
});

async function setLabels(
  kube: ReturnType<typeof createFakeKubeClient>,
  name: string,
  labels: Record<string, string | null>,
): Promise<void> {
  await kube.api.patch(
    { resource: builtins.ConfigMap, name, namespace: 'default' },
    { metadata: { labels } },
    { type: 'merge' },
  );
}

describe('shardedReconciler: adoption', () => {
  it("reconciles a fenced shard's object whose standby is this shard, never one being drained, and forgets it when the fence ends", async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const cache = new Map<string, KubeObject>();
    const put = (name: string, labels: Record<string, string>) =>
      cache.set(name, {
        ...configMap(name, labels),
        metadata: { ...configMap(name, labels).metadata, resourceVersion: '1' },
      });
    put('own', { [L.shard]: 'web-0' });
    put('adopted', { [L.shard]: 'web-2', [L.standby]: 'web-0' });
    put('other-standby', { [L.shard]: 'web-2', [L.standby]: 'web-1' });
    put('draining', { [L.shard]: 'web-2', [L.standby]: 'web-0', [L.drain]: 'true' });
    put('live-owner', { [L.shard]: 'web-1', [L.standby]: 'web-0' });
    const fenced = new Set(['web-2']);
    const reconciled: string[] = [];
    const patches: string[] = [];
    kube.cluster.onRequest((r) => {
      if (r.verb === 'patch') patches.push(r.name ?? '');
    });
    const reconcile = shardedReconciler({
      ring: 'web',
      identity: 'web-0',
      api: kube.api,
      resource: builtins.ConfigMap,
      get: (key) => cache.get(key.name) as never,
      reconciler: (key) => {
        reconciled.push(key.name);
      },
      isFenced: (shard) => fenced.has(shard),
    });
    const ctx = { signal: new AbortController().signal, attempt: 1, queue: 'q' };
    const run = async (...names: string[]) => {
      for (const name of names) await reconcile({ namespace: 'default', name }, ctx);
    };
    await run('own', 'adopted', 'other-standby', 'draining', 'live-owner');
    expect(reconciled).toEqual(['own', 'adopted']);
    expect(patches).toEqual([]); // a drain of another shard's object is not this shard's to acknowledge
    // An adopted object deleted while its owner is still fenced: a deletion, reconciled.
    cache.delete('adopted');
    await run('adopted');
    expect(reconciled).toEqual(['own', 'adopted', 'adopted']);
    // Adopted, then the fence ends: it leaves this cache — skipped, not a deletion.
    put('adopted-2', { [L.shard]: 'web-2', [L.standby]: 'web-0' });
    await run('adopted-2');
    fenced.delete('web-2');
    await run('adopted-2'); // still cached (the union has not dropped it yet): not ours any more
    cache.delete('adopted-2');
    await run('adopted-2');
    expect(reconciled).toEqual(['own', 'adopted', 'adopted', 'adopted-2']);
    // Adopted, relabelled to this shard by the sharder, then deleted: a deletion.
    fenced.add('web-2');
    put('moved', { [L.shard]: 'web-2', [L.standby]: 'web-0' });
    await run('moved');
    put('moved', { [L.shard]: 'web-0', [L.standby]: 'web-1' });
    await run('moved');
    fenced.delete('web-2');
    cache.delete('moved');
    await run('moved');
    expect(reconciled.slice(4)).toEqual(['moved', 'moved', 'moved']);
  });
});
