/**
 * The operator sharded over a ring of replicas (`--shard-ring`) on a real plane: three operator
 * processes, running as Pods of the manifests' ServiceAccount (so with exactly the RBAC `deploy/`
 * grants), share 300 policies; one is SIGKILLed, a fourth joins; policies keep changing
 * meanwhile. No workloads plane: sharding moves policies and their gateway Deployments between
 * caches, which needs the Deployment objects, not running gateway pods (and the controller-manager,
 * scheduler and nodes would only add load).
 */

import { hashRing } from '@kubeloom/controllers';
import { builtins } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnSpecs, type Placement, type ShardCluster, startShardCluster } from './shard-cluster.ts';
import { auditAllocations, overlaps } from './shard-invariants.ts';

const POLICIES = 300;
/** The operator's Lease timings (`src/cli/run-operator.ts`). */
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;
/**
 * A bound for the objects per shard: 300 keys hashed onto 3 shards put a binomial count on each
 * (σ = √(300 · ⅓ · ⅔) ≈ 8.2, i.e. 8 % of an even 100), plus the ring's own imbalance (1000 virtual
 * nodes: a few %). ±10 % would be 1.2 σ — a third of all key sets would miss it; 3 σ + 5 % ≈ ±30 %
 * is the sound bound at this N. At 3,000 policies σ is 2.6 %, and ±10 % holds (the benchmark).
 */
const SPREAD_BOUND = 3 * Math.sqrt((POLICIES * (1 / 3) * (2 / 3)) / (POLICIES / 3) ** 2) + 0.05;
/** Bounds of every wait: generous, for a loaded two-core machine. */
const CONVERGE_MS = 240_000;

let cluster: ShardCluster;

beforeAll(async () => {
  cluster = await startShardCluster({ pools: 4 });
}, 300_000);

afterAll(async () => {
  await cluster?.[Symbol.asyncDispose]();
});

describe('the egress operator sharded over a ring of replicas', () => {
  it('spreads 300 policies over 3 replicas, each caching only its share; a SIGKILLed replica’s share moves within lease duration + retry; a joining replica takes ≈ 1/3; no policy reconciled by two replicas at once; no address allocated twice', async () => {
    const audit = new AbortController();
    const auditing = auditAllocations(cluster.admin, { signal: audit.signal });
    const churn = new AbortController();
    let churning: Promise<number> | undefined;
    try {
      await Promise.all(['shard-a', 'shard-b', 'shard-c'].map((n) => cluster.start(n)));
      const names = await cluster.createPolicies(POLICIES);
      const converge = (what: string, members: string[]) =>
        waitFor(what, () => cluster.converged(members), { timeoutMs: CONVERGE_MS, intervalMs: 1000 });

      const three = await converge('3 replicas to converge', ['shard-a', 'shard-b', 'shard-c']);
      expect([...three.spread.keys()].sort()).toEqual(['shard-a', 'shard-b', 'shard-c']);
      for (const n of three.spread.values())
        expect(Math.abs(n - POLICIES / 3)).toBeLessThanOrEqual((SPREAD_BOUND * POLICIES) / 3);
      const cached = await Promise.all(['shard-a', 'shard-b', 'shard-c'].map((n) => cluster.cached(n)));
      // converged() checked each replica's gauges against its share; the pools stay whole.
      for (const c of cached) expect(c.pools).toBe(4);
      expect(cached.reduce((sum, c) => sum + c.policies, 0)).toBe(POLICIES);

      // Churn: keep changing specs, so policies are reconciled again and again while shards move.
      churning = churnSpecs(cluster, names, churn.signal);

      // The worst case: the victim is also the ring's sharder, so the sharder's election fails over
      // first, and the new sharder must still move the victim's policies one lease duration after
      // its last renewal (it counts from when its ring view saw that renewal, not from its election).
      const victim = await sharderLeader(cluster);
      const survivors = ['shard-a', 'shard-b', 'shard-c'].filter((n) => n !== victim);
      const killedAt = Date.now();
      await cluster.kill(victim);
      // Its last renewal as written (this host's clock): the expiry the guarantee is about.
      const victimLease = (await cluster.admin.api.get({
        resource: builtins.Lease,
        name: victim,
        namespace: 'kubeloom-egress-system',
      })) as V1Lease;
      expect(victimLease.spec?.holderIdentity).toBe(victim);
      const expiresAt =
        new Date(victimLease.spec?.renewTime as unknown as string).getTime() + LEASE_DURATION_MS;
      expect(Number.isFinite(expiresAt)).toBe(true);
      const afterKill = await converge('the killed replica’s policies to move', survivors);
      const moved = movedKeys(three, afterKill);
      expect(moved.length).toBe(three.spread.get(victim));
      for (const key of moved) expect(three.owner.get(key)).toBe(victim);
      // Converged includes every moved policy's reconcile by its new owner. A cache holds a moved
      // policy (what `converged` checks) a moment before that replica's queue reconciles it and its
      // log record reaches this process, so wait for the records rather than assert them at once.
      const notReconciledByNewOwner = (): string[] => {
        const reconciled = new Set(
          cluster
            .reconciles()
            .filter((r) => r.start >= killedAt && r.shard === afterKill.owner.get(r.key))
            .map((r) => r.key),
        );
        return moved.filter((k) => !reconciled.has(k));
      };
      await waitFor(
        'every moved policy reconciled by its new owner after the kill',
        () => notReconciledByNewOwner().length === 0,
        { timeoutMs: CONVERGE_MS },
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}; not yet: ${notReconciledByNewOwner().slice(0, 10).join(', ')}`);
      });
      const killToConvergedMs = Date.now() - killedAt;
      const takeover = [...cluster.replicas.values()]
        .flatMap((p) => p.logs)
        .find((r) => String(r.msg).startsWith('took over the Lease') && r.shard === victim);
      const takeoverMs = takeover ? Date.parse(String(takeover.time)) - killedAt : Number.NaN;
      // Not before its Lease expired: taken over a lease duration after its last renewal at the
      // earliest (a few ms allowed for the wall and monotonic clocks)…
      expect(takeover).toBeDefined();
      expect(Date.parse(String(takeover?.time))).toBeGreaterThanOrEqual(expiresAt - 25);
      // …and taken over within lease duration + retry (a margin for a loaded machine's slow
      // requests)…
      expect(takeoverMs).toBeLessThan(LEASE_DURATION_MS + RETRY_PERIOD_MS + 15_000);
      // …and converged with a generous margin for the moved policies' reconciles by their new owners.
      expect(killToConvergedMs).toBeLessThan(LEASE_DURATION_MS + RETRY_PERIOD_MS + 120_000);

      await cluster.start('shard-d');
      const four = await converge('a fourth replica to take its share', [...survivors, 'shard-d']);
      const joinMoves = movedKeys(afterKill, four);
      for (const key of joinMoves) expect(four.owner.get(key)).toBe('shard-d');
      // ≈ 1/3 of the policies move onto the third member (and only onto it).
      expect(joinMoves.length).toBeGreaterThan(POLICIES / 3 / 2);
      expect(joinMoves.length).toBeLessThan((POLICIES / 3) * 1.5);
      expect(joinMoves.length).toBe(
        [...four.owner.keys()].filter((k) => hashRing([...survivors, 'shard-d']).shardFor(k) === 'shard-d')
          .length,
      );

      churn.abort();
      const patches = await churning;
      await converge('the ring to settle after the churn', [...survivors, 'shard-d']);
      audit.abort();
      const { checks, duplicates } = await auditing;
      expect(duplicates).toEqual([]);
      expect(checks).toBeGreaterThan(10);
      const log = cluster.reconciles();
      expect(overlaps(log)).toEqual([]);
      expect(new Set(log.map((r) => r.shard))).toEqual(new Set(['shard-a', 'shard-b', 'shard-c', 'shard-d']));
      console.info(
        `sharded operator (real plane): spread ${JSON.stringify(Object.fromEntries(three.spread))} ` +
          `(bound ±${(SPREAD_BOUND * 100).toFixed(0)} %), killed replica (${victim}, the sharder)'s ${moved.length} policies moved and ` +
          `converged ${(killToConvergedMs / 1000).toFixed(1)} s after SIGKILL (its Lease taken over after ` +
          `${(takeoverMs / 1000).toFixed(1)} s, ${Date.parse(String(takeover?.time)) - expiresAt} ms after it expired), a fourth took ${joinMoves.length}/` +
          `${POLICIES}, ${log.length} reconciles over ${patches} spec changes without overlap, ${checks} pool audits`,
      );
    } finally {
      churn.abort();
      await churning;
      audit.abort();
      await auditing;
    }
  }, 900_000);
});

/** The replica holding the sharder's Lease (identities are `<POD_NAME>_<uuid>`). */
async function sharderLeader(c: ShardCluster): Promise<string> {
  return waitFor('the sharder’s Lease held by a replica', async () => {
    const lease = (await c.admin.api.get({
      resource: builtins.Lease,
      name: 'egress-sharder',
      namespace: 'kubeloom-egress-system',
    })) as V1Lease;
    const holder = lease.spec?.holderIdentity ?? '';
    return [...c.replicas.keys()].find((n) => holder.startsWith(`${n}_`));
  });
}

/** Policy keys whose shard differs between two placements. */
function movedKeys(before: Placement, after: Placement): string[] {
  return [...after.owner].filter(([key, owner]) => before.owner.get(key) !== owner).map(([key]) => key);
}
