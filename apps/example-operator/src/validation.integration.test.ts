/**
 * I13: invalid policies and pools are rejected with the CRD's messages, and the generated
 * validators give the same verdict and messages as kube-apiserver (create and update).
 */

import {
  type ApiError,
  createKubeClient,
  ignoreNotFound,
  isConflict,
  type KubeClient,
  type KubeObject,
  noopLogger,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import { createTestNamespace, installCRDs, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCrds, policy, pool } from '../test/scenarios.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  EgressGatewayPolicyValidator,
  type IPAMPool,
  IPAMPoolResource,
  IPAMPoolValidator,
} from './generated/egress.kubeloom.dev/v1alpha1/index.ts';

let kube: KubeClient;
let namespace: string;

beforeAll(async () => {
  const { kubeConfig } = sharedControlPlane();
  await installCRDs(kubeConfig, operatorCrds() as never);
  namespace = await createTestNamespace(kubeConfig, 'egress-validation');
  kube = createKubeClient({ kubeConfig, logger: noopLogger });
});
/**
 * The pools this file stored: pools are cluster-scoped, so they are deleted at the end (test
 * namespaces are not), lest a later file's operator find them (run-operator.integration.test.ts
 * scraped its pool queue while it still held this file's pool).
 */
const storedPools: string[] = [];

afterAll(async () => {
  for (const name of storedPools) await ignoreNotFound(kube.api.delete({ resource: IPAMPoolResource, name }));
  await kube?.[Symbol.asyncDispose]();
});

interface Verdict {
  readonly errors: string[];
}

/** An error as the apiserver words it, path first: the validator must agree word for word. */
function comparable(path: string | undefined, message: string | undefined): string {
  return `${path}: ${message}`;
}

async function server<T extends KubeObject>(
  resource: TypedResourceDescriptor<T>,
  obj: T,
  old?: T,
): Promise<Verdict> {
  try {
    if (old) await kube.api.update(resource, obj, { dryRun: 'All' });
    else await kube.api.create(resource, obj, { dryRun: 'All' });
    return { errors: [] };
  } catch (e) {
    const causes = (e as ApiError).causes ?? [];
    if (causes.length === 0) throw e;
    return { errors: causes.map((c) => comparable(c.field, c.message)).sort() };
  }
}

/** What {@link updateVerdict} saw: the stored object, the change sent, the apiserver's verdict. */
interface UpdateVerdict<T> {
  readonly old: T;
  readonly changed: T;
  readonly verdict: Verdict;
}

/**
 * The apiserver's verdict on a dry-run update of the stored object. The object is read just
 * before, and read again on a conflict: the control plane is shared with other test files, and the
 * operator that run-operator.integration.test.ts starts writes the status of every pool (it is
 * cluster-scoped), so an object read earlier may be stale by the time its update is sent.
 */
async function updateVerdict<T extends KubeObject>(
  resource: TypedResourceDescriptor<T>,
  key: { name: string; namespace?: string },
  change: (stored: T) => T,
): Promise<UpdateVerdict<T>> {
  for (let attempt = 1; ; attempt++) {
    const old = await kube.api.get({ resource, ...key });
    const changed = change(old);
    try {
      return { old, changed, verdict: await server(resource, changed, old) };
    } catch (e) {
      // A writer that keeps winning for ten rounds is a bug worth seeing, not a race.
      if (!isConflict(e) || attempt === 10) throw e;
    }
  }
}

function local(
  validator: typeof EgressGatewayPolicyValidator | typeof IPAMPoolValidator,
  obj: unknown,
  old?: unknown,
): Verdict {
  const r = validator.validate(obj, old ? { oldObject: old } : {});
  expect(r.complete, JSON.stringify(r.notEvaluated)).toBe(true);
  return { errors: r.errors.map((e) => comparable(e.path, e.message)).sort() };
}

describe('validators and kube-apiserver agree on the operator API (I13)', () => {
  const p = (spec: Partial<EgressGatewayPolicy['spec']>) =>
    policy(namespace, 'p', { ipamPoolRef: { name: 'corp' }, ...spec });

  it.each([
    ['a valid policy', {}, false],
    ['ipCount 0', { ipCount: 0 }, true],
    ['ipCount 5', { ipCount: 5 }, true],
    ['more requestedIPs than ipCount', { ipCount: 1, requestedIPs: ['192.0.2.1', '192.0.2.2'] }, true],
    [
      'five requestedIPs',
      { ipCount: 4, requestedIPs: ['1', '2', '3', '4', '5'].map((n) => `192.0.2.${n}`) },
      true,
    ],
    ['an empty pool name', { ipamPoolRef: { name: '' } }, true],
    ['six gateway replicas', { gateway: { replicas: 6 } }, true],
  ] as const)('policy create: %s', async (_label, spec, invalid) => {
    const obj = p(spec as Partial<EgressGatewayPolicy['spec']>);
    const verdict = await server(EgressGatewayPolicyResource, obj);
    expect(verdict.errors.length > 0).toBe(invalid);
    expect(local(EgressGatewayPolicyValidator, obj)).toEqual(verdict);
  });

  it('policy update: ipamPoolRef is immutable', async () => {
    await kube.api.create(
      EgressGatewayPolicyResource,
      policy(namespace, 'moving', { ipamPoolRef: { name: 'corp' } }),
    );
    const { old, changed, verdict } = await updateVerdict(
      EgressGatewayPolicyResource,
      { name: 'moving', namespace },
      (stored) => ({ ...stored, spec: { ...stored.spec, ipamPoolRef: { name: 'other' } } }),
    );
    expect(verdict.errors).toEqual(['spec.ipamPoolRef: Invalid value: ipamPoolRef is immutable']);
    expect(local(EgressGatewayPolicyValidator, changed, old)).toEqual(verdict);
  });

  it.each([
    ['a valid pool', { cidrs: ['192.0.2.0/28'] }, false],
    ['no CIDR', { cidrs: [] }, true],
    ['17 CIDRs', { cidrs: Array.from({ length: 17 }, (_, i) => `10.${i}.0.0/24`) }, true],
    ['a duplicate CIDR', { cidrs: ['192.0.2.0/28', '192.0.2.0/28'] }, true],
    ['an unknown family', { cidrs: ['192.0.2.0/28'], ipFamily: 'IPv5' }, true],
  ] as const)('pool create: %s', async (label, spec, invalid) => {
    const obj = pool(
      `v-${label
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/-$/, '')}`,
      spec as IPAMPool['spec'],
    );
    const verdict = await server(IPAMPoolResource, obj);
    expect(verdict.errors.length > 0).toBe(invalid);
    expect(local(IPAMPoolValidator, obj)).toEqual(verdict);
  });

  it('pool update: ipFamily is immutable', async () => {
    const name = `${namespace}-family`;
    storedPools.push(name);
    await kube.api.create(IPAMPoolResource, pool(name, { cidrs: ['192.0.2.0/28'] }));
    const { old, changed, verdict } = await updateVerdict(IPAMPoolResource, { name }, (stored) => ({
      ...stored,
      spec: { ...stored.spec, ipFamily: 'IPv6' as const },
    }));
    expect(verdict.errors).toHaveLength(1);
    expect(verdict.errors[0]).toMatch(/^spec\.ipFamily: Invalid value: /);
    expect(local(IPAMPoolValidator, changed, old)).toEqual(verdict);
  });
});
