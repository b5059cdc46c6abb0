import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api, type V1Node } from '@kubernetes/client-node';
import { type FindBinaryOptions, findBinary } from './binaries.ts';
import type { CertificateAuthority } from './certs.ts';
import type { ControlPlaneOptions, ControlPlaneProcess } from './control-plane.ts';
import { get } from './internal/http.ts';
import { KWOK_STAGES } from './internal/kwok-stages.ts';
import {
  ControlPlaneStartError,
  isPortClash,
  kubeconfigYaml,
  mergeFlags,
  PortClashError,
  waitUntil,
} from './internal/launch.ts';
import { freePort } from './ports.ts';
import { type ManagedProcess, startProcess } from './process.ts';

/**
 * The plane that runs workloads ({@link ControlPlaneOptions.workloads}): kube-controller-manager,
 * kube-scheduler and kwok simulating Nodes.
 */
export interface WorkloadsOptions {
  /** How many simulated Nodes kwok manages (named `kwok-node-0`, `kwok-node-1`, ...). Default 1. */
  readonly nodes?: number;
  /** Extra kube-controller-manager flags, `--name=value`; a flag the harness sets is replaced. */
  readonly controllerManagerArgs?: readonly string[];
  /** Extra kube-scheduler flags, same rules. */
  readonly schedulerArgs?: readonly string[];
  /** Extra kwok flags, same rules. */
  readonly kwokArgs?: readonly string[];
}

/** The annotation by which kwok knows the Nodes it simulates. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** kwok's user, and the name of its ClusterRole and ClusterRoleBinding. */
const KWOK_USER = 'kubeloom:kwok';
/**
 * What kwok does as every kubelet at once: watch Nodes and Pods cluster-wide, write their status,
 * delete Pods, renew node Leases, record Events. (The kubelet's bootstrap role `system:node`
 * assumes the Node authorizer and cannot list Leases, which kwok's informer needs.)
 */
const KWOK_RULES = [
  { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['delete'] },
  { apiGroups: [''], resources: ['nodes/status', 'pods/status'], verbs: ['patch', 'update'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
];
/** Pod IPs; the apiserver's service range is 10.0.0.0/24, kwok's default pod range would overlap. */
const POD_CIDR = '10.244.0.0/16';

/** The binaries of the workloads plane, found before anything starts. */
export interface WorkloadsBinaries {
  readonly controllerManager: string;
  readonly scheduler: string;
  readonly kwok: string;
}

/**
 * Checks the workloads options and finds kube-controller-manager, kube-scheduler and kwok (see
 * `findBinary`), before anything starts.
 */
export function findWorkloadsBinaries(
  workloads: WorkloadsOptions,
  options: FindBinaryOptions,
): WorkloadsBinaries {
  nodeCount(workloads);
  return {
    controllerManager: findBinary('kube-controller-manager', options),
    scheduler: findBinary('kube-scheduler', options),
    kwok: findBinary('kwok', options),
  };
}

/** What {@link startWorkloads} needs from the lean plane already running. */
export interface WorkloadsContext {
  readonly binaries: WorkloadsBinaries;
  readonly options: WorkloadsOptions;
  /** The plane's temporary directory; everything is written below it. */
  readonly dir: string;
  readonly server: string;
  readonly ca: CertificateAuthority;
  readonly caFile: string;
  readonly serviceAccountKeyFile: string;
  /** An admin client, for the Nodes and kwok's role binding. */
  readonly admin: KubeConfig;
  readonly startTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** Receives each process as it starts, so the plane stops it whatever happens next. */
  readonly started: (proc: ManagedProcess) => void;
}

/** The processes and Nodes {@link startWorkloads} started. */
export interface Workloads {
  readonly controllerManager: ControlPlaneProcess;
  readonly scheduler: ControlPlaneProcess;
  readonly kwok: ControlPlaneProcess;
  readonly nodes: readonly string[];
}

function nodeCount(options: WorkloadsOptions): number {
  const n = options.nodes ?? 1;
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new TypeError(`workloads.nodes must be an integer from 1 to 100, got ${String(n)}`);
  }
  return n;
}

/** Writes a kubeconfig for a new client-certificate identity and returns its path. */
function identity(ctx: WorkloadsContext, user: string): string {
  const pair = ctx.ca.issue({ commonName: user, usage: 'client' });
  const kubeconfig = path.join(ctx.dir, `${user.replace(/^system:/, '').replaceAll(':', '-')}.kubeconfig`);
  writeFileSync(kubeconfig, kubeconfigYaml({ server: ctx.server, caPem: ctx.ca.certPem }, user, pair), {
    mode: 0o600,
  });
  return kubeconfig;
}

/** Writes a serving certificate for a component's loopback /healthz; returns [cert, key]. */
function servingCert(ctx: WorkloadsContext, name: string): [string, string] {
  const pair = ctx.ca.issue({ commonName: name, hosts: ['127.0.0.1', 'localhost'], usage: 'server' });
  const cert = path.join(ctx.dir, 'pki', `${name}.crt`);
  const key = path.join(ctx.dir, 'pki', `${name}.key`);
  writeFileSync(cert, pair.certPem);
  writeFileSync(key, pair.keyPem, { mode: 0o600 });
  return [cert, key];
}

function fakeNode(name: string): V1Node {
  return {
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubeloom.dev/simulated': 'kwok',
      },
    },
  };
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function healthz(proc: ManagedProcess, url: string, ctx: WorkloadsContext): Promise<void> {
  const tls = url.startsWith('https:') ? { ca: ctx.ca.certPem } : {};
  try {
    await waitUntil(
      proc,
      { description: `${proc.name} ${url} returned 200`, timeoutMs: ctx.startTimeoutMs, signal: ctx.signal },
      async () => {
        const res = await get(url, tls);
        return res.status === 200;
      },
    );
  } catch (err) {
    if (isPortClash(proc)) throw new PortClashError();
    throw err;
  }
}

/**
 * Starts kube-controller-manager, kube-scheduler and kwok against a running apiserver, creates the
 * simulated Nodes, and waits until every component's /healthz answers, every Node is Ready and
 * the controller-manager acts (the `default` ServiceAccount exists).
 */
export async function startWorkloads(ctx: WorkloadsContext): Promise<Workloads> {
  const { options } = ctx;
  const count = nodeCount(options);
  const [kcmPort, schedulerPort, kwokPort] = [await freePort(), await freePort(), await freePort()];

  // kube-controller-manager: its own identity, bound by the bootstrap RBAC to the upstream
  // system:kube-controller-manager role; each controller then runs as its own ServiceAccount
  // (system:controller:<name> roles), as in a kubeadm cluster.
  const kcmDir = path.join(ctx.dir, 'kube-controller-manager');
  mkdirSync(path.join(kcmDir, 'volume-plugins'), { recursive: true });
  const [kcmCert, kcmKey] = servingCert(ctx, 'kube-controller-manager');
  const kcmArgs = mergeFlags(
    {
      kubeconfig: identity(ctx, 'system:kube-controller-manager'),
      'bind-address': '127.0.0.1',
      'secure-port': String(kcmPort),
      'tls-cert-file': kcmCert,
      'tls-private-key-file': kcmKey,
      'cert-dir': kcmDir,
      'authentication-skip-lookup': 'true',
      'leader-elect': 'false',
      'use-service-account-credentials': 'true',
      'service-account-private-key-file': ctx.serviceAccountKeyFile,
      'root-ca-file': ctx.caFile,
      'cluster-name': 'kubeloom',
      // Without it the controller-manager creates /usr/libexec/kubernetes/... on the host.
      'flex-volume-plugin-dir': path.join(kcmDir, 'volume-plugins'),
    },
    options.controllerManagerArgs,
  );
  const controllerManager = startProcess(ctx.binaries.controllerManager, kcmArgs, {
    name: 'kube-controller-manager',
    logFile: path.join(ctx.dir, 'kube-controller-manager.log'),
  });
  ctx.started(controllerManager);

  // kube-scheduler: system:kube-scheduler, the bootstrap identity of the upstream scheduler role.
  const [schedulerCert, schedulerKey] = servingCert(ctx, 'kube-scheduler');
  const schedulerArgs = mergeFlags(
    {
      kubeconfig: identity(ctx, 'system:kube-scheduler'),
      'bind-address': '127.0.0.1',
      'secure-port': String(schedulerPort),
      'tls-cert-file': schedulerCert,
      'tls-private-key-file': schedulerKey,
      'authentication-skip-lookup': 'true',
      'leader-elect': 'false',
    },
    options.schedulerArgs,
  );
  const scheduler = startProcess(ctx.binaries.scheduler, schedulerArgs, {
    name: 'kube-scheduler',
    logFile: path.join(ctx.dir, 'kube-scheduler.log'),
  });
  ctx.started(scheduler);

  // kwok stands in for every kubelet: a ClusterRole with exactly what it does (KWOK_RULES).
  const rbac = ctx.admin.makeApiClient(RbacAuthorizationV1Api);
  const core = ctx.admin.makeApiClient(CoreV1Api);
  const nodes = Array.from({ length: count }, (_, i) => `kwok-node-${i}`);
  await rbac.createClusterRole({ body: { metadata: { name: KWOK_USER }, rules: KWOK_RULES } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: KWOK_USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: KWOK_USER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KWOK_USER }],
    },
  });
  await Promise.all(nodes.map((name) => core.createNode({ body: fakeNode(name) })));
  const kwokDir = path.join(ctx.dir, 'kwok');
  mkdirSync(kwokDir);
  const stages = path.join(kwokDir, 'stages.yaml');
  writeFileSync(stages, KWOK_STAGES);
  const kwokArgs = mergeFlags(
    {
      kubeconfig: identity(ctx, KWOK_USER),
      config: stages,
      'manage-nodes-with-annotation-selector': `${KWOK_NODE_ANNOTATION}=fake`,
      // kwok's default, 0, means no node Leases: Nodes would turn NotReady after ~50 s.
      'node-lease-duration-seconds': '40',
      cidr: POD_CIDR,
      'server-address': `127.0.0.1:${kwokPort}`,
    },
    options.kwokArgs,
  );
  // KWOK_WORKDIR keeps kwok from reading (or writing) ~/.kwok.
  const kwok = startProcess(ctx.binaries.kwok, kwokArgs, {
    name: 'kwok',
    logFile: path.join(ctx.dir, 'kwok.log'),
    env: {
      KWOK_WORKDIR: kwokDir,
    },
  });
  ctx.started(kwok);

  await Promise.all([
    healthz(controllerManager, `https://127.0.0.1:${kcmPort}/healthz`, ctx),
    healthz(scheduler, `https://127.0.0.1:${schedulerPort}/healthz`, ctx),
    healthz(kwok, `http://127.0.0.1:${kwokPort}/healthz`, ctx),
  ]);
  await Promise.all([
    waitUntil(
      kwok,
      {
        description: `all ${count} kwok Nodes to be Ready`,
        timeoutMs: ctx.startTimeoutMs,
        signal: ctx.signal,
      },
      async () => {
        const list = await core.listNode({ labelSelector: 'kubeloom.dev/simulated=kwok' });
        return list.items.filter(isReady).length >= count;
      },
    ),
    waitUntil(
      controllerManager,
      {
        description: 'the controller-manager to create the default ServiceAccount',
        timeoutMs: ctx.startTimeoutMs,
        signal: ctx.signal,
      },
      async () => {
        await core.readNamespacedServiceAccount({ namespace: 'default', name: 'default' });
        return true;
      },
    ),
  ]);
  if (scheduler.exited()) {
    throw new ControlPlaneStartError(
      `kube-scheduler exited (${scheduler.exitStatus()}). Last log lines (${scheduler.logFile}):\n${scheduler.logTail()}`,
    );
  }
  return {
    controllerManager: { pid: controllerManager.pid, ports: [kcmPort], logFile: controllerManager.logFile },
    scheduler: { pid: scheduler.pid, ports: [schedulerPort], logFile: scheduler.logFile },
    kwok: { pid: kwok.pid, ports: [kwokPort], logFile: kwok.logFile },
    nodes,
  };
}
