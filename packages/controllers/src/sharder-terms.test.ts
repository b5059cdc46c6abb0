/**
 * The sharder's terms: a term that ends (its election lost) must not undo the next one's state
 * when the same replica is elected again before the old term's last writes settled.
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

describe('createSharder: a lost term and the next', () => {
  it('keeps assigning after it lost its election while a dead shard’s moves were in flight and won it back', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    // web-0 and web-1 live for the test's length; web-2 released (its owner gone).
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(LeaseResource, lease('web-1', 'web-1', 600));
    await kube.api.create(LeaseResource, lease('web-2', '', 1));
    const names = Array.from({ length: 8 }, (_, i) => `cm-${i}`);
    for (const n of names) await kube.api.create(builtins.ConfigMap, configMap(n, { [L.shard]: 'web-2' }));
    // The sharder's requests to its own election Lease fail while `partitioned`.
    let partitioned = false;
    let inFlight = 0;
    const sharderKube = interceptApi(kube, (method, name, serve) => {
      if (partitioned && name === 'web-sharder') return Promise.reject(new Error('unreachable'));
      const result = serve();
      if (method !== 'patch') return result;
      inFlight++;
      return (result as Promise<unknown>).finally(() => inFlight--);
    });
    // Label writes are slow: the moves of web-2's objects are still in flight when the term ends.
    const undelay = kube.cluster.delay(5000, { verbs: ['patch'], resource: builtins.ConfigMap });
    await using sharder = createSharder(
      webSharderOptions(sharderKube, {
        leaseDurationMs: 1000,
        renewDeadlineMs: 800,
        retryPeriodMs: 200,
        resyncPeriodMs: 2000,
      }),
    );
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    try {
      await waitFor(
        'web-2’s Lease taken over and its moves in flight',
        async () => {
          const w2 = await kube.api.get({ resource: LeaseResource, name: 'web-2', namespace: 'default' });
          return sharder.isLeader() && !!w2.spec?.holderIdentity?.endsWith('-evicting') && inFlight > 0;
        },
        { timeoutMs: 30_000 },
      );
      // The election is lost while the moves are in flight, and won back (the only candidate).
      partitioned = true;
      await waitFor('the term lost', () => !sharder.isLeader(), { timeoutMs: 30_000 });
      partitioned = false;
      await waitFor('elected again', () => sharder.isLeader(), { timeoutMs: 30_000 });
      undelay();
      // The old term's moves settle after the new term began; the new term still assigns.
      await waitFor('the old term’s writes settled', () => inFlight === 0, { timeoutMs: 30_000 });
      await kube.api.create(builtins.ConfigMap, configMap('late'));
      await waitFor(
        'every object on a live shard',
        async () =>
          (await kube.api.list(builtins.ConfigMap, { namespace: 'default' })).items.every((cm) =>
            ['web-0', 'web-1'].includes(cm.metadata?.labels?.[L.shard] ?? ''),
          ),
        { timeoutMs: 20_000 },
      );
      expect(sharder.isLeader()).toBe(true);
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);
});
