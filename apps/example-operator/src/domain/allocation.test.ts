import { describe, expect, it } from 'vitest';
import { forAll, type Random } from '../../test/random.ts';
import type { EgressGatewayPolicy, IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { addressSpace, contains } from './address-space.ts';
import { planAllocation, releaseAllocations } from './allocation.ts';

const now = new Date('2026-12-01T10:00:00.123Z');

function pool(
  spec: IPAMPool['spec'],
  allocations: NonNullable<IPAMPool['status']>['allocations'] = [],
): IPAMPool {
  return { metadata: { name: 'corp', uid: 'pool-uid' }, spec, status: { allocations } };
}

function policy(name: string, spec: Partial<EgressGatewayPolicy['spec']> = {}): EgressGatewayPolicy {
  return {
    metadata: { name, namespace: 'shop', uid: `uid-${name}` },
    spec: { podSelector: {}, ipamPoolRef: { name: 'corp' }, ...spec },
  };
}

/** Applies a plan as the controller's pool write would. */
function apply(p: IPAMPool, pol: EgressGatewayPolicy) {
  const plan = planAllocation(p, pol, now);
  return { plan, pool: { ...p, status: { ...p.status, allocations: plan.allocations } } };
}

describe('planAllocation', () => {
  it('allocates the lowest free address and records the owner by uid (the design example)', () => {
    const { plan } = apply(
      pool({ cidrs: ['192.0.2.16/29'], excludeIPs: ['192.0.2.17'] }),
      policy('payments'),
    );
    expect(plan).toEqual({
      changed: true,
      egressIPs: ['192.0.2.18'],
      allocations: [
        {
          ip: '192.0.2.18',
          owner: { namespace: 'shop', name: 'payments', uid: 'uid-payments' },
          allocatedAt: '2026-12-01T10:00:00Z',
        },
      ],
    });
  });

  it('is idempotent: planning again changes nothing (I7)', () => {
    const first = apply(pool({ cidrs: ['192.0.2.0/28'] }), policy('a', { ipCount: 3 }));
    const again = planAllocation(first.pool, policy('a', { ipCount: 3 }), new Date('2027-01-01T00:00:00Z'));
    expect(again.changed).toBe(false);
    expect(again.egressIPs).toEqual(first.plan.egressIPs);
    expect(again.allocations).toEqual(first.pool.status.allocations);
  });

  it('is all or nothing when the pool is short, and takes what is free once room appears (I4)', () => {
    let p = pool({ cidrs: ['192.0.2.0/30'] }); // 2 usable
    p = apply(p, policy('a')).pool;
    const short = apply(p, policy('b', { ipCount: 2 }));
    expect(short.plan.egressIPs).toEqual([]);
    expect(short.plan.changed).toBe(false);
    expect(short.plan.failure).toEqual({
      reason: 'PoolExhausted',
      message: 'pool corp has 1 free address, the policy needs 2 more',
    });
    p = { ...p, status: { allocations: releaseAllocations(p, 'uid-a').allocations } };
    expect(apply(p, policy('b', { ipCount: 2 })).plan.egressIPs).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('grants requested addresses and never substitutes one that is unavailable', () => {
    let p = pool({ cidrs: ['192.0.2.0/28'], excludeIPs: ['192.0.2.5'] });
    p = apply(p, policy('a', { requestedIPs: ['192.0.2.9'] })).pool;
    const cases: [string[], string][] = [
      [['192.0.2.9'], 'RequestedIPUnavailable'],
      [['192.0.2.5'], 'RequestedIPOutOfRange'],
      [['192.0.2.15'], 'RequestedIPOutOfRange'], // broadcast
      [['10.0.0.1'], 'RequestedIPOutOfRange'],
      [['2001:db8::1'], 'FamilyMismatch'],
      [['not-an-ip'], 'RequestedIPOutOfRange'],
    ];
    for (const [requestedIPs, reason] of cases) {
      const plan = planAllocation(p, policy('b', { ipCount: 2, requestedIPs }), now);
      expect(plan.failure?.reason, requestedIPs[0]).toBe(reason);
      expect(plan.egressIPs, requestedIPs[0]).toEqual(['192.0.2.1']); // the automatic slot only
    }
    const ok = planAllocation(p, policy('b', { ipCount: 2, requestedIPs: ['192.0.2.10'] }), now);
    expect(ok.failure).toBeUndefined();
    expect(ok.egressIPs).toEqual(['192.0.2.1', '192.0.2.10']);
  });

  it('releases the highest automatic addresses first when ipCount shrinks', () => {
    let p = pool({ cidrs: ['192.0.2.0/28'] });
    p = apply(p, policy('a', { ipCount: 4 })).pool;
    const plan = planAllocation(p, policy('a', { ipCount: 2 }), now);
    expect(plan.egressIPs).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('drops held addresses that left the pool and allocates in range again', () => {
    const held = pool({ cidrs: ['192.0.2.16/29'] }, [
      { ip: '192.0.2.1', owner: { namespace: 'shop', name: 'a', uid: 'uid-a' } },
    ]);
    expect(planAllocation(held, policy('a'), now).egressIPs).toEqual(['192.0.2.17']);
  });

  it('counts an address spelled another way, or held by two owners, as taken (a hand-edited table)', () => {
    const owner = (name: string) => ({ namespace: 'shop', name, uid: `uid-${name}` });
    const p = pool({ ipFamily: 'IPv6', cidrs: ['2001:db8::/125'] }, [
      { ip: '2001:db8::3', owner: owner('b') },
      { ip: '2001:DB8:0::1', owner: owner('a') }, // unsorted, another spelling of 2001:db8::1
      { ip: '2001:db8::2', owner: owner('a') },
      { ip: '2001:db8::2', owner: owner('c') }, // held twice
    ]);
    // a keeps only the address nobody else holds; requested ::3 (b's, spelled otherwise) is refused
    const a = planAllocation(p, policy('a', { ipCount: 2, requestedIPs: ['2001:db8:0:0::3'] }), now);
    expect(a.failure?.reason).toBe('RequestedIPUnavailable');
    expect(a.egressIPs).toEqual(['2001:db8::1']);
    // a new policy gets the lowest address none of them holds in any spelling (no reserved ones in IPv6)
    expect(planAllocation(p, policy('d'), now).egressIPs).toEqual(['2001:db8::']);
    // b holds its address: nothing changes, and the table comes back sorted
    const b = planAllocation(p, policy('b'), now);
    expect(b.changed).toBe(false);
    expect(b.allocations.map((x) => x.ip)).toEqual([
      '2001:DB8:0::1',
      '2001:db8::2',
      '2001:db8::2',
      '2001:db8::3',
    ]);
  });

  it('plans alike on a table it planned on before, on a fresh copy and on a shuffled copy', () => {
    // Each table's index is computed once and kept: it must answer for every policy as a fresh one.
    forAll(50, (rnd) => {
      let p = pool({ cidrs: ['192.0.2.0/28'] });
      for (let i = 0; i < 8; i++) p = apply(p, policy(`p${i}`, { ipCount: rnd.int(1, 2) })).pool;
      const table = p.status?.allocations ?? [];
      const shuffled = [...table];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = rnd.int(0, i);
        [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
      }
      for (let step = 0; step < 10; step++) {
        const pol = policy(`p${rnd.int(0, 9)}`, {
          ipCount: rnd.int(1, 3),
          ...(rnd.chance(0.3) ? { requestedIPs: [`192.0.2.${rnd.int(1, 14)}`] } : {}),
        });
        const warm = planAllocation(p, pol, now);
        expect(planAllocation(structuredClone(p), pol, now)).toEqual(warm);
        expect(planAllocation({ ...p, status: { allocations: shuffled } }, pol, now)).toEqual(warm);
      }
    });
  });

  it('keeps I1 and I2 under random churn of many policies on a small pool', () => {
    forAll(100, (rnd) => churn(rnd));
  });
});

function churn(rnd: Random): void {
  const spec: IPAMPool['spec'] = {
    cidrs: rnd.chance(0.5) ? ['192.0.2.0/29'] : ['192.0.2.0/30', '192.0.2.8/31'],
    excludeIPs: rnd.chance(0.5) ? ['192.0.2.3'] : [],
  };
  const space = addressSpace(spec);
  let p = pool(spec);
  const live = new Map<string, EgressGatewayPolicy>();
  for (let step = 0; step < 40; step++) {
    const name = `p${rnd.int(0, 5)}`;
    const action = rnd.int(0, 9);
    if (action < 2 && live.has(name)) {
      p = { ...p, status: { allocations: releaseAllocations(p, `uid-${name}`).allocations } };
      live.delete(name);
    } else {
      const ipCount = rnd.int(1, 3);
      const requestedIPs = rnd.chance(0.2) ? [`192.0.2.${rnd.int(0, 9)}`] : undefined;
      const pol = policy(name, { ipCount, ...(requestedIPs ? { requestedIPs } : {}) });
      const before = new Map((p.status?.allocations ?? []).map((a) => [a.ip, a.owner.uid]));
      const { plan, pool: next } = apply(p, pol);
      // other owners never lose or gain anything
      for (const [ip, uid] of before)
        if (uid !== pol.metadata?.uid)
          expect(next.status.allocations.some((a) => a.ip === ip && a.owner.uid === uid)).toBe(true);
      for (const a of next.status.allocations)
        if (!before.has(a.ip)) expect(a.owner.uid).toBe(pol.metadata?.uid);
      expect(plan.egressIPs.length === ipCount || plan.failure !== undefined).toBe(true);
      p = next;
      live.set(name, pol);
    }
    const ips = (p.status?.allocations ?? []).map((a) => a.ip);
    expect(new Set(ips).size).toBe(ips.length); // I1
    for (const ip of ips) expect(contains(space, ip)).toBe(true); // I2
    for (const a of p.status?.allocations ?? [])
      expect([...live.values()].some((x) => x.metadata?.uid === a.owner.uid)).toBe(true);
  }
}
