import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { EgressGatewayPolicy } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { findCondition, REASON_PATTERN } from './conditions.ts';
import { renderGateway } from './gateway.ts';
import { jsonEqual } from './json-equal.ts';
import { desiredPolicyStatus, type PolicyObservation } from './policy-status.ts';

const t0 = new Date('2026-12-01T10:00:00Z');
const t1 = new Date('2026-12-01T10:05:00Z');
const policy: EgressGatewayPolicy = {
  metadata: { name: 'payments', namespace: 'shop', uid: 'uid-1', generation: 3 },
  spec: { podSelector: {}, ipamPoolRef: { name: 'corp' }, ipCount: 1 },
};
const deployment = (available: number, observed = 1): V1Deployment => ({
  ...renderGateway(policy, ['192.0.2.18']),
  metadata: { ...renderGateway(policy, ['192.0.2.18']).metadata, generation: 1 },
  status: { observedGeneration: observed, availableReplicas: available, readyReplicas: available },
});
const observe = (o: Partial<PolicyObservation>): PolicyObservation => ({
  policy,
  poolFound: true,
  egressIPs: ['192.0.2.18'],
  deployment: deployment(2),
  ownership: 'ours',
  now: t0,
  ...o,
});
const status = (o: Partial<PolicyObservation>) => desiredPolicyStatus(observe(o));
const reasons = (s: ReturnType<typeof status>) =>
  s.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('desiredPolicyStatus', () => {
  it('is Ready when addresses are held and the gateway is available (I10, I11)', () => {
    const s = status({});
    expect(s).toMatchObject({
      observedGeneration: 3,
      egressIPs: ['192.0.2.18'],
      gatewayDeployment: 'egw-payments',
      readyReplicas: 2,
    });
    expect(s.gatewaySelector).toBe(
      'app.kubernetes.io/name=egress-gateway,egress.kubeloom.dev/policy=payments',
    );
    expect(reasons(s)).toEqual([
      'IPAllocated=True/Allocated',
      'GatewayAvailable=True/Available',
      'Ready=True/Ready',
    ]);
    for (const c of s.conditions ?? []) expect(c.observedGeneration).toBe(3);
  });

  it('explains every way of not being Ready, with reasons the CRD accepts (I10, I12)', () => {
    const cases: [Partial<PolicyObservation>, string[]][] = [
      [
        { poolFound: false, egressIPs: [], deployment: undefined, ownership: 'absent' },
        [
          'IPAllocated=False/PoolNotFound',
          'GatewayAvailable=False/DeploymentNotCreated',
          'Ready=False/IPNotAllocated',
        ],
      ],
      [
        {
          egressIPs: [],
          allocationFailure: { reason: 'PoolExhausted', message: 'no room' },
          deployment: undefined,
          ownership: 'absent',
        },
        [
          'IPAllocated=False/PoolExhausted',
          'GatewayAvailable=False/DeploymentNotCreated',
          'Ready=False/IPNotAllocated',
        ],
      ],
      [
        { deployment: deployment(0) },
        [
          'IPAllocated=True/Allocated',
          'GatewayAvailable=False/NoAvailableReplicas',
          'Ready=False/GatewayUnavailable',
        ],
      ],
      [
        { deployment: deployment(2, 0) },
        [
          'IPAllocated=True/Allocated',
          'GatewayAvailable=False/DeploymentProgressing',
          'Ready=False/GatewayUnavailable',
        ],
      ],
      [
        { ownership: 'foreign' },
        [
          'IPAllocated=True/Allocated',
          'GatewayAvailable=False/OwnershipConflict',
          'Ready=False/GatewayUnavailable',
        ],
      ],
    ];
    for (const [o, want] of cases) {
      const s = status(o);
      expect(reasons(s)).toEqual(want);
      for (const c of s.conditions ?? []) {
        expect(c.reason).toMatch(REASON_PATTERN);
        expect(c.message).not.toMatch(/\n/);
      }
    }
    expect(status({ ownership: 'foreign' }).gatewayDeployment).toBeUndefined();
    expect(status({ ownership: 'foreign' }).readyReplicas).toBe(0);
  });

  it('moves lastTransitionTime only when a status flips, so an unchanged status is equal (I7, I12)', () => {
    const first = status({});
    const stored = { ...policy, status: first };
    const same = desiredPolicyStatus(observe({ policy: stored, now: t1 }));
    expect(jsonEqual(same, first)).toBe(true);
    const flipped = desiredPolicyStatus(observe({ policy: stored, now: t1, deployment: deployment(0) }));
    expect(findCondition(flipped.conditions, 'IPAllocated')?.lastTransitionTime).toBe('2026-12-01T10:00:00Z');
    expect(findCondition(flipped.conditions, 'Ready')?.lastTransitionTime).toBe('2026-12-01T10:05:00Z');
    expect(jsonEqual(flipped, first)).toBe(false);
  });
});

describe('jsonEqual', () => {
  it('ignores key order and undefined members, not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2], c: undefined }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ b: [2, 1] }, { b: [1, 2] })).toBe(false);
    expect(jsonEqual({ a: null }, { a: 0 })).toBe(false);
  });
});
