import { describe, expect, it } from 'vitest';
import type { EgressGatewayPolicy } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import {
  CONFIG_HASH_ANNOTATION,
  gatewayChanged,
  gatewayLabels,
  gatewayName,
  isUpToDate,
  ownership,
  RENDERED_HASH_ANNOTATION,
  renderGateway,
  selectorString,
} from './gateway.ts';

const policy = (name = 'payments', spec: Partial<EgressGatewayPolicy['spec']> = {}): EgressGatewayPolicy => ({
  metadata: { name, namespace: 'shop', uid: 'uid-1', generation: 1 },
  spec: { podSelector: {}, ipamPoolRef: { name: 'corp' }, destinationCIDRs: ['198.51.100.0/24'], ...spec },
});
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe('renderGateway', () => {
  it('renders an owned Deployment: name, labels, selector, controller reference with the uid (I8)', () => {
    const d = renderGateway(policy(), ['192.0.2.18']);
    expect(d.metadata).toEqual({
      name: 'egw-payments',
      namespace: 'shop',
      annotations: { [RENDERED_HASH_ANNOTATION]: expect.stringMatching(/^[0-9a-f]{16}$/) },
      labels: { 'app.kubernetes.io/name': 'egress-gateway', 'egress.kubeloom.dev/policy': 'payments' },
      ownerReferences: [
        {
          apiVersion: 'egress.kubeloom.dev/v1alpha1',
          kind: 'EgressGatewayPolicy',
          name: 'payments',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(d.spec?.selector).toEqual({ matchLabels: d.metadata?.labels });
    expect(d.spec?.template.metadata?.labels).toEqual(d.metadata?.labels);
    expect(d.spec?.replicas).toBe(2);
    expect(d.spec?.template.spec?.containers[0]?.env).toEqual([
      { name: 'EGRESS_IPS', value: '192.0.2.18' },
      { name: 'DESTINATION_CIDRS', value: '198.51.100.0/24' },
    ]);
  });

  it('rolls pods when the addresses or destinations change, not for replicas (I15)', () => {
    const hash = (p: EgressGatewayPolicy, ips: string[]) =>
      renderGateway(p, ips).spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
    const base = hash(policy(), ['192.0.2.18']);
    expect(hash(policy(), ['192.0.2.18'])).toBe(base);
    expect(hash(policy(), ['192.0.2.19'])).not.toBe(base);
    expect(hash(policy('payments', { destinationCIDRs: ['203.0.113.0/24'] }), ['192.0.2.18'])).not.toBe(base);
    expect(hash(policy('payments', { gateway: { replicas: 4 } }), ['192.0.2.18'])).toBe(base);
    expect(renderGateway(policy('payments', { gateway: { replicas: 4 } }), []).spec?.replicas).toBe(0); // no addresses, no pods
    const scaled = renderGateway(
      policy('payments', { gateway: { replicas: 4, nodeSelector: { egress: 'true' } } }),
      ['192.0.2.18'],
    );
    expect(scaled.spec?.replicas).toBe(4);
    expect(scaled.spec?.template.spec?.nodeSelector).toEqual({ egress: 'true' });
  });

  it('keeps names and label values within 63 characters and distinct for long policy names', () => {
    const long = `${'a'.repeat(70)}-x`;
    const other = `${'a'.repeat(70)}-y`;
    expect(gatewayName(long)).toHaveLength(63);
    expect(gatewayName(long)).not.toBe(gatewayName(other));
    expect(gatewayName(long)).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    const value = gatewayLabels('a.'.repeat(40))['egress.kubeloom.dev/policy'] ?? '';
    expect(value.length).toBeLessThanOrEqual(63);
    expect(value).toMatch(LABEL_VALUE);
    expect(selectorString(gatewayLabels('p'))).toBe(
      'app.kubernetes.io/name=egress-gateway,egress.kubeloom.dev/policy=p',
    );
  });
});

describe('isUpToDate', () => {
  it('skips an apply only when nothing rendered changed and nobody edited the fields users touch (I7)', () => {
    const desired = renderGateway(policy(), ['192.0.2.18']);
    // As stored: the apiserver adds defaults, which are not compared.
    const stored = structuredClone(desired);
    stored.spec!.template.spec!.containers[0]!.imagePullPolicy = 'IfNotPresent';
    expect(isUpToDate(stored, desired)).toBe(true);
    expect(isUpToDate(undefined, desired)).toBe(false);
    const scaled = structuredClone(stored);
    scaled.spec!.replicas = 5; // kubectl scale
    expect(isUpToDate(scaled, desired)).toBe(false);
    expect(isUpToDate(stored, renderGateway(policy(), ['192.0.2.19']))).toBe(false);
    expect(
      isUpToDate(stored, renderGateway(policy('payments', { gateway: { image: 'other' } }), ['192.0.2.18'])),
    ).toBe(false);
  });
});

describe('ownership', () => {
  it('adopts nothing: only a controller reference with this uid is ours (I9)', () => {
    const rendered = renderGateway(policy(), []);
    expect(ownership(undefined, policy())).toBe('absent');
    expect(ownership(rendered, policy())).toBe('ours');
    const other = { ...policy(), metadata: { ...policy().metadata, uid: 'uid-2' } };
    expect(ownership(rendered, other)).toBe('foreign'); // same name, recreated policy
    expect(ownership({ metadata: { name: 'egw-payments' } }, policy())).toBe('foreign');
    expect(
      ownership(
        {
          metadata: {
            ownerReferences: [
              { apiVersion: 'v1', kind: 'EgressGatewayPolicy', name: 'payments', uid: 'uid-1' },
            ],
          },
        },
        policy(),
      ),
    ).toBe('foreign'); // not a controller reference
  });
});

describe('gatewayChanged', () => {
  const ring = ['shard.kubeloom.dev/egress', 'standby.kubeloom.dev/egress', 'drain.kubeloom.dev/egress'];
  const stored = (patch: { labels?: Record<string, string>; replicas?: number; ready?: number } = {}) => {
    const d = renderGateway(policy(), ['192.0.2.18']);
    return {
      ...d,
      metadata: {
        ...d.metadata,
        resourceVersion: String(Math.random()),
        labels: { ...d.metadata?.labels, ...patch.labels },
        managedFields: [{ manager: String(Math.random()) }],
      },
      spec: { ...d.spec!, replicas: patch.replicas ?? 1 },
      status: { readyReplicas: patch.ready ?? 1 },
    };
  };

  it('ignores a relabel by the sharder (shard, standby, drain), resourceVersion and managedFields', () => {
    const before = stored({ labels: { [ring[0]!]: 'a', [ring[1]!]: 'b' } });
    const moved = stored({ labels: { [ring[0]!]: 'b', [ring[1]!]: 'c', [ring[2]!]: 'true' } });
    expect(gatewayChanged(before, moved, ring)).toBe(false);
    expect(gatewayChanged(before, stored(), ring)).toBe(false);
  });

  it('sees what a reconcile reads: spec, status, other labels (also the ring labels when not ignored)', () => {
    const before = stored({ labels: { [ring[0]!]: 'a' } });
    expect(gatewayChanged(before, stored({ labels: { [ring[0]!]: 'a' }, replicas: 2 }), ring)).toBe(true);
    expect(gatewayChanged(before, stored({ labels: { [ring[0]!]: 'a' }, ready: 0 }), ring)).toBe(true);
    expect(gatewayChanged(before, stored({ labels: { [ring[0]!]: 'a', team: 'x' } }), ring)).toBe(true);
    expect(gatewayChanged(before, stored({ labels: { [ring[0]!]: 'b' } }))).toBe(true);
  });
});
