/** The sharder's evictors: the fence of a shard ends with the term that put it up. */
import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { lease } from '../../test/shard-fixtures.ts';
import { createShardRing } from '../create-shard-ring.ts';
import { LeaseResource } from './lease.ts';
import { ShardEvictors } from './shard-evictors.ts';

describe('ShardEvictors', () => {
  it('stops fencing every shard when the term ends (stopAll), also those whose Lease it held', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(LeaseResource, lease('web-2', '', 1)); // released: taken over at once
    await using ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    const stop = new AbortController();
    const ringRunning = ring.run(stop.signal);
    const taken: string[] = [];
    const evictors = new ShardEvictors({
      api: kube.api,
      namespace: 'default',
      ring: 'web',
      identity: 'sharder',
      shardRing: ring,
      owners: new Map([['web-2', 3]]), // objects still name web-2: its Lease is not released on stop
      timings: { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 },
      logger: noopLogger,
      onTakeOver: (shard) => taken.push(shard),
    });
    const term = new AbortController();
    try {
      expect(await ring.waitUntilSynced(stop.signal)).toBe(true);
      evictors.lead(term.signal);
      evictors.evictor('web-2');
      await waitFor('web-2’s Lease taken over', () => evictors.holds('web-2'), { timeoutMs: 30_000 });
      expect(taken).toEqual(['web-2']);
      expect(evictors.isFencing('web-2')).toBe(true);
      term.abort();
      await evictors.stopAll();
      expect(evictors.holds('web-2')).toBe(false);
      // Left fenced, this replica's next term would skip web-2's standby-only writes for good.
      expect(evictors.isFencing('web-2')).toBe(false);
    } finally {
      term.abort();
      stop.abort();
      await ringRunning;
    }
  });
});
