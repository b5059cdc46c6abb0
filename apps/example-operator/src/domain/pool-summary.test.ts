import { describe, expect, it } from 'vitest';
import type { EgressGatewayPolicy, IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { findCondition } from './conditions.ts';
import { orphanCandidates, poolStatus, poolUsage } from './pool-summary.ts';

const now = new Date('2026-12-01T10:00:00Z');
const owner = (n: string) => ({ namespace: 'shop', name: n, uid: `uid-${n}` });
const pool = (cidrs: string[], ips: [string, string][]): IPAMPool => ({
  metadata: { name: 'corp', generation: 2 },
  spec: { cidrs },
  status: { allocations: ips.map(([ip, n]) => ({ ip, owner: owner(n) })) },
});

describe('poolStatus', () => {
  it('keeps the counters consistent (I3)', () => {
    const s = poolStatus(pool(['192.0.2.0/30'], [['192.0.2.1', 'a']]), now);
    expect(s).toMatchObject({ observedGeneration: 2, capacity: 2, allocated: 1, free: 1 });
    expect(findCondition(s.conditions, 'Exhausted')?.status).toBe('False');
    const full = poolStatus(
      pool(
        ['192.0.2.0/30'],
        [
          ['192.0.2.1', 'a'],
          ['192.0.2.2', 'b'],
        ],
      ),
      now,
    );
    expect(full).toMatchObject({ capacity: 2, allocated: 2, free: 0 });
    expect(findCondition(full.conditions, 'Exhausted')?.status).toBe('True');
  });

  it('flags allocations a spec change left outside the pool', () => {
    const s = poolStatus(
      pool(
        ['192.0.2.0/30'],
        [
          ['192.0.2.1', 'a'],
          ['10.0.0.1', 'b'],
        ],
      ),
      now,
    );
    expect(s).toMatchObject({ capacity: 2, allocated: 2, free: 1 });
    expect(findCondition(s.conditions, 'AllocationsOutOfRange')).toMatchObject({
      status: 'True',
      reason: 'OutsidePool',
      message: "allocated addresses outside the pool's spec: 10.0.0.1",
    });
  });

  it('is not Ready when the spec leaves nothing usable', () => {
    const s = poolStatus(pool(['nope'], []), now);
    expect(findCondition(s.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NoUsableAddresses',
    });
  });
});

describe('orphanCandidates', () => {
  it('lists allocations whose owner is not known (to be confirmed by a live read)', () => {
    const p = pool(
      ['192.0.2.0/29'],
      [
        ['192.0.2.1', 'a'],
        ['192.0.2.2', 'gone'],
      ],
    );
    expect(orphanCandidates(p, new Set(['uid-a']))).toEqual([{ ip: '192.0.2.2', ...owner('gone') }]);
  });
});

describe('poolUsage', () => {
  const policy = (n: string, namespace = 'shop'): EgressGatewayPolicy => ({
    metadata: { name: n, namespace, uid: `uid-${n}` },
    spec: { podSelector: {}, ipamPoolRef: { name: 'corp' } },
  });
  const withStatus = (p: IPAMPool): IPAMPool => ({ ...p, status: poolStatus(p, now) });

  it('derives the counters from the spec and the table, whatever the stored counters say (I3)', () => {
    const p = pool(
      ['192.0.2.0/29'], // 6 usable
      [
        ['192.0.2.1', 'a'],
        ['192.0.2.2', 'b'],
        ['10.0.0.1', 'c'], // outside the spec: allocated, but takes no free address
      ],
    );
    const stale = { ...p, status: { ...p.status, capacity: 99, allocated: 0, free: 99 } };
    const u = poolUsage(stale, [policy('a'), policy('b'), policy('c')]);
    expect(u).toMatchObject({ name: 'corp', capacity: 6, allocated: 3, free: 4, statusCurrent: false });
    expect(u.metadata).toEqual({ name: 'corp' });
    expect(u.needsSummary()).toBe(true);
  });

  it('lists the policies naming the pool, sorted, and the allocations none of them owns', () => {
    const p = withStatus(
      pool(
        ['192.0.2.0/29'],
        [
          ['192.0.2.1', 'a'],
          ['192.0.2.2', 'gone'],
          ['192.0.2.3', 'gone'],
        ],
      ),
    );
    const u = poolUsage(p, [policy('z', 'apps'), policy('a'), policy('waiting')]);
    expect(u.policies).toEqual(['apps/z', 'shop/a', 'shop/waiting']);
    expect(u.orphanCandidates).toEqual([
      { ip: '192.0.2.2', ...owner('gone') },
      { ip: '192.0.2.3', ...owner('gone') },
    ]);
    expect(u.statusCurrent).toBe(true);
    expect(u.needsSummary()).toBe(true); // orphan candidates to confirm
  });

  it('needs no summary when the stored status is the computed one and every owner is known', () => {
    const p = withStatus(pool(['192.0.2.0/29'], [['192.0.2.1', 'a']]));
    const u = poolUsage(p, [policy('a')]);
    expect(u).toMatchObject({ allocated: 1, free: 5, orphanCandidates: [], statusCurrent: true });
    expect(u.needsSummary()).toBe(false);
    // Same inputs, same usage: a derived collection emits nothing for an unchanged pool.
    expect(poolUsage(p, [policy('a')])).toEqual(u);
    // A pool without a status (just created) needs its first summary.
    expect(poolUsage({ ...p, status: undefined }, [policy('a')]).needsSummary()).toBe(true);
    // A condition that should flip makes the status stale: the owner of the last address frees it.
    const full = withStatus(
      pool(
        ['192.0.2.0/30'],
        [
          ['192.0.2.1', 'a'],
          ['192.0.2.2', 'b'],
        ],
      ),
    );
    expect(findCondition(full.status?.conditions, 'Exhausted')?.status).toBe('True');
    const freed = { ...full, status: { ...full.status, allocations: full.status?.allocations?.slice(0, 1) } };
    expect(poolUsage(freed, [policy('a')])).toMatchObject({ free: 1, statusCurrent: false });
  });
});
