import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorCrds, policy, pool } from '../../test/scenarios.ts';
import { type AllocationPlan, planAllocation } from '../domain/allocation.ts';
import {
  type EgressGatewayPolicy,
  type IPAMPool,
  IPAMPoolResource,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { createOperatorClients, type OperatorClients } from './clients.ts';
import { createPoolWriter, type PoolWriter } from './pool-writer.ts';

let fake: FakeCluster;
let stop: AbortController;
const replicas: {
  kube: ReturnType<typeof createFakeKubeClient>;
  clients: OperatorClients;
  writer: PoolWriter;
}[] = [];

/** A controller's view: its own client (and caches) and its own writer, as one replica has. */
async function replica() {
  const kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
  const clients = createOperatorClients(kube);
  await kube.runAndWait(stop.signal);
  const writer = createPoolWriter({ kube, clients, now: () => new Date('2026-12-02T10:00:00Z') });
  const r = { kube, clients, writer };
  replicas.push(r);
  return r;
}

beforeEach(() => {
  fake = new FakeCluster({ crds: operatorCrds() });
  stop = new AbortController();
});

afterEach(async () => {
  stop.abort();
  for (const r of replicas.splice(0)) await r.kube[Symbol.asyncDispose]();
});

/** A policy object with a uid, as the cache would hold it (the writer never reads policies). */
function member(name: string): EgressGatewayPolicy {
  const p = policy('shop', name, { ipamPoolRef: { name: 'corp' } });
  return { ...p, metadata: { ...p.metadata, uid: `uid-${name}` } };
}

/** Allocates for `p` through the writer, as the `allocate` processor does; resolves to the plan written. */
async function allocate(writer: PoolWriter, p: EgressGatewayPolicy): Promise<AllocationPlan | undefined> {
  let plan: AllocationPlan | undefined;
  const written = await writer.write(
    'corp',
    (current) => {
      plan = planAllocation(current, p, new Date());
      return plan;
    },
    stop.signal,
  );
  return written ? plan : undefined;
}

describe('createPoolWriter (group commit)', () => {
  it('writes the changes pending at once in one status update, each with its own addresses', async () => {
    const { kube, clients, writer } = await replica();
    await kube.api.create(IPAMPoolResource, pool('corp', { cidrs: ['192.0.2.0/27'] }));
    await waitFor('pool cached', () => clients.pools.get('corp'));
    const updates = () => fake.requestCount('update', IPAMPoolResource);
    const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
    // The first change starts a write at once; the nine that arrive while it is in flight go together.
    const plans = await Promise.all(names.map((n) => allocate(writer, member(n))));
    expect(updates()).toBe(2);
    expect(writer.stats).toMatchObject({ writes: 2, changes: 10 });
    const stored = (await kube.api.get({ resource: IPAMPoolResource, name: 'corp' })) as IPAMPool;
    expect(stored.status?.allocated).toBe(10);
    for (const [i, plan] of plans.entries()) {
      const held = stored.status?.allocations?.filter((a) => a.owner.uid === `uid-p${i}`).map((a) => a.ip);
      expect(plan?.egressIPs).toEqual(held);
      expect(held).toHaveLength(1);
    }
  });

  it('decides the whole batch again on a live read after a conflict: nothing lost, nothing twice (I1)', async () => {
    const a = await replica();
    const b = await replica();
    await a.kube.api.create(IPAMPoolResource, pool('corp', { cidrs: ['192.0.2.0/28'] })); // 14 usable
    await waitFor('pool cached by both', () => a.clients.pools.get('corp') && b.clients.pools.get('corp'));
    // Two replicas, each with its own writer and cache, allocating from one pool at the same time.
    const plans = await Promise.all(
      Array.from({ length: 12 }, (_, i) => allocate(i % 2 ? b.writer : a.writer, member(`p${i}`))),
    );
    expect(a.writer.stats.conflicts + b.writer.stats.conflicts).toBeGreaterThan(0);
    const stored = (await a.kube.api.get({ resource: IPAMPoolResource, name: 'corp' })) as IPAMPool;
    expect(stored.status?.allocated).toBe(12);
    for (const [i, plan] of plans.entries())
      expect(plan?.egressIPs).toEqual(
        stored.status?.allocations?.filter((x) => x.owner.uid === `uid-p${i}`).map((x) => x.ip),
      );
    const ips = stored.status?.allocations?.map((x) => x.ip) ?? [];
    expect(new Set(ips).size).toBe(12); // I1
    expect(stored.status?.free).toBe(2); // I3
  });

  it('fails only the change that threw; resolves undefined for a pool that does not exist', async () => {
    const { kube, clients, writer } = await replica();
    expect(
      await writer.write('missing', () => ({ allocations: [], changed: true }), stop.signal),
    ).toBeUndefined();
    await kube.api.create(IPAMPoolResource, pool('corp', { cidrs: ['192.0.2.0/29'] }));
    await waitFor('pool cached', () => clients.pools.get('corp'));
    const boom = new Error('boom');
    const [first, failed, ok] = await Promise.allSettled([
      allocate(writer, member('a')),
      writer.write(
        'corp',
        () => {
          throw boom;
        },
        stop.signal,
      ),
      allocate(writer, member('b')),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(failed).toEqual({ status: 'rejected', reason: boom });
    expect(ok.status === 'fulfilled' && ok.value?.egressIPs).toEqual(['192.0.2.2']);
  });
});
