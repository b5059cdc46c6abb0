import { consoleLogger, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, sharedControlPlane } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { type ReconcileRecord, type RingEnv, shardScenario } from '../test/shard-harness.ts';

// On a real apiserver shared with the rest of the suite on a loaded machine: Leases of 10 s
// with room for slow renewals, and every wait a condition bounded by three minutes.
const TIMINGS = { leaseDurationMs: 10_000, renewDeadlineMs: 7000, retryPeriodMs: 2000 };

describe('sharding on a real apiserver', () => {
  it('spreads 300 objects over 3 replicas, moves ≈ 1/4 to a fourth, reassigns a dead one after its Lease expired, never reconciles one object on two replicas at once', async () => {
    const { kubeConfig } = sharedControlPlane();
    const namespace = await createTestNamespace(kubeConfig, 'sharding');
    const clients: KubeClient[] = [];
    const log: ReconcileRecord[] = [];
    const env: RingEnv = {
      makeKube: () => {
        const kube = createKubeClient({ kubeConfig, logger: noopLogger });
        clients.push(kube);
        return kube;
      },
      ring: 'policies',
      leaseNamespace: namespace,
      namespace,
      timings: TIMINGS,
      log,
      // Warnings (failed renewals, failed writes) explain a slow run.
      logger: consoleLogger('warn'),
    };
    try {
      const admin = env.makeKube();
      const result = await shardScenario(env, admin.api, {
        objects: 300,
        spreadBound: 0.25,
        waitMs: 120_000,
      });
      expect(result.joinMoves).toBeGreaterThan(300 / 4 / 2);
      expect(result.joinMoves).toBeLessThan((300 / 4) * 1.5);
      // The dead replica's objects cannot move before its Lease expired: a lease duration after its
      // last renewal as written in the Lease (a few ms allowed for the wall and monotonic clocks).
      expect(result.expiryToConvergedMs).toBeGreaterThanOrEqual(-25);
      console.info(
        `sharding (real apiserver): spread ${JSON.stringify([...result.spread3])}, join moves ${result.joinMoves}/300, ` +
          `dead replica's ${result.deathMoves} objects moved ${Math.round(result.killToConvergedMs)} ms after the kill (${Math.round(result.expiryToConvergedMs)} ms after its Lease expired), ` +
          `${result.reconciles} reconciles without overlap`,
      );
    } finally {
      for (const c of clients) await c[Symbol.asyncDispose]();
    }
  }, 600_000);
});
