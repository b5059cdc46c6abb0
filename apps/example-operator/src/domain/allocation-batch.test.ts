import { describe, expect, it } from 'vitest';
import { forAll, type Random } from '../../test/random.ts';
import type { EgressGatewayPolicy, IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { addressSpace, contains } from './address-space.ts';
import { type AllocationPlan, planAllocation, releaseAllocations } from './allocation.ts';
import { applyChanges, type TableChange } from './allocation-batch.ts';

const now = new Date('2026-12-02T10:00:00Z');

function policy(name: string, spec: Partial<EgressGatewayPolicy['spec']> = {}): EgressGatewayPolicy {
  return {
    metadata: { name, namespace: 'shop', uid: `uid-${name}` },
    spec: { podSelector: {}, ipamPoolRef: { name: 'corp' }, ...spec },
  };
}

/** What one reconcile hands the writer: its change, and the plan its last run decided (as `allocate` keeps it). */
function allocation(pol: EgressGatewayPolicy): {
  change: TableChange;
  plan: () => AllocationPlan | undefined;
} {
  let plan: AllocationPlan | undefined;
  return {
    change: (p) => {
      plan = planAllocation(p, pol, now);
      return plan;
    },
    plan: () => plan,
  };
}

describe('applyChanges (group commit of one pool)', () => {
  it('gives each change the table the earlier ones left: two new policies get two addresses', () => {
    const pool: IPAMPool = { metadata: { name: 'corp' }, spec: { cidrs: ['192.0.2.0/29'] }, status: {} };
    const a = allocation(policy('a'));
    const b = allocation(policy('b', { ipCount: 2 }));
    const out = applyChanges(pool, [a.change, b.change]);
    expect(out.changed).toBe(true);
    expect(out.errors).toEqual([undefined, undefined]);
    expect(a.plan()?.egressIPs).toEqual(['192.0.2.1']);
    expect(b.plan()?.egressIPs).toEqual(['192.0.2.2', '192.0.2.3']);
    expect(out.pool.status?.allocations?.map((x) => `${x.ip} ${x.owner.name}`)).toEqual([
      '192.0.2.1 a',
      '192.0.2.2 b',
      '192.0.2.3 b',
    ]);
  });

  it('leaves out a change that throws and applies the others', () => {
    const pool: IPAMPool = { metadata: { name: 'corp' }, spec: { cidrs: ['192.0.2.0/29'] }, status: {} };
    const boom = new Error('boom');
    const out = applyChanges(pool, [
      () => {
        throw boom;
      },
      allocation(policy('b')).change,
    ]);
    expect(out.errors).toEqual([boom, undefined]);
    expect(out.pool.status?.allocations?.map((x) => x.owner.name)).toEqual(['b']);
  });

  it('reports no change when no change changed the table (I7: no write)', () => {
    const first = applyChanges(
      { metadata: { name: 'corp' }, spec: { cidrs: ['192.0.2.0/29'] }, status: {} },
      [allocation(policy('a')).change],
    );
    const again = applyChanges(first.pool, [
      allocation(policy('a')).change,
      (p) => releaseAllocations(p, 'x'),
    ]);
    expect(again.changed).toBe(false);
    expect(again.pool).toBe(first.pool);
  });

  it('equals the changes written one at a time, and keeps I1 and I2, under random batches', () => {
    forAll(200, (rnd) => batches(rnd));
  });
});

/**
 * Random rounds of batches on a small pool — allocations (new and held, `ipCount` and
 * `requestedIPs` changing), releases — each batch against the table the previous batch wrote.
 * Checked per batch: the table equals the one the same changes give when each is written on its
 * own, in order; no address twice (I1); every address in range (I2); each policy's plan (its last
 * run) is exactly what the table gives its uid; the policies not in the batch keep their records.
 */
function batches(rnd: Random): void {
  const spec: IPAMPool['spec'] = {
    cidrs: rnd.chance(0.5) ? ['192.0.2.0/28'] : ['192.0.2.0/29', '192.0.2.16/30'],
    excludeIPs: rnd.chance(0.5) ? [`192.0.2.${rnd.int(1, 6)}`] : [],
  };
  const space = addressSpace(spec);
  let pool: IPAMPool = { metadata: { name: 'corp' }, spec, status: {} };
  for (let round = 0; round < 6; round++) {
    const size = rnd.int(1, 8);
    const names = new Set<string>();
    const changes: TableChange[] = [];
    const plans: [EgressGatewayPolicy, () => AllocationPlan | undefined][] = [];
    for (let i = 0; i < size; i++) {
      const name = `p${rnd.int(0, 9)}`;
      if (names.has(name)) continue; // one change per policy and batch, as one reconcile per key
      names.add(name);
      if (rnd.chance(0.2)) {
        changes.push((p) => releaseAllocations(p, `uid-${name}`));
        continue;
      }
      const requestedIPs = rnd.chance(0.2) ? [`192.0.2.${rnd.int(0, 19)}`] : undefined;
      const pol = policy(name, { ipCount: rnd.int(1, 3), ...(requestedIPs ? { requestedIPs } : {}) });
      const a = allocation(pol);
      changes.push(a.change);
      plans.push([pol, a.plan]);
    }
    const before = pool.status?.allocations ?? [];
    let oneByOne = pool;
    for (const change of changes) {
      const next = change(oneByOne);
      oneByOne = { ...oneByOne, status: { ...oneByOne.status, allocations: next.allocations } };
    }
    const out = applyChanges(pool, changes); // last: the plans kept are the batch's
    const table = out.pool.status?.allocations ?? [];
    expect(table).toEqual(oneByOne.status?.allocations ?? []);
    const ips = table.map((a) => a.ip);
    expect(new Set(ips).size).toBe(ips.length); // I1
    for (const ip of ips) expect(contains(space, ip)).toBe(true); // I2
    for (const [pol, plan] of plans) {
      const uid = pol.metadata?.uid;
      const held = table.filter((a) => a.owner.uid === uid).map((a) => a.ip);
      expect(plan()?.egressIPs).toEqual(held);
    }
    for (const a of before) if (!names.has(a.owner.name)) expect(table).toContainEqual(a); // others untouched
    pool = out.pool;
  }
}
