/**
 * Adoption in the egress controller, on the fake cluster: a replica reconciles the policies of a
 * fenced shard that name it as standby only once both of its caches hold them (policies and
 * gateways), so no adopted reconcile reads its gateway live; and a policy moved here while it
 * waited for that is reconciled all the same.
 */
import { type ControllerMetrics, shardLabels } from '@kubeloom/controllers';
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
  let lapsed = new Set<string>();
  const listeners = new Set<() => void>();
  return {
    isFenced: (shard: string) => fenced.includes(shard) && !lapsed.has(shard),
    fenced: () => fenced,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fence(shards: readonly string[]) {
      fenced = [...shards].sort();
      lapsed = new Set();
      for (const l of listeners) l();
    },
    /**
     * The fence of `shard` ends by the clock (an adopter stops adopting at two thirds of the
     * lease duration after it last saw the evictor's renewal) with no change of the fenced list.
     */
    lapse(shard: string) {
      lapsed.add(shard);
    },
  };
}

/** Counts the reconciles (skips included) each queue ran. */
function reconcileCounter() {
  const counts = new Map<string, number>();
  const metrics: ControllerMetrics = {
    queue: (name) => ({
      add() {},
      retry() {},
      observeQueueDuration() {},
      observeWorkDuration() {},
      reconcile() {
        counts.set(name, (counts.get(name) ?? 0) + 1);
      },
      close() {},
    }),
    leaderElection: () => ({ setLeader() {}, close() {} }),
  };
  return { metrics, count: (name: string) => counts.get(name) ?? 0 };
}

const names = Array.from({ length: 6 }, (_, i) => `p${i}`);

/**
 * A fake cluster whose policies were converged by a replica that then died: each policy labelled
 * for shard d with standby `me`, its gateway Deployment labelled `gatewayShard` (standby `me`).
 * Then a controller of shard `me` with a ring view whose fenced shards the test sets, run until
 * disposed (which aborts `stop`).
 */
async function adopterOf(gatewayShard: string, stop: AbortController, metrics?: ControllerMetrics) {
  const signal = stop.signal;
  const fake = new FakeCluster({
    crds: operatorCrds(),
    objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }],
  });
  const kube = createFakeKubeClient({ cluster: fake, logger: noopLogger });
  simulateDeployments(kube, signal);
  await kube.runAndWait(signal);
  const cluster: ScenarioCluster = {
    kube,
    operatorClient: () => createFakeKubeClient({ cluster: fake, logger: noopLogger }),
    namespace: 'shop',
    prefix: 't',
  };
  await kube.api.create(IPAMPoolResource, pool('corp', { cidrs: ['192.0.2.0/28'] }));
  {
    await using _dead = await startOperator(cluster);
    for (const n of names)
      await kube.api.create(
        EgressGatewayPolicyResource,
        policy('shop', n, { ipamPoolRef: { name: 'corp' } }),
      );
    for (const n of names) await waitForCondition(cluster, n, { type: 'Ready', status: 'True' });
  }
  const labelled = (shard: string) => ({ metadata: { labels: { [L.shard]: shard, [L.standby]: 'me' } } });
  for (const n of names) {
    await kube.api.patch(
      { resource: EgressGatewayPolicyResource, name: n, namespace: 'shop' },
      labelled('d'),
      {
        type: 'merge',
      },
    );
    await kube.api.patch(
      { resource: builtins.Deployment, name: gatewayName(n), namespace: 'shop' },
      labelled(gatewayShard),
      { type: 'merge' },
    );
  }

  const logger = recordingLogger();
  const fencing = manualFencing();
  const operatorKube = cluster.operatorClient();
  const controller = createEgressController(operatorKube, {
    namespace: 'shop',
    workers: 2,
    logger,
    shard: { ring: 'egress', identity: 'me', owns: () => false, fencing },
    ...(metrics ? { metrics } : {}),
  });
  expect(await operatorKube.runAndWait(signal)).toBe(true);
  const running = controller.run(signal);
  await operatorKube.waitForCacheSync('operator', signal, () => controller.hasSynced());
  expect(controller.clients.policies.list()).toEqual([]); // d's policies are not its own
  const started = (n: string) =>
    logger.records.find((r) => r.message === 'reconcile started' && r.fields.key === `shop/${n}`);
  return {
    fake,
    kube,
    logger,
    fencing,
    controller,
    started,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      await controller[Symbol.asyncDispose]();
      await operatorKube[Symbol.asyncDispose]();
      await kube[Symbol.asyncDispose]();
    },
  };
}

describe('egress controller: adoption from a fenced shard', () => {
  it('reconciles the adopted policies once both caches hold them, reading no gateway live', async () => {
    const stop = new AbortController();
    try {
      await using a = await adopterOf('d', stop);
      // The gateways' list lags behind the policies' (as on a busy apiserver).
      a.fake.delay(300, { verbs: ['list'], resource: builtins.Deployment });
      const gets = a.fake.requestCount('get', builtins.Deployment);
      a.fencing.fence(['d']);
      await waitFor('every adopted policy reconciled', () => names.every((n) => a.started(n)), {
        timeoutMs: 30_000,
      });
      const cachedAt = a.logger.records.find((r) => r.message === 'cached the adopted objects')?.fields.at;
      expect(cachedAt).toEqual(expect.any(Number));
      for (const n of names) expect(a.started(n)?.fields.at).toBeGreaterThanOrEqual(cachedAt as number);
      expect(a.fake.requestCount('get', builtins.Deployment)).toBe(gets);
    } finally {
      stop.abort();
    }
  });

  it('reconciles a policy moved here while its caches were still taking in the fenced shard', async () => {
    const stop = new AbortController();
    const counter = reconcileCounter();
    try {
      // Its gateways are elsewhere: nothing but the policy's own events enqueues it.
      await using a = await adopterOf('x', stop, counter.metrics);
      // The gateways' list of the fenced shard is slow: the caches do not hold it for a while.
      a.fake.delay(20_000, { verbs: ['list'], resource: builtins.Deployment });
      const before = counter.count('egressgatewaypolicy');
      a.fencing.fence(['d']);
      // The policies arrive (not adopted yet: their reconciles skip them)...
      await waitFor(
        'the fenced shard’s policies cached and skipped',
        () =>
          a.controller.clients.policies.list().length === names.length &&
          counter.count('egressgatewaypolicy') >= before + names.length,
        { timeoutMs: 30_000 },
      );
      expect(names.filter((n) => a.started(n))).toEqual([]);
      // ...and the sharder moves them here before the caches hold the fenced shard.
      for (const n of names)
        await a.kube.api.patch(
          { resource: EgressGatewayPolicyResource, name: n, namespace: 'shop' },
          { metadata: { labels: { [L.shard]: 'me', [L.standby]: 'x' } } },
          { type: 'merge' },
        );
      await waitFor(
        'every moved policy reconciled by its new owner',
        () => names.every((n) => a.started(n)),
        {
          timeoutMs: 30_000,
        },
      );
    } finally {
      stop.abort();
    }
  });

  it('reconciles a policy moved here after the fence of its adopted shard lapsed', async () => {
    const stop = new AbortController();
    const counter = reconcileCounter();
    try {
      await using a = await adopterOf('d', stop, counter.metrics);
      a.fencing.fence(['d']);
      await waitFor('every adopted policy reconciled', () => names.every((n) => a.started(n)), {
        timeoutMs: 30_000,
      });
      // The fence ends by the clock, the fenced list unchanged (the evictor's renewal not seen yet).
      a.fencing.lapse('d');
      const before = counter.count('egressgatewaypolicy');
      const starts = () => a.logger.records.filter((r) => r.message === 'reconcile started').length;
      const started = starts();
      // A spec change of p0 now is skipped (no longer adopted)...
      await a.kube.api.patch(
        { resource: EgressGatewayPolicyResource, name: 'p0', namespace: 'shop' },
        { spec: { gateway: { replicas: 2 } } },
        { type: 'merge' },
      );
      await waitFor('the changed policy skipped', () => counter.count('egressgatewaypolicy') > before, {
        timeoutMs: 30_000,
      });
      expect(starts()).toBe(started);
      // ...and the sharder then moves it here: its reconcile runs.
      await a.kube.api.patch(
        { resource: EgressGatewayPolicyResource, name: 'p0', namespace: 'shop' },
        { metadata: { labels: { [L.shard]: 'me', [L.standby]: 'x' } } },
        { type: 'merge' },
      );
      await waitFor('the moved policy reconciled by its new owner', () => starts() > started, {
        timeoutMs: 30_000,
      });
    } finally {
      stop.abort();
    }
  });
});
