/**
 * The sharder's standby-only writes wait while a dead shard's objects are still to move, but not
 * for good: a move that keeps failing must not hold back every standby write of the ring.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { configMap, interceptApi, lease, webSharderOptions } from '../test/shard-fixtures.ts';
import { createSharder } from './create-sharder.ts';
import { LeaseResource } from './internal/lease.ts';
import { shardLabels } from './shard-labels.ts';

const L = shardLabels('web');

describe('createSharder: standby-only writes', () => {
  it('are written once no move landed for two lease durations, when a dead shard’s move keeps failing', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(LeaseResource, lease('web-1', 'web-1', 600));
    await kube.api.create(LeaseResource, lease('web-2', '', 1)); // released: its owner is gone
    // One of web-2's objects cannot be moved: every write of it is refused.
    await kube.api.create(builtins.ConfigMap, configMap('stuck', { [L.shard]: 'web-2' }));
    let refused = 0;
    const sharderKube = interceptApi(kube, (method, name, serve) => {
      if (method === 'patch' && name === 'stuck') {
        refused++;
        return Promise.reject(new Error('admission webhook "deny.example.com" denied the request'));
      }
      return serve();
    });
    await using sharder = createSharder(
      webSharderOptions(sharderKube, {
        leaseDurationMs: 1000,
        renewDeadlineMs: 800,
        retryPeriodMs: 200,
        resyncPeriodMs: 60_000,
      }),
    );
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    try {
      await waitFor(
        'web-2’s Lease taken over and its object’s move refused',
        async () => {
          const w2 = await kube.api.get({ resource: LeaseResource, name: 'web-2', namespace: 'default' });
          return !!w2.spec?.holderIdentity?.endsWith('-evicting') && refused > 0;
        },
        { timeoutMs: 30_000 },
      );
      // A live object, assigned while web-2's move is pending.
      await kube.api.create(builtins.ConfigMap, configMap('fresh'));
      const assigned = await waitFor(
        'the new object assigned with its standby',
        async () => {
          const cm = await kube.api.get({
            resource: builtins.ConfigMap,
            name: 'fresh',
            namespace: 'default',
          });
          const labels = cm.metadata?.labels ?? {};
          return labels[L.shard] && labels[L.standby] ? labels : undefined;
        },
        { timeoutMs: 30_000 },
      );
      // Its standby label goes wrong (edited by hand): a standby-only write puts it right.
      await kube.api.patch(
        { resource: builtins.ConfigMap, name: 'fresh', namespace: 'default' },
        { metadata: { labels: { [L.standby]: 'web-9' } } },
        { type: 'merge' },
      );
      await waitFor(
        'the standby written again although web-2’s move still fails',
        async () => {
          const cm = await kube.api.get({
            resource: builtins.ConfigMap,
            name: 'fresh',
            namespace: 'default',
          });
          return cm.metadata?.labels?.[L.standby] === assigned[L.standby];
        },
        { timeoutMs: 20_000 },
      );
      const stuck = await kube.api.get({ resource: builtins.ConfigMap, name: 'stuck', namespace: 'default' });
      expect(stuck.metadata?.labels?.[L.shard]).toBe('web-2');
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);
});
