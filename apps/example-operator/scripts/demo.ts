/**
 * `pnpm demo`: the egress-gateway operator end to end.
 *
 * Without `$KUBECONFIG` it starts a local plane that runs workloads (etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler, two kwok nodes), applies the deploy base with kubectl
 * and runs two operator replicas as the manifests' ServiceAccount. With `$KUBECONFIG` it installs
 * the CRDs on that cluster and runs the replicas here with your credentials. Then: a pool and
 * three policies converge, one policy is deleted and its address returns to the pool, the leader
 * is killed and another replica takes over. Everything it made is removed, also on Ctrl-C.
 */

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  builtins,
  createKubeClient,
  ignoreNotFound,
  type KubeClient,
  type KubeObject,
  noopLogger,
} from '@kubeloom/kube';
import { type ControlPlane, findBinary, startControlPlane, waitFor } from '@kubeloom/testing';
import type { V1Lease, V1PodList } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { findCondition } from '../src/domain/conditions.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
  IPAMPoolResource,
} from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { type OperatorProcess, startOperatorProcess } from './replica.ts';

const stop = new AbortController();
process.once('SIGINT', () => stop.abort(new Error('interrupted')));
process.once('SIGTERM', () => stop.abort(new Error('terminated')));

const DEPLOY = fileURLToPath(new URL('../deploy/', import.meta.url));
const NS = 'egress-demo';
const POOL = 'demo-pool';
const say = (line: string) => console.log(line);
const bounded = { timeoutMs: 120_000, signal: stop.signal };

let plane: ControlPlane | undefined;
let kube: KubeClient;
/** The client to clean up with (set once `kube` is). */
let created: KubeClient | undefined;
let leaseNamespace: string;
const replicas: OperatorProcess[] = [];
const remote = !!process.env.KUBECONFIG;

async function startReplica(name: string): Promise<OperatorProcess> {
  const args = ['--leader-elect', '--metrics-secure=false', '--log-level=info'];
  let env: Record<string, string>;
  if (plane) {
    const pod = await plane.inClusterEnv('kubeloom-egress-system', 'kubeloom-egress-operator');
    env = {
      ...pod.env,
      KUBELOOM_SERVICE_ACCOUNT_DIR: pod.serviceAccountDir,
      POD_NAMESPACE: 'kubeloom-egress-system',
    };
  } else {
    env = { KUBECONFIG: process.env.KUBECONFIG ?? '' };
    args.push(`--leader-election-namespace=${NS}`);
  }
  const replica = startOperatorProcess({ name, env, args });
  replicas.push(replica);
  return replica;
}

/** The running replica that holds the Lease; with `except`, one whose holder identity differs from it. */
async function leader(except?: string): Promise<{ replica: OperatorProcess; holder: string }> {
  const what = except === undefined ? 'a leader' : `a leader other than ${except}`;
  // Fails at once, with what the replicas printed, when none of them is still running.
  const allExited = new AbortController();
  try {
    return await waitFor(
      what,
      async () => {
        const live = replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
        if (live.length === 0)
          allExited.abort(new Error(`waiting for ${what}, but every operator replica has exited`));
        const lease = (await ignoreNotFound(
          kube.api.get({
            resource: builtins.Lease,
            name: 'kubeloom-egress-operator',
            namespace: leaseNamespace,
          }),
        )) as V1Lease | undefined;
        const holder = lease?.spec?.holderIdentity ?? '';
        if (except !== undefined && holder === except) return undefined;
        const replica = live.find((r) => holder.startsWith(`${r.name}_`));
        return replica ? { replica, holder } : undefined;
      },
      { ...bounded, signal: AbortSignal.any([stop.signal, allExited.signal]) },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${replicaLogTails()}`, { cause: error });
  }
}

/** The last lines each replica logged, for a failure message. */
function replicaLogTails(): string {
  return replicas
    .map((r) => {
      const exit = r.child.exitCode ?? r.child.signalCode ?? 'running';
      const tail = r.logs.slice(-15).map((line) => `    ${JSON.stringify(line)}`);
      return [`  ${r.name} (${exit}):`, ...tail].join('\n');
    })
    .join('\n');
}

async function table(): Promise<void> {
  const policies = (await kube.api.list(EgressGatewayPolicyResource, { namespace: NS }))
    .items as EgressGatewayPolicy[];
  const pods = (await kube.api.list(builtins.Pod, { namespace: NS })) as V1PodList;
  const rows = policies.map((p) => {
    const name = p.metadata?.name ?? '';
    const running = pods.items.filter(
      (pod) =>
        pod.metadata?.labels?.['egress.kubeloom.dev/policy'] === name && pod.status?.phase === 'Running',
    ).length;
    return [
      name,
      p.spec.ipamPoolRef.name,
      (p.status?.egressIPs ?? []).join(',') || '-',
      findCondition(p.status?.conditions, 'Ready')?.status ?? '-',
      String(running),
    ];
  });
  const all = [['POLICY', 'POOL', 'EGRESS IPS', 'READY', 'GATEWAY PODS'], ...rows];
  const widths = all[0]?.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of all) say(`  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd());
  const pool = (await kube.api.get({ resource: IPAMPoolResource, name: POOL })) as IPAMPool;
  say(
    `  pool ${POOL}: capacity ${pool.status?.capacity}, allocated ${pool.status?.allocated}, free ${pool.status?.free}`,
  );
}

async function waitReady(names: string[]): Promise<void> {
  const seen = new Map<string, string>();
  await waitFor(
    'policies Ready',
    async () => {
      let ready = 0;
      for (const name of names) {
        const p = (await ignoreNotFound(
          kube.api.get({ resource: EgressGatewayPolicyResource, name, namespace: NS }),
        )) as EgressGatewayPolicy | undefined;
        const c = findCondition(p?.status?.conditions, 'Ready');
        const state = c ? `${c.status}/${c.reason}` : 'pending';
        if (seen.get(name) !== state)
          say(`  ${name}: Ready=${state}${c && c.status !== 'True' ? ` (${c.message})` : ''}`);
        seen.set(name, state);
        if (c?.status === 'True') ready++;
      }
      return ready === names.length;
    },
    bounded,
  );
}

/**
 * Removes what the demo made on a real cluster while the replicas still run (they release the
 * policies' finalizers); a throwaway plane is deleted whole instead.
 */
async function cleanUp(client: KubeClient): Promise<void> {
  const quiet = <T>(p: Promise<T>) => ignoreNotFound(p).catch(() => undefined);
  for (const n of ['web', 'api', 'batch', 'late'])
    await quiet(client.api.delete({ resource: EgressGatewayPolicyResource, name: n, namespace: NS }));
  await waitFor(
    'demo policies deleted',
    async () => {
      const left = await quiet(client.api.list(EgressGatewayPolicyResource, { namespace: NS }));
      return !left || left.items.length === 0;
    },
    { timeoutMs: 60_000 },
  ).catch(() => say('some policies are still finalizing; delete them with kubectl'));
  await quiet(client.api.delete({ resource: IPAMPoolResource, name: POOL }));
  await quiet(client.api.delete({ resource: builtins.Namespace, name: NS }));
}

const policy = (name: string, spec: Partial<EgressGatewayPolicy['spec']>): EgressGatewayPolicy => ({
  apiVersion: 'egress.kubeloom.dev/v1alpha1',
  kind: 'EgressGatewayPolicy',
  metadata: { name, namespace: NS },
  spec: {
    podSelector: { matchLabels: { app: name } },
    ipamPoolRef: { name: POOL },
    gateway: { replicas: 2 },
    ...spec,
  },
});

try {
  if (remote) {
    say(
      `using $KUBECONFIG (${process.env.KUBECONFIG}): installing the CRDs, running the replicas on this machine`,
    );
    kube = createKubeClient({ logger: noopLogger });
    created = kube;
    for (const file of [
      'egress.kubeloom.dev_ipampools.yaml',
      'egress.kubeloom.dev_egressgatewaypolicies.yaml',
    ]) {
      const crd = parseAllDocuments(
        readFileSync(`${DEPLOY}generated/${file}`, 'utf8'),
      )[0]?.toJS() as KubeObject;
      await kube.api.patch(
        { resource: builtins.CustomResourceDefinition, name: crd.metadata?.name ?? '' },
        crd,
        {
          type: 'apply',
          fieldManager: 'kubeloom-demo',
          force: true,
        },
      );
    }
    leaseNamespace = NS;
  } else {
    say('starting a local control plane that runs workloads (2 simulated nodes)…');
    const started = Date.now();
    plane = await startControlPlane({ workloads: { nodes: 2 }, signal: stop.signal });
    say(`control plane ${plane.version.gitVersion} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    say(`kubectl: kubectl --kubeconfig ${plane.kubeconfigPath} get egp,ipp -A`);
    kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    created = kube;
    const applied = spawnSync(
      findBinary('kubectl'),
      ['--kubeconfig', plane.kubeconfigPath, 'apply', '-k', DEPLOY],
      { encoding: 'utf8' },
    );
    if (applied.status !== 0) throw new Error(`kubectl apply -k failed: ${applied.stderr}`);
    say(`kubectl apply -k deploy: ${applied.stdout.trim().split('\n').length} objects`);
    await waitFor(
      'operator Deployment Available',
      async () => {
        const d = await kube.api.get({
          resource: builtins.Deployment,
          name: 'kubeloom-egress-operator',
          namespace: 'kubeloom-egress-system',
        });
        return ((d as { status?: { availableReplicas?: number } }).status?.availableReplicas ?? 0) >= 2;
      },
      bounded,
    );
    say('operator Deployment Available on the simulated nodes (2/2)');
    leaseNamespace = 'kubeloom-egress-system';
  }
  await kube.api.create(builtins.Namespace, { metadata: { name: NS } });
  await startReplica('replica-1');
  await startReplica('replica-2');
  say(`two operator replicas started; leader: ${(await leader()).replica.name}`);

  // Retried while a just-installed CRD is not served yet (404, then 429 while its storage initializes).
  await waitFor(
    'the pool created',
    () =>
      kube.api.create(IPAMPoolResource, {
        apiVersion: 'egress.kubeloom.dev/v1alpha1',
        kind: 'IPAMPool',
        metadata: { name: POOL },
        spec: { cidrs: ['192.0.2.0/29'], excludeIPs: ['192.0.2.1'] },
      }),
    bounded,
  );
  for (const p of [
    policy('web', {}),
    policy('api', { ipCount: 2 }),
    policy('batch', { requestedIPs: ['192.0.2.6'] }),
  ])
    await kube.api.create(EgressGatewayPolicyResource, p);
  say(
    'applied pool demo-pool (192.0.2.0/29, 192.0.2.1 excluded) and policies web, api (2 IPs), batch (192.0.2.6)',
  );
  await waitReady(['web', 'api', 'batch']);
  say('converged:');
  await table();

  await kube.api.delete({ resource: EgressGatewayPolicyResource, name: 'api', namespace: NS });
  await waitFor(
    'api released',
    async () =>
      ((await kube.api.get({ resource: IPAMPoolResource, name: POOL })) as IPAMPool).status?.allocated === 2,
    bounded,
  );
  say('deleted policy api: its addresses are back in the pool');
  await table();

  const old = await leader();
  const killedAt = Date.now();
  old.replica.child.kill('SIGKILL');
  // The Lease still names the killed replica until it expires: wait for the process to be gone
  // and for another holder, or the killed one would be reported as its own successor.
  await old.replica.exited;
  say(`killed the leader (${old.replica.name}); waiting for the hand-over…`);
  await startReplica('replica-3');
  const next = await leader(old.holder);
  say(`new leader: ${next.replica.name} after ${((Date.now() - killedAt) / 1000).toFixed(1)} s (lease 15 s)`);
  await kube.api.create(EgressGatewayPolicyResource, policy('late', {}));
  await waitReady(['late']);
  say('policy late converged under the new leader:');
  await table();
  say('demo complete');
} finally {
  stop.abort();
  if (remote && created) await cleanUp(created);
  await Promise.all(replicas.map((r) => r[Symbol.asyncDispose]()));
  await created?.[Symbol.asyncDispose]();
  await plane?.[Symbol.asyncDispose]();
  say(plane ? 'control plane stopped' : 'cleaned up');
}
