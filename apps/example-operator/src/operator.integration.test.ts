/**
 * The operator as users run it: the deploy base applied with kubectl to a plane that runs
 * workloads (kube-controller-manager, kube-scheduler, kwok nodes), and operator processes started
 * with in-cluster configuration for the ServiceAccount the manifests create — so they have exactly
 * the RBAC the manifests grant.
 */

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  builtins,
  createKubeClient,
  ignoreNotFound,
  isForbidden,
  type KubeClient,
  noopLogger,
} from '@kubeloom/kube';
import {
  type ControlPlane,
  findBinary,
  type InClusterEnv,
  startControlPlane,
  waitFor,
} from '@kubeloom/testing';
import type { V1Deployment, V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OperatorProcess, startOperatorProcess } from '../scripts/replica.ts';
import {
  expectAllocationInvariants,
  getGateway,
  getPolicy,
  policy,
  pool,
  type ScenarioCluster,
  waitForCondition,
} from '../test/scenarios.ts';
import {
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from './generated/egress.kubeloom.dev/v1alpha1/index.ts';

const DEPLOY = fileURLToPath(new URL('../deploy/', import.meta.url));
const SYSTEM = 'kubeloom-egress-system';
const SA = 'kubeloom-egress-operator';
const LEASE = 'kubeloom-egress-operator';

let plane: ControlPlane;
let admin: KubeClient;
let cluster: ScenarioCluster;
const processes: OperatorProcess[] = [];

function kubectl(...args: string[]): string {
  const r = spawnSync(findBinary('kubectl'), ['--kubeconfig', plane.kubeconfigPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20, // the apiserver's /metrics is several MiB
  });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

async function startReplica(name: string, pod?: InClusterEnv): Promise<OperatorProcess> {
  const env = pod ?? (await plane.inClusterEnv(SYSTEM, SA));
  const p = startOperatorProcess({
    name,
    env: { ...env.env, KUBELOOM_SERVICE_ACCOUNT_DIR: env.serviceAccountDir, POD_NAMESPACE: SYSTEM },
    args: ['--leader-elect'],
  });
  processes.push(p);
  return p;
}

async function leaseHolder(): Promise<string | undefined> {
  const lease = (await ignoreNotFound(
    admin.api.get({ resource: builtins.Lease, name: LEASE, namespace: SYSTEM }),
  )) as V1Lease | undefined;
  return lease?.spec?.holderIdentity ?? undefined;
}

/** The replica named in the Lease (identities are `<POD_NAME>_<uuid>`). */
async function leader(): Promise<OperatorProcess> {
  return waitFor(
    'a leader among the running replicas',
    async () => {
      const holder = await leaseHolder();
      return processes.find(
        (p) => p.child.exitCode === null && p.child.signalCode === null && holder?.startsWith(`${p.name}_`),
      );
    },
    { timeoutMs: 90_000 },
  );
}

function scrape(port: number, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        rejectUnauthorized: false,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject).end();
  });
}

beforeAll(async () => {
  plane = await startControlPlane({ workloads: { nodes: 2 } });
  admin = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  kubectl('apply', '-k', DEPLOY);
  // Served only once established: the apiserver answers 429 "storage is (re)initializing" before.
  kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=120s',
    'crd/ipampools.egress.kubeloom.dev',
    'crd/egressgatewaypolicies.egress.kubeloom.dev',
  );
  kubectl('create', 'namespace', 'shop');
  cluster = { kube: admin, operatorClient: () => admin, namespace: 'shop', prefix: 'e2e' };
}, 180_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p[Symbol.asyncDispose]()));
  await admin?.[Symbol.asyncDispose]();
  await plane?.[Symbol.asyncDispose]();
});

describe('the egress operator on a cluster that runs workloads', () => {
  it('applies the deploy base: every object accepted, the operator Deployment Available on simulated nodes', async () => {
    const d = await waitFor(
      'operator Deployment available',
      async () => {
        const dep = (await admin.api.get({
          resource: builtins.Deployment,
          name: SA,
          namespace: SYSTEM,
        })) as V1Deployment;
        return (dep.status?.availableReplicas ?? 0) >= 2 ? dep : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(d.spec?.template.spec?.containers[0]?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(
      kubectl('get', 'pdb,service,serviceaccount', '-n', SYSTEM, '-o', 'name')
        .split('\n')
        .filter(Boolean)
        .sort(),
    ).toEqual([
      'poddisruptionbudget.policy/kubeloom-egress-operator',
      'service/kubeloom-egress-operator-metrics',
      'serviceaccount/default',
      `serviceaccount/${SA}`,
    ]);
  });

  it('has exactly the RBAC the manifests grant: verbs it does not need are refused', async () => {
    const kube = createKubeClient({
      kubeConfig: await plane.serviceAccountKubeConfig(SYSTEM, SA),
      logger: noopLogger,
    });
    try {
      // granted (retried while the new CRD's storage initializes: 429)
      await waitFor('policies listable as the operator', () =>
        kube.api.list(EgressGatewayPolicyResource, {}),
      );
      // One at a time: a request started before its rejection is awaited would be unhandled.
      const refused = [
        () => kube.api.list(builtins.Secret, { namespace: SYSTEM }),
        () => kube.api.delete({ resource: builtins.Deployment, name: 'anything', namespace: 'shop' }),
        () => kube.api.delete({ resource: IPAMPoolResource, name: 'anything' }),
        () => kube.api.create(builtins.Lease, { metadata: { name: 'x', namespace: 'shop' } }),
      ];
      for (const request of refused) await expect(request()).rejects.toSatisfy(isForbidden);
    } finally {
      await kube[Symbol.asyncDispose]();
    }
  });

  it('two replicas converge policies with real Deployments, ReplicaSets and Pods (I1, I10, I11)', async () => {
    await startReplica('replica-a');
    await startReplica('replica-b');
    await leader();
    await admin.api.create(
      IPAMPoolResource,
      pool('corp', { cidrs: ['192.0.2.16/29'], excludeIPs: ['192.0.2.17'] }),
    );
    for (const n of ['payments', 'orders', 'search'])
      await admin.api.create(
        EgressGatewayPolicyResource,
        policy('shop', n, { ipamPoolRef: { name: 'corp' } }),
      );
    for (const n of ['payments', 'orders', 'search']) {
      const p = await waitForCondition(cluster, n, { type: 'Ready', status: 'True' });
      expect(p.status?.readyReplicas).toBeGreaterThanOrEqual(1);
    }
    expect((await getPolicy(cluster, 'payments'))?.status?.egressIPs).toEqual(['192.0.2.18']);
    await expectAllocationInvariants(cluster, ['corp']);
    // I10 through the real scheduler and controllers: no node takes pods, the gateway's pod goes → not Ready.
    kubectl('cordon', ...plane.nodes);
    kubectl('delete', 'pods', '-n', 'shop', '-l', 'egress.kubeloom.dev/policy=search', '--wait=false');
    await waitForCondition(cluster, 'search', {
      type: 'Ready',
      status: 'False',
      reason: 'GatewayUnavailable',
    });
    kubectl('uncordon', ...plane.nodes);
    await waitForCondition(cluster, 'search', { type: 'Ready', status: 'True' });
  });

  it('renews its Lease at the leader-election priority level (deploy/flowschema.yaml)', async () => {
    // The replicas of the test above hold and renew the Lease as the manifests' ServiceAccount.
    const dispatched = await waitFor(
      'Lease requests dispatched under the operator’s FlowSchema',
      () => {
        const n = dispatchedRequests(kubectl('get', '--raw', '/metrics'), 'kubeloom-egress-operator-leases');
        return n.get('leader-election') ? n : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(dispatched.get('leader-election')).toBeGreaterThan(0);
    // The priority level it names exists (a dangling schema's requests would fall to the catch-all).
    expect(
      kubectl(
        'get',
        'flowschema',
        'kubeloom-egress-operator-leases',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Dangling")].status}',
      ),
    ).toBe('False');
  });

  it('serves metrics over HTTPS to authenticated, authorized scrapers only', async () => {
    const port = await (await leader()).port('serving metrics');
    expect((await scrape(port)).status).toBe(401);
    expect((await scrape(port, 'not-a-token')).status).toBe(401);
    kubectl('create', 'serviceaccount', 'scraper', '-n', SYSTEM);
    const scraper = (await plane.inClusterEnv(SYSTEM, 'scraper')).token;
    expect((await scrape(port, scraper)).status).toBe(403);
    kubectl(
      'create',
      'clusterrolebinding',
      'scraper',
      '--clusterrole=kubeloom-egress-operator-metrics-reader',
      `--serviceaccount=${SYSTEM}:scraper`,
    );
    const ok = await waitFor('an authorized scrape', async () => {
      const r = await scrape(port, scraper);
      return r.status === 200 ? r : undefined;
    });
    for (const name of [
      'workqueue_adds_total{name="egressgatewaypolicy",controller="egressgatewaypolicy"}',
      'controller_runtime_reconcile_total{controller="egressgatewaypolicy",result="success"}',
      'rest_client_requests_total{code="201",method="POST"',
      'leader_election_master_status{name="kubeloom-egress-operator"} 1',
      'egress_pool_free_addresses{pool="corp"} 2',
    ])
      expect(ok.body).toContain(name);
  });

  it("removes a deleted policy's gateway through the garbage collector and returns its address (I5, I8)", async () => {
    const orders = await getPolicy(cluster, 'orders');
    const ip = orders?.status?.egressIPs?.[0];
    await admin.api.delete(
      { resource: EgressGatewayPolicyResource, name: 'orders', namespace: 'shop' },
      {
        propagationPolicy: 'Foreground',
      },
    );
    await waitFor('orders gone', async () => (await getPolicy(cluster, 'orders')) === undefined, {
      timeoutMs: 60_000,
    });
    expect(await getGateway(cluster, 'orders')).toBeUndefined(); // foreground: dependents first
    await admin.api.delete({ resource: EgressGatewayPolicyResource, name: 'payments', namespace: 'shop' }); // background
    await waitFor(
      'payments gateway collected',
      async () => (await getGateway(cluster, 'payments')) === undefined,
      { timeoutMs: 60_000 },
    );
    const corp = await waitFor('addresses returned', async () => {
      const c = (await admin.api.get({ resource: IPAMPoolResource, name: 'corp' })) as IPAMPool;
      return c.status?.allocated === 1 ? c : undefined;
    });
    expect(corp.status?.allocations?.map((a) => a.ip)).not.toContain(ip);
  });

  it('hands over when the leader is killed, under policy churn, never allocating an address twice (I14)', async () => {
    await admin.api.create(IPAMPoolResource, pool('churn', { cidrs: ['198.51.100.0/28'] })); // 14 addresses
    for (let round = 0; round < 3; round++) {
      const old = await leader();
      const creating = Array.from({ length: 4 }, (_, i) =>
        admin.api.create(
          EgressGatewayPolicyResource,
          policy('shop', `churn-${round}-${i}`, { ipamPoolRef: { name: 'churn' } }),
        ),
      );
      old.child.kill('SIGKILL');
      await old.exited;
      await Promise.all(creating);
      if (round > 0)
        await admin.api.delete({
          resource: EgressGatewayPolicyResource,
          name: `churn-${round - 1}-0`,
          namespace: 'shop',
        });
      await startReplica(`replica-${round}-new`);
      const next = await leader();
      expect(next.name).not.toBe(old.name);
    }
    for (let round = 0; round < 3; round++)
      for (let i = round < 2 ? 1 : 0; i < 4; i++)
        await waitForCondition(cluster, `churn-${round}-${i}`, { type: 'IPAllocated', status: 'True' });
    await expectAllocationInvariants(cluster, ['corp', 'churn']);
  });

  it('picks up a rotated ServiceAccount token without a restart', async () => {
    const pod = await plane.inClusterEnv(SYSTEM, SA);
    writeFileSync(path.join(pod.serviceAccountDir, 'token'), 'revoked-token');
    const p = startOperatorProcess({
      name: 'rotating',
      env: { ...pod.env, KUBELOOM_SERVICE_ACCOUNT_DIR: pod.serviceAccountDir, POD_NAMESPACE: SYSTEM },
      args: ['--metrics-bind-address=0', '--leader-elect'],
    });
    processes.push(p);
    await p.waitForLog(
      'an informer refused with 401',
      (r) =>
        r.msg === 'list/watch failed; retrying' && (r.err as { code?: number } | undefined)?.code === 401,
      60_000,
    );
    expect(p.logs.some((r) => r.msg === 'caches synced')).toBe(false);
    writeFileSync(path.join(pod.serviceAccountDir, 'token'), pod.token); // the kubelet rotating it
    await p.waitForLog('caches synced after the rotation', (r) => r.msg === 'caches synced', 120_000);
  });

  it('stops on SIGTERM: workers finish, the Lease is released, exit 0', async () => {
    const l = await leader();
    l.child.kill('SIGTERM');
    expect(await l.exited).toEqual({ code: 0, signal: null });
    // Released: the holder is cleared, or already a successor.
    const holder = await leaseHolder();
    expect(holder === undefined || holder === '' || !holder.startsWith(`${l.name}_`)).toBe(true);
  });
});

/** `apiserver_flowcontrol_dispatched_requests_total` of one FlowSchema, summed per priority level. */
function dispatchedRequests(metrics: string, flowSchema: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_flowcontrol_dispatched_requests_total{')) continue;
    if (!line.includes(`flow_schema="${flowSchema}"`)) continue;
    const level = /priority_level="([^"]*)"/.exec(line)?.[1] ?? '';
    out.set(level, (out.get(level) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}
