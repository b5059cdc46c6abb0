import { describe, expect, it } from 'vitest';
import type { IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { findCondition } from './conditions.ts';
import { orphanCandidates, poolStatus } from './pool-summary.ts';

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
