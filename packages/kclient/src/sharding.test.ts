import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster, type FakeKubeClient } from '@kubeloom/kube/fake';
import { describe, expect, it } from 'vitest';
import { type ReconcileRecord, type RingEnv, shardScenario } from '../test/shard-harness.ts';

// Short enough for a fast test, long enough that a replica starved of CPU for a second (a loaded
// CI machine) still renews: a lost Lease would move objects the scenario does not expect to move.
const TIMINGS = { leaseDurationMs: 6000, renewDeadlineMs: 4500, retryPeriodMs: 1000 };

describe('sharding on the fake cluster', () => {
  it('spreads, moves ≈ 1/N on a join, reassigns a dead shard after its Lease expired, never reconciles one object twice at once', async () => {
    const cluster = new FakeCluster({});
    const clients: FakeKubeClient[] = [];
    const log: ReconcileRecord[] = [];
    const env: RingEnv = {
      makeKube: () => {
        const kube = createFakeKubeClient({ cluster, logger: noopLogger });
        clients.push(kube);
        return kube;
      },
      ring: 'policies',
      leaseNamespace: 'default',
      namespace: 'default',
      timings: TIMINGS,
      log,
      logger: noopLogger,
    };
    try {
      const admin = env.makeKube();
      const result = await shardScenario(env, admin.api, { objects: 300, spreadBound: 0.25, waitMs: 60_000 });
      // ≈ 1/4 of 300 move to the fourth replica.
      expect(result.joinMoves).toBeGreaterThan(300 / 4 / 2);
      expect(result.joinMoves).toBeLessThan((300 / 4) * 1.5);
      // The dead replica's objects cannot move before its Lease expired: a lease duration after its
      // last renewal as written in the Lease (a few ms allowed for the wall and monotonic clocks).
      expect(result.expiryToConvergedMs).toBeGreaterThanOrEqual(-25);
    } finally {
      for (const c of clients) await c[Symbol.asyncDispose]();
    }
  }, 120_000);
});
