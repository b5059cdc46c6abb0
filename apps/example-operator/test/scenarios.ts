/**
 * The operator's scenarios, written once against any cluster: the fake (unit tests, with a
 * stand-in for the Deployment controller) and the real plane that runs workloads (integration
 * tests, where kube-controller-manager, kube-scheduler and kwok make gateways available).
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  builtins,
  ignoreNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1Deployment } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  createEgressController,
  type EgressController,
  type EgressControllerOptions,
  type PoolSummaryMode,
} from '../src/controller/egress-controller.ts';
import { FINALIZER } from '../src/controller/processors.ts';
import { findCondition } from '../src/domain/conditions.ts';
import { gatewayName } from '../src/domain/gateway.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';

/** The operator's CRDs, as `deploy/generated` holds them. */
export function operatorCrds(): KubeObject[] {
  const dir = new URL('../deploy/generated/', import.meta.url);
  return ['egress.kubeloom.dev_ipampools.yaml', 'egress.kubeloom.dev_egressgatewaypolicies.yaml'].flatMap(
    (f) =>
      parseAllDocuments(readFileSync(fileURLToPath(new URL(f, dir)), 'utf8')).map(
        (d) => d.toJS() as KubeObject,
      ),
  );
}

/** A cluster to run a scenario on. */
export interface ScenarioCluster {
  /** A client for the test's own reads and writes. */
  readonly kube: KubeClient;
  /** A fresh client for one operator instance (its own informers; closed by the scenario). */
  readonly operatorClient: () => KubeClient;
  /** A namespace for the scenario's policies. */
  readonly namespace: string;
  /** A unique prefix for cluster-scoped names (pools). */
  readonly prefix: string;
  /** What drives the operators' pool-summary pass (default: the controller's). */
  readonly poolSummary?: PoolSummaryMode | undefined;
}

/** A pool manifest. */
export function pool(name: string, spec: IPAMPool['spec']): IPAMPool {
  return { apiVersion: 'egress.kubeloom.dev/v1alpha1', kind: 'IPAMPool', metadata: { name }, spec };
}

/** A policy manifest. */
export function policy(
  namespace: string,
  name: string,
  spec: Partial<EgressGatewayPolicy['spec']> & { ipamPoolRef: { name: string } },
): EgressGatewayPolicy {
  return {
    apiVersion: 'egress.kubeloom.dev/v1alpha1',
    kind: 'EgressGatewayPolicy',
    metadata: { name, namespace },
    spec: { podSelector: { matchLabels: { app: name } }, gateway: { replicas: 1 }, ...spec },
  };
}

/** An operator instance on its own client: informers started, controller running. */
export interface RunningOperator extends AsyncDisposable {
  readonly controller: EgressController;
}

/** Starts an operator instance and waits until it reconciled what existed. */
export async function startOperator(
  cluster: ScenarioCluster,
  options: Pick<EgressControllerOptions, 'workers' | 'poolSummary' | 'rateLimiter'> = {},
): Promise<RunningOperator> {
  const kube = cluster.operatorClient();
  const controller = createEgressController(kube, {
    workers: options.workers ?? 2,
    poolSummary: options.poolSummary ?? cluster.poolSummary,
    rateLimiter: options.rateLimiter,
  });
  const stop = new AbortController();
  if (!(await kube.runAndWait(stop.signal))) throw new Error('operator informers did not sync');
  const running = controller.run(stop.signal);
  await kube.waitForCacheSync('operator', stop.signal, () => controller.hasSynced());
  return {
    controller,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      await controller[Symbol.asyncDispose]();
      await kube[Symbol.asyncDispose]();
    },
  };
}

const get = async <T extends KubeObject>(
  kube: KubeClient,
  ref: { resource: ResourceDescriptor; name: string; namespace?: string | undefined },
) => (await ignoreNotFound(kube.api.get(ref))) as T | undefined;

/** Reads a policy. */
export const getPolicy = (c: ScenarioCluster, name: string) =>
  get<EgressGatewayPolicy>(c.kube, { resource: EgressGatewayPolicyResource, name, namespace: c.namespace });
/** Reads a pool. */
export const getPool = (c: ScenarioCluster, name: string) =>
  get<IPAMPool>(c.kube, { resource: IPAMPoolResource, name });
/** Reads a gateway Deployment by its policy's name. */
export const getGateway = (c: ScenarioCluster, policyName: string) =>
  get<V1Deployment>(c.kube, {
    resource: builtins.Deployment,
    name: gatewayName(policyName),
    namespace: c.namespace,
  });

/** Waits until `name`'s condition `type` has `status` (and `reason`, when given); returns the policy. */
export function waitForCondition(
  c: ScenarioCluster,
  name: string,
  want: { type: string; status: string; reason?: string },
): Promise<EgressGatewayPolicy> {
  return waitFor(
    `policy ${name} ${want.type}=${want.status}${want.reason ? `/${want.reason}` : ''}`,
    async () => {
      const p = await getPolicy(c, name);
      const cond = findCondition(p?.status?.conditions, want.type);
      return cond?.status === want.status &&
        (!want.reason || cond.reason === want.reason) &&
        p?.status?.observedGeneration === p?.metadata?.generation
        ? p
        : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

/** I1–I3 over every pool and policy the scenario made: no address twice, in range, mirrored by uid. */
export async function expectAllocationInvariants(c: ScenarioCluster, pools: string[]): Promise<void> {
  const policies = (await c.kube.api.list(EgressGatewayPolicyResource, { namespace: c.namespace }))
    .items as EgressGatewayPolicy[];
  const seen = new Map<string, string>();
  for (const name of pools) {
    const p = await getPool(c, name);
    for (const a of p?.status?.allocations ?? []) {
      expect(seen.has(a.ip), `${a.ip} allocated twice`).toBe(false);
      seen.set(a.ip, a.owner.uid);
    }
    expect(p?.status?.allocated).toBe(p?.status?.allocations?.length ?? 0);
    expect(p?.status?.free).toBe((p?.status?.capacity ?? 0) - (p?.status?.allocated ?? 0));
  }
  for (const pol of policies)
    for (const ip of pol.status?.egressIPs ?? [])
      expect(seen.get(ip), `${ip} of ${pol.metadata?.name}`).toBe(pol.metadata?.uid);
}

export { FINALIZER };
