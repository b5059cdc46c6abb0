/**
 * The sharding examples of the README and the API docs, compiled and run on the fake cluster:
 * each `// #region` is pulled into doc comments with `{@includeCode}`.
 */
import { builtins, keyOf, noopLogger, type ObjectKey } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { createQueue } from './create-queue.ts';
import { createShardMember } from './create-shard-member.ts';
import { createShardRing } from './create-shard-ring.ts';
import { createSharder } from './create-sharder.ts';
import { objectHandler } from './handlers.ts';
import { shardLabels } from './shard-labels.ts';
import { drainHandler, shardedReconciler } from './sharded-reconciler.ts';

describe('sharding examples', () => {
  it('one replica of a sharded controller: member, sharder, and a controller over its share', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    for (const name of ['a', 'b', 'c']) {
      await kube.api.create(builtins.ConfigMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
      });
    }
    const stop = new AbortController();
    const signal = stop.signal;
    const reconciled: string[] = [];
    const identity = 'web-0'; // e.g. process.env.POD_NAME

    // #region sharder
    // Every replica runs one; the elected one writes the shard label of every ConfigMap.
    const sharder = createSharder({
      kube,
      ring: 'web',
      namespace: 'default', // where the ring's Leases live
      resources: [{ resource: builtins.ConfigMap, namespace: 'default' }],
    });
    const sharding = sharder.run(signal);
    // #endregion sharder

    // #region member
    // This replica's Lease in the ring; while held, run the controller over this replica's share.
    const member = createShardMember({
      api: kube.api,
      ring: 'web',
      namespace: 'default',
      identity,
      onJoined: async (joined) => {
        // Only objects labelled shard.kubeloom.dev/web=<identity> are listed, watched and cached.
        const configMaps = kube.informer(builtins.ConfigMap, {
          namespace: 'default',
          labelSelector: `${shardLabels('web').shard}=${identity}`,
        });
        // #region reconciler
        const queue = createQueue<ObjectKey>({
          reconciler: shardedReconciler({
            ring: 'web',
            identity,
            api: kube.api,
            resource: builtins.ConfigMap,
            get: (key) => configMaps.store.get(keyOf(key)),
            reconciler: (key) => {
              reconciled.push(key.name); // your reconcile
            },
          }),
        });
        configMaps.addEventHandler(objectHandler((cm) => queue.addObject(cm)));
        configMaps.addEventHandler(drainHandler('web', queue)); // needed only if yours skips label changes
        // #endregion reconciler
        await configMaps.waitUntilSynced(joined);
        await queue.run(joined);
      },
    });
    const membership = member.run(signal);
    // #endregion member

    await kube.runAndWait(signal);
    // #region ring
    const ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    const watching = ring.run(signal);
    await ring.waitUntilSynced(signal);
    // ring.members(): the live shards; ring.hashRing().shardFor('default/a'): where an object belongs
    // #endregion ring
    await waitFor('every ConfigMap reconciled by its shard', () => reconciled.length >= 3, {
      timeoutMs: 30_000,
    });
    expect(ring.members()).toEqual(['web-0']);
    expect(ring.hashRing().shardFor('default/a')).toBe('web-0');
    expect(reconciled.sort()).toEqual(['a', 'b', 'c']);
    stop.abort();
    await Promise.all([sharding, membership, watching]);
  });
});
