/**
 * Orphan reclaim in a sharded controller, on the fake cluster: a replica reclaims only the orphaned
 * allocations whose policy the ring gives it, so which ones are its own follows the ring — an
 * orphan that was a fenced shard's becomes this replica's when the fence ends, with no change of
 * the pool to tell.
 */
import { hashRing } from '@kubeloom/controllers';
import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { operatorCrds, pool } from '../../test/scenarios.ts';
import {
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { createOperatorClients } from './clients.ts';
import { createEgressController } from './egress-controller.ts';
import { createPoolWriter } from './pool-writer.ts';
import { summarizePool } from './processors.ts';
import { ownsOnRing } from './sharding.ts';

/** A ring view whose live and fenced shards the test sets. */
function manualRing(members: readonly string[], fenced: readonly string[]) {
  const listeners = new Set<() => void>();
  const view = {
    members: () => members,
    fenced: () => fenced,
    isFenced: (shard: string) => fenced.includes(shard),
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    unfence() {
      fenced = [];
      for (const l of listeners) l();
    },
  };
  return view;
}

describe('egress controller, sharded: orphaned allocations', () => {
  it.each(['krt', 'queue'] as const)(
    'reclaims an orphan of a fenced shard’s policy once the fence ends and the ring gives it here (pool summary by %s)',
    async (poolSummary) => {
      // A deleted policy's name that the ring [d, me] gives to d, and [me] to me.
      const ghost = Array.from({ length: 64 }, (_, i) => `ghost-${i}`).find(
        (n) => hashRing(['d', 'me']).shardFor(`shop/${n}`) === 'd',
      );
      expect(ghost).toBeDefined();
      // Its policy is gone (its finalizer removed by hand): the allocation is an orphan.
      const corp: IPAMPool = {
        ...pool('corp', { cidrs: ['192.0.2.0/29'] }),
        status: {
          allocations: [{ ip: '192.0.2.1', owner: { namespace: 'shop', name: ghost!, uid: 'uid-gone' } }],
        },
      };
      const fake = new FakeCluster({
        crds: operatorCrds(),
        objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, corp],
      });
      const stop = new AbortController();
      await using kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
      const ring = manualRing(['me'], ['d']);
      await using controller = createEgressController(kube, {
        namespace: 'shop',
        logger: noopLogger,
        poolSummary,
        shard: { ring: 'egress', identity: 'me', owns: ownsOnRing(ring, 'me'), fencing: ring },
      });
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      const running = controller.run(stop.signal);
      const stored = () => fake.getObject(IPAMPoolResource, 'corp');
      try {
        // The pool is summarized, and the orphan left alone: the ring gives its policy to d.
        await waitFor('the pool summarized', () => stored()?.status?.capacity === 6, { timeoutMs: 30_000 });
        expect(stored()?.status?.allocations?.map((a) => a.owner.name)).toEqual([ghost]);
        // d's fence ends (its objects moved, its Lease released): the ring now gives the key here.
        ring.unfence();
        await waitFor('the orphan reclaimed', () => stored()?.status?.allocations?.length === 0, {
          timeoutMs: 30_000,
        });
        expect(stored()?.status).toMatchObject({ allocated: 0, free: 6 });
      } finally {
        stop.abort();
        await running;
      }
    },
  );
});

describe('the pool summary pass, sharded', () => {
  it('asks again right before each live read whether a candidate is still its own, and skips it if not', async () => {
    const orphan = { namespace: 'shop', name: 'ghost', uid: 'uid-gone' };
    const corp: IPAMPool = {
      ...pool('corp', { cidrs: ['192.0.2.0/29'] }),
      status: { allocations: [{ ip: '192.0.2.1', owner: orphan }] },
    };
    const fake = new FakeCluster({ crds: operatorCrds(), objects: [corp] });
    const stop = new AbortController();
    await using kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
    const clients = createOperatorClients(kube);
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    const now = () => new Date('2026-12-04T10:00:00Z');
    const ctx = { kube, clients, pools: createPoolWriter({ kube, clients, now }), signal: stop.signal, now };
    const candidates = () => [{ ip: '192.0.2.1', ...orphan }];
    const reads = () => fake.requestCount('get', EgressGatewayPolicyResource);
    try {
      // Its share changed since the candidates were listed (e.g. a dead shard's fence showed).
      await summarizePool(ctx, { name: 'corp', candidates, owns: () => false });
      expect(reads()).toBe(0);
      expect(fake.getObject(IPAMPoolResource, 'corp')?.status?.allocations).toHaveLength(1);
      await summarizePool(ctx, { name: 'corp', candidates, owns: () => true });
      expect(reads()).toBe(1);
      expect(fake.getObject(IPAMPoolResource, 'corp')?.status?.allocations).toEqual([]);
    } finally {
      stop.abort();
    }
  });
});
