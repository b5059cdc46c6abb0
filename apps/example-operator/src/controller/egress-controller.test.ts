import { exponentialFailureRateLimiter } from '@kubeloom/controllers';
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1Deployment } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DeploymentSimulator, simulateDeployments } from '../../test/fake-deployment-controller.ts';
import {
  expectAllocationInvariants,
  FINALIZER,
  getGateway,
  getPolicy,
  getPool,
  operatorCrds,
  policy,
  pool,
  type ScenarioCluster,
  startOperator,
  waitForCondition,
} from '../../test/scenarios.ts';
import { findCondition } from '../domain/conditions.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { FIELD_MANAGER } from './clients.ts';

let cluster: ScenarioCluster;
let fake: FakeCluster;
let deployments: DeploymentSimulator;
let stop: AbortController;

beforeEach(async () => {
  fake = new FakeCluster({
    crds: operatorCrds(),
    objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }],
  });
  const kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
  stop = new AbortController();
  deployments = simulateDeployments(kube, stop.signal);
  await kube.runAndWait(stop.signal);
  cluster = {
    kube,
    operatorClient: () => createFakeKubeClient({ cluster: fake, logger: noopLogger }),
    namespace: 'shop',
    prefix: 't',
  };
});

afterEach(async () => {
  stop.abort();
  await cluster.kube[Symbol.asyncDispose]();
});

const create = (obj: EgressGatewayPolicy) => cluster.kube.api.create(EgressGatewayPolicyResource, obj);
const createPool = (obj: IPAMPool) => cluster.kube.api.create(IPAMPoolResource, obj);

// Every scenario runs with both pool-summary modes: the derived krt collection and the plain queue.
describe.each(['krt', 'queue'] as const)(
  'egress controller on the fake cluster (pool summary: %s)',
  (mode) => {
    beforeEach(() => {
      cluster = { ...cluster, poolSummary: mode };
    });

    it('allocates, creates the gateway and reports Ready (the design example; I8, I10, I11)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.16/29'], excludeIPs: ['192.0.2.17'] }));
      await using _operator = await startOperator(cluster);
      await create(
        policy('shop', 'payments', { ipamPoolRef: { name: 'corp' }, destinationCIDRs: ['198.51.100.0/24'] }),
      );
      const ready = await waitForCondition(cluster, 'payments', { type: 'Ready', status: 'True' });
      expect(ready.status).toMatchObject({
        egressIPs: ['192.0.2.18'],
        gatewayDeployment: 'egw-payments',
        readyReplicas: 1,
      });
      expect(ready.metadata?.finalizers).toContain(FINALIZER);
      for (const c of ready.status?.conditions ?? [])
        expect(c.observedGeneration).toBe(ready.metadata?.generation);
      const corp = await getPool(cluster, 'corp');
      expect(corp?.status).toMatchObject({ capacity: 5, allocated: 1, free: 4 });
      expect(corp?.status?.allocations?.map((a) => [a.ip, a.owner.uid])).toEqual([
        ['192.0.2.18', ready.metadata?.uid],
      ]);
      const gw = await getGateway(cluster, 'payments');
      expect(gw?.metadata?.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'EgressGatewayPolicy',
          name: 'payments',
          uid: ready.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        }),
      ]);
      // I10: the gateway loses its replicas → not Ready; back → Ready.
      deployments.setAvailable('egw-payments', false);
      await waitForCondition(cluster, 'payments', {
        type: 'Ready',
        status: 'False',
        reason: 'GatewayUnavailable',
      });
      deployments.setAvailable('egw-payments', true);
      await waitForCondition(cluster, 'payments', { type: 'Ready', status: 'True' });
      await expectAllocationInvariants(cluster, ['corp']);
    });

    it('writes nothing when nothing changed, and keeps addresses across restarts (I7)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/28'] }));
      for (const n of ['a', 'b', 'c'])
        await create(policy('shop', n, { ipamPoolRef: { name: 'corp' }, ipCount: 2 }));
      {
        await using _first = await startOperator(cluster);
        for (const n of ['a', 'b', 'c'])
          await waitForCondition(cluster, n, { type: 'Ready', status: 'True' });
      }
      const versions = async () => {
        const list = [
          await getPool(cluster, 'corp'),
          ...(await Promise.all(['a', 'b', 'c'].map((n) => getPolicy(cluster, n)))),
        ];
        const gws = await Promise.all(['a', 'b', 'c'].map((n) => getGateway(cluster, n)));
        return [...list, ...gws].map((o) => `${o?.metadata?.name}@${o?.metadata?.resourceVersion}`);
      };
      const before = await versions();
      const ips = (await getPolicy(cluster, 'b'))?.status?.egressIPs;
      const writes: string[] = [];
      const fake = (cluster.kube as ReturnType<typeof createFakeKubeClient>).cluster;
      fake.onRequest((r) => {
        if (!['get', 'list', 'watch'].includes(r.verb)) writes.push(`${r.verb} ${r.resource?.plural ?? ''}`);
      });
      {
        await using _second = await startOperator(cluster); // synced = every object reconciled once
      }
      expect(writes).toEqual([]);
      expect(await versions()).toEqual(before);
      expect((await getPolicy(cluster, 'b'))?.status?.egressIPs).toEqual(ips);
    });

    it('fails cleanly when the pool is exhausted and converges once room appears (I4, I5)', async () => {
      await createPool(pool('small', { cidrs: ['192.0.2.0/30'] }));
      await using _operator = await startOperator(cluster);
      await create(policy('shop', 'a', { ipamPoolRef: { name: 'small' } }));
      await create(policy('shop', 'b', { ipamPoolRef: { name: 'small' } }));
      await waitForCondition(cluster, 'a', { type: 'Ready', status: 'True' });
      await waitForCondition(cluster, 'b', { type: 'Ready', status: 'True' });
      await create(policy('shop', 'c', { ipamPoolRef: { name: 'small' } }));
      const c = await waitForCondition(cluster, 'c', {
        type: 'IPAllocated',
        status: 'False',
        reason: 'PoolExhausted',
      });
      expect(c.status?.egressIPs).toEqual([]);
      expect(await getGateway(cluster, 'c')).toBeUndefined();
      const aIPs = (await getPolicy(cluster, 'a'))?.status?.egressIPs;
      await cluster.kube.api.delete({ resource: EgressGatewayPolicyResource, name: 'a', namespace: 'shop' });
      await waitFor('policy a gone', async () => (await getPolicy(cluster, 'a')) === undefined);
      const converged = await waitForCondition(cluster, 'c', { type: 'Ready', status: 'True' });
      expect(converged.status?.egressIPs).toEqual(aIPs); // the lowest freed address
      await expectAllocationInvariants(cluster, ['small']);
    });

    it('reclaims the addresses of a policy deleted while the operator was down (I6)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] }));
      await create(policy('shop', 'gone', { ipamPoolRef: { name: 'corp' } }));
      {
        await using _operator = await startOperator(cluster);
        await waitForCondition(cluster, 'gone', { type: 'Ready', status: 'True' });
      }
      const p = await cluster.kube.api.get({
        resource: EgressGatewayPolicyResource,
        name: 'gone',
        namespace: 'shop',
      });
      await cluster.kube.api.update(EgressGatewayPolicyResource, {
        ...p,
        metadata: { ...p.metadata, finalizers: [] },
      });
      await cluster.kube.api.delete({
        resource: EgressGatewayPolicyResource,
        name: 'gone',
        namespace: 'shop',
      });
      expect((await getPool(cluster, 'corp'))?.status?.allocated).toBe(1);
      await using _again = await startOperator(cluster);
      await waitFor(
        'orphan reclaimed',
        async () => (await getPool(cluster, 'corp'))?.status?.allocated === 0,
      );
    });

    it('reclaims the addresses of a policy whose finalizer was removed by hand while it runs (I6)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] }));
      await create(policy('shop', 'kept', { ipamPoolRef: { name: 'corp' } }));
      await create(policy('shop', 'dropped', { ipamPoolRef: { name: 'corp' } }));
      await using _operator = await startOperator(cluster);
      await waitForCondition(cluster, 'kept', { type: 'Ready', status: 'True' });
      const dropped = await waitForCondition(cluster, 'dropped', { type: 'Ready', status: 'True' });
      await cluster.kube.api.update(EgressGatewayPolicyResource, {
        ...dropped,
        metadata: { ...dropped.metadata, finalizers: [] },
      });
      await cluster.kube.api.delete({
        resource: EgressGatewayPolicyResource,
        name: 'dropped',
        namespace: 'shop',
      });
      // Nothing reconciles the deleted policy: only the pool-summary pass can reclaim its address.
      await waitFor(
        'orphan reclaimed',
        async () => (await getPool(cluster, 'corp'))?.status?.allocated === 1,
      );
      const corp = await getPool(cluster, 'corp');
      const kept = await getPolicy(cluster, 'kept');
      expect(corp?.status?.allocations?.map((a) => a.owner.name)).toEqual(['kept']);
      expect(corp?.status).toMatchObject({ capacity: 6, allocated: 1, free: 5 });
      expect(kept?.status?.egressIPs).toEqual(corp?.status?.allocations?.map((a) => a.ip));
    });

    it('keeps retrying a failing pool-summary pass past the retry budget, until it succeeds', async () => {
      const pools = { group: IPAMPoolResource.group, plural: IPAMPoolResource.plural };
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] })); // no status yet: the pass writes it
      const heal = fake.failAlways('update', { resource: pools });
      // Retries 1 ms apart, so that the budget of a key (50 attempts) runs out within the test.
      const rateLimiter = () => exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 });
      await using _operator = await startOperator(cluster, { rateLimiter });
      // Nothing else happens to the pool (its usage does not change): only a retry writes it.
      await waitFor('the pass retried past 50 attempts', () => fake.requestCount('update', pools) > 60);
      heal();
      await waitFor('pool summarized', async () => (await getPool(cluster, 'corp'))?.status?.capacity === 6);
    });

    it('never adopts a Deployment it does not control (I9)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] }));
      const foreign: V1Deployment = {
        metadata: { name: 'egw-taken', namespace: 'shop' },
        spec: {
          selector: { matchLabels: { app: 'other' } },
          template: {
            metadata: { labels: { app: 'other' } },
            spec: { containers: [{ name: 'x', image: 'x' }] },
          },
        },
      };
      const created = (await cluster.kube.api.create(builtins.Deployment, foreign)) as V1Deployment;
      await using _operator = await startOperator(cluster);
      await create(policy('shop', 'taken', { ipamPoolRef: { name: 'corp' } }));
      await waitForCondition(cluster, 'taken', {
        type: 'GatewayAvailable',
        status: 'False',
        reason: 'OwnershipConflict',
      });
      const after = await getGateway(cluster, 'taken');
      // Untouched by the operator (the simulated Deployment controller writes its status).
      expect(after?.metadata?.generation).toBe(created.metadata?.generation);
      expect(after?.spec).toEqual(created.spec);
      expect(after?.metadata?.ownerReferences).toBeUndefined();
      expect(after?.metadata?.managedFields?.map((m) => m.manager)).not.toContain(FIELD_MANAGER);
    });

    it('propagates spec changes to the gateway (I15)', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/28'] }));
      await using _operator = await startOperator(cluster);
      await create(policy('shop', 'p', { ipamPoolRef: { name: 'corp' } }));
      await waitForCondition(cluster, 'p', { type: 'Ready', status: 'True' });
      const hash = (d?: V1Deployment) =>
        d?.spec?.template.metadata?.annotations?.['egress.kubeloom.dev/config-hash'];
      const before = await getGateway(cluster, 'p');
      const current = await cluster.kube.api.get({
        resource: EgressGatewayPolicyResource,
        name: 'p',
        namespace: 'shop',
      });
      await cluster.kube.api.update(EgressGatewayPolicyResource, {
        ...current,
        spec: { ...current.spec, ipCount: 2, gateway: { replicas: 3, nodeSelector: { egress: 'true' } } },
      });
      const after = await waitFor('gateway updated', async () => {
        const d = await getGateway(cluster, 'p');
        return d?.spec?.replicas === 3 ? d : undefined;
      });
      expect(hash(after)).not.toBe(hash(before));
      expect(after.spec?.template.spec?.nodeSelector).toEqual({ egress: 'true' });
      expect(after.spec?.template.spec?.containers[0]?.env?.[0]).toEqual({
        name: 'EGRESS_IPS',
        value: '192.0.2.1,192.0.2.2',
      });
      await waitForCondition(cluster, 'p', { type: 'Ready', status: 'True' });
    });

    it('reports a pool deleted under live policies, and recovers when it comes back', async () => {
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] }));
      await using _operator = await startOperator(cluster);
      await create(policy('shop', 'orphaned', { ipamPoolRef: { name: 'corp' } }));
      await waitForCondition(cluster, 'orphaned', { type: 'Ready', status: 'True' });
      await cluster.kube.api.delete({ resource: IPAMPoolResource, name: 'corp' });
      const lost = await waitForCondition(cluster, 'orphaned', {
        type: 'IPAllocated',
        status: 'False',
        reason: 'PoolNotFound',
      });
      expect(lost.status?.egressIPs).toEqual([]);
      expect(findCondition(lost.status?.conditions, 'Ready')?.reason).toBe('IPNotAllocated');
      // Its gateway stops using the lost address.
      const drained = await waitFor('gateway scaled to zero', async () => {
        const d = await getGateway(cluster, 'orphaned');
        return d?.spec?.replicas === 0 ? d : undefined;
      });
      expect(drained.spec?.template.spec?.containers[0]?.env?.[0]).toEqual({ name: 'EGRESS_IPS', value: '' });
      await createPool(pool('corp', { cidrs: ['192.0.2.0/29'] }));
      const back = await waitForCondition(cluster, 'orphaned', { type: 'Ready', status: 'True' });
      expect(back.status?.egressIPs).toEqual(['192.0.2.1']);
    });

    it('never allocates an address twice with two operators writing at once (I1 without leader election)', async () => {
      await createPool(pool('tiny', { cidrs: ['192.0.2.0/29'] })); // 6 addresses
      await using _a = await startOperator(cluster, { workers: 4 });
      await using _b = await startOperator(cluster, { workers: 4 });
      const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
      await Promise.all(names.map((n) => create(policy('shop', n, { ipamPoolRef: { name: 'tiny' } }))));
      await waitFor('every policy decided', async () => {
        const decided = await Promise.all(
          names.map(async (n) => {
            const p = await getPolicy(cluster, n);
            return p?.status?.conditions?.some((c) => c.type === 'IPAllocated') ?? false;
          }),
        );
        return decided.every(Boolean);
      });
      await waitFor('six allocated', async () => (await getPool(cluster, 'tiny'))?.status?.allocated === 6);
      await expectAllocationInvariants(cluster, ['tiny']);
    });
  },
);
