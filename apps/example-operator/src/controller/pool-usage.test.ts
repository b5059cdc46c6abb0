import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorCrds, policy, pool } from '../../test/scenarios.ts';
import type { PoolUsage } from '../domain/pool-summary.ts';
import type { IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { createOperatorClients, type OperatorClients } from './clients.ts';
import { poolUsageCollection } from './pool-usage.ts';

let fake: FakeCluster;
let stop: AbortController;
let clients: OperatorClients;
let kube: ReturnType<typeof createFakeKubeClient>;

beforeEach(async () => {
  fake = new FakeCluster({
    crds: operatorCrds(),
    objects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } },
    ],
  });
  kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
  stop = new AbortController();
  clients = createOperatorClients(kube);
});

afterEach(async () => {
  stop.abort();
  await kube[Symbol.asyncDispose]();
});

/** Writes the pool's allocation table (as the operator does, through /status), owners by uid. */
async function allocate(name: string, owners: [ip: string, namespace: string, policy: string][]) {
  const current = clients.pools.get(name);
  if (!current) throw new Error(`pool ${name} not cached`);
  const allocations = await Promise.all(
    owners.map(async ([ip, namespace, n]) => {
      const p = clients.policies.get(n, namespace);
      return { ip, owner: { namespace, name: n, uid: p?.metadata?.uid ?? `uid-of-deleted-${n}` } };
    }),
  );
  return clients.pools.updateStatus({ ...current, status: { ...current.status, allocations } } as IPAMPool);
}

const fields = (u: PoolUsage | undefined) =>
  u && {
    allocated: u.allocated,
    free: u.free,
    policies: u.policies,
    orphans: u.orphanCandidates.map((o) => `${o.ip} ${o.namespace}/${o.name}`),
  };

describe('poolUsageCollection (krt, on the fake cluster)', () => {
  it('follows pools, their allocation tables and the policies naming them', async () => {
    await kube.api.create(clients.pools.resource, pool('corp', { cidrs: ['192.0.2.0/29'] })); // 6 usable
    await kube.api.create(clients.pools.resource, pool('lab', { cidrs: ['198.51.100.0/30'] })); // 2 usable
    await kube.api.create(clients.policies.resource, policy('shop', 'a', { ipamPoolRef: { name: 'corp' } }));
    await kube.api.create(clients.policies.resource, policy('apps', 'b', { ipamPoolRef: { name: 'corp' } }));
    await kube.api.create(clients.policies.resource, policy('shop', 'c', { ipamPoolRef: { name: 'lab' } }));
    const usage = poolUsageCollection(clients, { signal: stop.signal });
    const events: string[] = [];
    usage.register((e) => {
      events.push(`${e.type} ${(e.new ?? e.old)?.name}`);
    });
    await kube.runAndWait(stop.signal);
    await usage.waitUntilSynced(stop.signal);

    expect(fields(usage.get('corp'))).toEqual({
      allocated: 0,
      free: 6,
      policies: ['apps/b', 'shop/a'],
      orphans: [],
    });
    expect(fields(usage.get('lab'))).toEqual({ allocated: 0, free: 2, policies: ['shop/c'], orphans: [] });
    expect(usage.get('corp')?.statusCurrent).toBe(false); // no status written yet

    // An allocation in corp: its counters move, lab's usage is untouched.
    await allocate('corp', [
      ['192.0.2.1', 'shop', 'a'],
      ['192.0.2.2', 'apps', 'b'],
    ]);
    await waitFor('the allocation delivered', () => events.length === 3);
    expect(events).toEqual(['add corp', 'add lab', 'update corp']);
    expect(fields(usage.get('corp'))).toMatchObject({ allocated: 2, free: 4, orphans: [] });

    // A policy deleted without releasing its address (finalizer removed by hand): an orphan
    // candidate in its pool, and it leaves the pool's policies.
    events.length = 0;
    await clients.policies.delete({ name: 'b', namespace: 'apps' });
    await waitFor('b is an orphan candidate', () => events.length > 0);
    expect(fields(usage.get('corp'))).toEqual({
      allocated: 2,
      free: 4,
      policies: ['shop/a'],
      orphans: ['192.0.2.2 apps/b'],
    });
    expect(usage.get('corp')?.needsSummary()).toBe(true);
    expect(events).toEqual(['update corp']); // only the pool the policy named is recomputed
    expect(fields(usage.get('lab'))).toEqual({ allocated: 0, free: 2, policies: ['shop/c'], orphans: [] });

    // A policy added to lab shows up there only.
    await kube.api.create(clients.policies.resource, policy('apps', 'd', { ipamPoolRef: { name: 'lab' } }));
    await waitFor('d in lab', () => usage.get('lab')?.policies.length === 2);
    expect(usage.get('lab')?.policies).toEqual(['apps/d', 'shop/c']);
    expect(usage.get('corp')?.policies).toEqual(['shop/a']);

    // A deleted pool leaves the collection.
    await clients.pools.delete({ name: 'lab' });
    await waitFor('lab gone', () => usage.get('lab') === undefined);
    expect(usage.list().map((u) => u.name)).toEqual(['corp']);
  });

  it('emits nothing for changes that leave a pool usage as it was', async () => {
    await kube.api.create(clients.pools.resource, pool('corp', { cidrs: ['192.0.2.0/29'] }));
    await kube.api.create(clients.policies.resource, policy('shop', 'a', { ipamPoolRef: { name: 'corp' } }));
    const usage = poolUsageCollection(clients, { signal: stop.signal });
    const events: string[] = [];
    usage.register((e) => {
      events.push(`${e.type} ${(e.new ?? e.old)?.name}`);
    });
    await kube.runAndWait(stop.signal);
    await usage.waitUntilSynced(stop.signal);
    await waitFor('initial add delivered', () => events.length === 1);
    expect(events).toEqual(['add corp']);

    // A policy status write (the operator's own, most frequent write) and a relabel (a sharder's)
    // change no pool usage: the usage is not even computed again (the same object).
    const before = usage.get('corp');
    const cached = clients.policies.get('a', 'shop');
    await clients.policies.updateStatus({ ...cached!, status: { egressIPs: ['192.0.2.1'] } });
    await waitFor('status cached', () => clients.policies.get('a', 'shop')?.status?.egressIPs?.length === 1);
    await kube.api.patch(
      { resource: clients.policies.resource, name: 'a', namespace: 'shop' },
      { metadata: { labels: { 'shard.kubeloom.dev/egress': 'x' } } },
      { type: 'merge' },
    );
    await waitFor('relabel cached', () => clients.policies.get('a', 'shop')?.metadata?.labels !== undefined);
    expect(usage.get('corp')).toBe(before);
    // A change that does move the usage, after it: events are ordered, so seeing this one proves
    // the status write produced none.
    await allocate('corp', [['192.0.2.1', 'shop', 'a']]);
    await waitFor('allocation event', () => events.length === 2);
    expect(events).toEqual(['add corp', 'update corp']);
    expect(usage.get('corp')).toMatchObject({ allocated: 1, free: 5, orphanCandidates: [] });
  });
});
