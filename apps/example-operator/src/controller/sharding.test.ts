/**
 * Adoption in the egress controller, on the fake cluster: a replica reconciles the policies of a
 * fenced shard that name it as standby only once both of its caches hold them (policies and
 * gateways), so no adopted reconcile reads its gateway live.
 */
import { shardLabels } from '@kubeloom/controllers';
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, FakeCluster, recordingLogger } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { simulateDeployments } from '../../test/fake-deployment-controller.ts';
import {
  operatorCrds,
  policy,
  pool,
  type ScenarioCluster,
  startOperator,
  waitForCondition,
} from '../../test/scenarios.ts';
import { gatewayName } from '../domain/gateway.ts';
import {
  EgressGatewayPolicyResource,
  IPAMPoolResource,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { createEgressController } from './egress-controller.ts';

const L = shardLabels('egress');

/** A ring view whose fenced shards the test sets. */
function manualFencing() {
  let fenced: readonly string[] = [];
  const listeners = new Set<() => void>();
  return {
    isFenced: (shard: string) => fenced.includes(shard),
    fenced: () => fenced,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fence(shards: readonly string[]) {
      fenced = [...shards].sort();
      for (const l of listeners) l();
    },
  };
}

describe('egress controller: adoption from a fenced shard', () => {
  it('reconciles the adopted policies once both caches hold them, reading no gateway live', async () => {
    const fake = new FakeCluster({
      crds: operatorCrds(),
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }],
    });
    const stop = new AbortController();
    await using kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
    simulateDeployments(kube, stop.signal);
    await kube.runAndWait(stop.signal);
    const cluster: ScenarioCluster = {
      kube,
      operatorClient: () => createFakeKubeClient({ cluster: fake, logger: noopLogger }),
      namespace: 'shop',
      prefix: 't',
    };
    const names = Array.from({ length: 6 }, (_, i) => `p${i}`);
    try {
      await kube.api.create(IPAMPoolResource, pool('corp', { cidrs: ['192.0.2.0/28'] }));
      // Converged by a replica that then died: policies and gateways labelled for shard d, standby me.
      {
        await using _dead = await startOperator(cluster);
        for (const n of names)
          await kube.api.create(
            EgressGatewayPolicyResource,
            policy('shop', n, { ipamPoolRef: { name: 'corp' } }),
          );
        for (const n of names) await waitForCondition(cluster, n, { type: 'Ready', status: 'True' });
      }
      const labels = { metadata: { labels: { [L.shard]: 'd', [L.standby]: 'me' } } };
      for (const n of names) {
        await kube.api.patch({ resource: EgressGatewayPolicyResource, name: n, namespace: 'shop' }, labels, {
          type: 'merge',
        });
        await kube.api.patch(
          { resource: builtins.Deployment, name: gatewayName(n), namespace: 'shop' },
          labels,
          {
            type: 'merge',
          },
        );
      }

      const logger = recordingLogger();
      const fencing = manualFencing();
      await using operatorKube = cluster.operatorClient();
      const controller = createEgressController(operatorKube, {
        namespace: 'shop',
        workers: 2,
        logger,
        shard: { ring: 'egress', identity: 'me', owns: () => false, fencing },
      });
      expect(await operatorKube.runAndWait(stop.signal)).toBe(true);
      const running = controller.run(stop.signal);
      try {
        await operatorKube.waitForCacheSync('operator', stop.signal, () => controller.hasSynced());
        expect(controller.clients.policies.list()).toEqual([]); // d's policies are not its own
        // The gateways' list lags behind the policies' (as on a busy apiserver).
        fake.delay(300, { verbs: ['list'], resource: builtins.Deployment });
        const gets = fake.requestCount('get', builtins.Deployment);
        fencing.fence(['d']);
        const started = (n: string) =>
          logger.records.find((r) => r.message === 'reconcile started' && r.fields.key === `shop/${n}`);
        await waitFor('every adopted policy reconciled', () => names.every((n) => started(n)), {
          timeoutMs: 30_000,
        });
        const cachedAt = logger.records.find((r) => r.message === 'cached the adopted objects')?.fields.at;
        expect(cachedAt).toEqual(expect.any(Number));
        for (const n of names) expect(started(n)?.fields.at).toBeGreaterThanOrEqual(cachedAt as number);
        expect(fake.requestCount('get', builtins.Deployment)).toBe(gets);
      } finally {
        stop.abort();
        await running;
        await controller[Symbol.asyncDispose]();
      }
    } finally {
      stop.abort();
    }
  });
});
