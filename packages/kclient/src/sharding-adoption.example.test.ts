/**
 * The guide "Scaling out with sharding" (docs/guides/07-sharding.md) includes its `// #region`:
 * one replica's cache and reconciler wired for adoption, run on the fake cluster. The replica
 * `web-1` dies; once its Lease is fenced, `web-0` reconciles web-1's objects that name it as their
 * standby, with no object written.
 */
import {
  createQueue,
  createShardRing,
  objectHandler,
  shardedReconciler,
  shardLabels,
} from '@kubeloom/controllers';
import { builtins, noopLogger, type ObjectKey } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1Lease } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createUnionClient } from './create-union-client.ts';
import { shardUnionMembers } from './shard-union-members.ts';

const L = shardLabels('web');
const [RING_KEY, RING_VALUE] = L.leaseSelector.split('=') as [string, string];

/** A Lease of ring `web`, held by `holder`, renewed now. */
const lease = (name: string, holder: string): V1Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', labels: { [RING_KEY]: RING_VALUE } },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 60,
    renewTime: new Date().toISOString() as unknown as Date,
  },
});

/** A ConfigMap owned by `shard`, with `standby` as its standby. */
const configMap = (name: string, shard: string, standby: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { [L.shard]: shard, [L.standby]: standby } },
});

describe('sharding: adoption', () => {
  it("reconciles a fenced shard's objects that name this replica as standby, from a fresh list, before any relabel", async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Lease, lease('web-0', 'web-0'));
    await kube.api.create(builtins.Lease, lease('web-1', 'web-1'));
    await kube.api.create(builtins.ConfigMap, configMap('mine', 'web-0', 'web-1'));
    await kube.api.create(builtins.ConfigMap, configMap('adopted', 'web-1', 'web-0'));
    await kube.api.create(builtins.ConfigMap, configMap('not-mine', 'web-1', 'web-2'));
    const stop = new AbortController();
    const signal = stop.signal;
    const reconciled: string[] = [];

    // #region adoption
    const identity = 'web-0';
    const ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    // One cache over this replica's share and, per fenced shard, that shard's objects whose
    // standby is this replica (all selected server-side).
    const membersOf = (fenced: readonly string[]) =>
      shardUnionMembers({ ring: 'web', identity, fenced, namespace: 'default' });
    const configMaps = createUnionClient(kube, builtins.ConfigMap, { members: membersOf([]) });
    // The fenced shards this replica adopts from: only once the cache listed them after the fence.
    let adoptable = new Set<string>();
    const queue = createQueue<ObjectKey>({
      reconciler: shardedReconciler({
        ring: 'web',
        identity,
        api: kube.api,
        resource: builtins.ConfigMap,
        get: (key) => configMaps.get(key.name, key.namespace), // the union: own and adopted
        isFenced: (shard) => adoptable.has(shard) && ring.isFenced(shard),
        reconciler: (key) => {
          reconciled.push(key.name); // your reconcile
        },
      }),
    });
    configMaps.addEventHandler(objectHandler((cm) => queue.addObject(cm)));
    let change = 0;
    ring.subscribe(() => {
      const fenced = ring.fenced();
      const current = ++change;
      configMaps.setMembers(membersOf(fenced));
      void configMaps.waitForMembers(signal).then((synced) => {
        if (!synced || current !== change) return; // stopped, or the ring changed again meanwhile
        adoptable = new Set(fenced);
        // Their objects arrived while not yet adoptable (and were skipped): queue them again.
        for (const cm of configMaps.list())
          if (adoptable.has(cm.metadata?.labels?.[L.shard] ?? '')) queue.addObject(cm);
      });
    });
    // #endregion adoption

    const running = [ring.run(signal), kube.runAndWait(signal), queue.run(signal)];
    try {
      await waitFor('its own object reconciled', () => reconciled.includes('mine'), { timeoutMs: 30_000 });
      expect(configMaps.list().map((cm) => cm.metadata?.name)).toEqual(['mine']);

      // web-1 dies; the sharder takes its Lease over (its evictor holds it): web-1 is fenced.
      const dead = await kube.api.get({ resource: builtins.Lease, name: 'web-1', namespace: 'default' });
      await kube.api.update(builtins.Lease, {
        ...dead,
        spec: {
          ...dead.spec,
          holderIdentity: 'web-sharder-evicting',
          renewTime: new Date().toISOString() as unknown as Date,
        },
      });
      await waitFor('the adopted object reconciled', () => reconciled.includes('adopted'), {
        timeoutMs: 30_000,
      });
      expect(ring.fenced()).toEqual(['web-1']);
      // Only the objects naming web-0 as standby are cached; nothing was relabelled.
      expect(
        configMaps
          .list()
          .map((cm) => cm.metadata?.name)
          .sort(),
      ).toEqual(['adopted', 'mine']);
      expect(reconciled).not.toContain('not-mine');
      const adopted = await kube.api.get({
        resource: builtins.ConfigMap,
        name: 'adopted',
        namespace: 'default',
      });
      expect(adopted.metadata?.labels?.[L.shard]).toBe('web-1');
    } finally {
      stop.abort();
      await Promise.all(running);
    }
  });
});
