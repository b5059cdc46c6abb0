/** The sharder's evictors: the fence of a shard, and each evictor, end with the term that started them. */
import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, type FakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { lease } from '../../test/shard-fixtures.ts';
import { createShardRing, type ShardRing } from '../create-shard-ring.ts';
import { LeaseResource } from './lease.ts';
import { ShardEvictors, type ShardEvictorsOptions } from './shard-evictors.ts';

/** The evictors of the sharder `sharder` of ring `web`, with short Lease timings. */
function webEvictors(
  kube: FakeKubeClient,
  shardRing: ShardRing,
  { owners, onTakeOver }: Pick<ShardEvictorsOptions, 'owners' | 'onTakeOver'>,
): ShardEvictors {
  return new ShardEvictors({
    api: kube.api,
    namespace: 'default',
    ring: 'web',
    identity: 'sharder',
    shardRing,
    owners,
    timings: { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 },
    logger: noopLogger,
    onTakeOver,
  });
}

describe('ShardEvictors', () => {
  it('stops fencing every shard when the term ends (stopAll), also those whose Lease it held', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(LeaseResource, lease('web-2', '', 1)); // released: taken over at once
    await using ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    const stop = new AbortController();
    const ringRunning = ring.run(stop.signal);
    const taken: string[] = [];
    // Objects still name web-2: its Lease is not released on stop.
    const evictors = webEvictors(kube, ring, {
      owners: new Map([['web-2', 3]]),
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

  it('gives a term that starts while the last term’s evictor is still ending an evictor of its own', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600)); // live: the evictor stands by
    await using ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    const stop = new AbortController();
    const ringRunning = ring.run(stop.signal);
    const evictors = webEvictors(kube, ring, { owners: new Map([['web-0', 3]]), onTakeOver: () => {} });
    const first = new AbortController();
    const second = new AbortController();
    try {
      expect(await ring.waitUntilSynced(stop.signal)).toBe(true);
      evictors.lead(first.signal);
      const old = evictors.evictor('web-0');
      // The election is lost and won again at once: the old term's evictor has not ended yet.
      first.abort();
      evictors.lead(second.signal);
      const mine = evictors.evictor('web-0');
      expect(mine).not.toBe(old);
      expect(mine.stop.signal.aborted).toBe(false);
      await old.done;
      // The old evictor's end leaves the new one in place…
      expect(evictors.evictor('web-0')).toBe(mine);
      // …and the new one takes the Lease over once it is free.
      const held = await kube.api.get({ resource: LeaseResource, name: 'web-0', namespace: 'default' });
      await kube.api.update(LeaseResource, { ...held, spec: { ...held.spec, holderIdentity: '' } });
      await waitFor('web-0’s Lease taken over by the new term', () => evictors.holds('web-0'), {
        timeoutMs: 30_000,
      });
    } finally {
      first.abort();
      second.abort();
      await evictors.stopAll();
      stop.abort();
      await ringRunning;
    }
  });
});
