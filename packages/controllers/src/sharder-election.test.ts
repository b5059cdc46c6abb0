/**
 * The sharder's own election: a successor counts the dead sharder's lease duration from when its
 * watch of the election Lease saw the last renewal, not from its own first read of it.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../test/manual-clock.ts';
import { createSharder } from './create-sharder.ts';
import { LeaseResource, microTime } from './internal/lease.ts';

describe('createSharder: its election', () => {
  it("takes a dead sharder's Lease over one lease duration after its watch saw the last renewal", async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'web-sharder', namespace: 'default' },
      spec: { holderIdentity: 'old', leaseDurationSeconds: 10, renewTime: microTime(new Date()) },
    });
    // Time moves only by hand; the sharder cannot sync (nor campaign) while its lists fail.
    const clock = manualClock();
    const stopFailing = kube.cluster.failAlways(['list'], { resource: builtins.ConfigMap });
    await using sharder = createSharder({
      kube,
      ring: 'web',
      namespace: 'default',
      resources: [{ resource: builtins.ConfigMap, namespace: 'default' }],
      identity: 'new',
      leaseDurationMs: 10_000,
      renewDeadlineMs: 8000,
      retryPeriodMs: 2000,
      logger: noopLogger,
      clock,
    });
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    try {
      // The watch sees the record at 0 s; the candidate first reads it at 6 s.
      const watch = kube.informer(LeaseResource, {
        namespace: 'default',
        fieldSelector: 'metadata.name=web-sharder',
      });
      await waitFor('the election watch synced', () => watch.hasSynced(), { timeoutMs: 30_000 });
      clock.advance(6000);
      const reads = kube.cluster.requestCount('get', LeaseResource);
      stopFailing();
      await waitFor(
        'the candidate read the Lease',
        () => kube.cluster.requestCount('get', LeaseResource) > reads,
        {
          timeoutMs: 30_000,
        },
      );
      // Up to 10.5 s (its first read + a lease duration would be 16 s): the record stood still for
      // 10 s since the watch saw it, so the candidate takes over.
      for (let t = 6000; t < 10_500; t += 500) {
        clock.advance(500);
        await new Promise((resolve) => setTimeout(resolve, 10)); // lets the reads that came due run
      }
      await waitFor('the successor leads', () => sharder.isLeader(), { timeoutMs: 30_000 });
      const lease = await kube.api.get({
        resource: LeaseResource,
        name: 'web-sharder',
        namespace: 'default',
      });
      expect(lease.spec?.holderIdentity).toBe('new');
    } finally {
      stop.abort();
      await running;
    }
  });
});
