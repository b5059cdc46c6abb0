/**
 * A sharded egress operator on a real plane, for the sharding proof (`sharding.integration.test.ts`)
 * and its benchmark (`bench/sharding.bench.ts`): the deploy base applied with kubectl, operator
 * processes started as Pods of the manifests' ServiceAccount with `--shard-ring`, and what the
 * proof reads: where every policy and gateway sits (a live list), what each replica caches (its
 * `egress_cached_objects` gauge), the reconcile start/end records of every process, and an audit
 * of the pools that fails on any address held twice. With `SHARD_CLUSTER_LOG_DIR=<dir>` every
 * replica's log (debug level, one JSON record a line) is written to `<dir>/<replica>.jsonl` when
 * the cluster is disposed, for a post-mortem of a failed run.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type HashRing, hashRing, shardLabels } from '@kubeloom/controllers';
import { createClient } from '@kubeloom/kclient';
import {
  builtins,
  ConnectionError,
  createKubeClient,
  isAlreadyExists,
  isTimeout,
  isTooManyRequests,
  type KubeClient,
  noopLogger,
  toApiError,
} from '@kubeloom/kube';
import { type ControlPlane, findBinary, startControlPlane, waitFor } from '@kubeloom/testing';
import type { V1Deployment } from '@kubernetes/client-node';
import { type OperatorProcess, startOperatorProcess } from '../scripts/replica.ts';
import { GATEWAY_SELECTOR } from '../src/controller/clients.ts';
import { findCondition } from '../src/domain/conditions.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  IPAMPoolResource,
} from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import type { ReconcileRecord } from './shard-invariants.ts';

const DEPLOY = fileURLToPath(new URL('../deploy/', import.meta.url));
const SYSTEM = 'kubeloom-egress-system';
const SA = 'kubeloom-egress-operator';
/** The ring every replica joins. */
const RING = 'egress';
const LABELS = shardLabels(RING);
const TYPE_META = { apiVersion: 'egress.kubeloom.dev/v1alpha1' };

/** Where policies and gateways stand, by a live list. */
export interface Placement {
  /** Shard label per policy key (`''` when unassigned). */
  readonly owner: ReadonlyMap<string, string>;
  /** Policies per shard label. */
  readonly spread: ReadonlyMap<string, number>;
  /** Gateway Deployments per shard label. */
  readonly gateways: ReadonlyMap<string, number>;
  readonly policies: readonly EgressGatewayPolicy[];
  readonly deployments: readonly V1Deployment[];
}

/** A sharded operator deployment on its own plane. */
export interface ShardCluster extends AsyncDisposable {
  readonly plane: ControlPlane;
  readonly admin: KubeClient;
  /** The namespace of the policies. */
  readonly namespace: string;
  /** Running (and killed) replicas by name. */
  readonly replicas: ReadonlyMap<string, OperatorProcess>;
  /** Starts a replica (`POD_NAME` = its shard identity) and waits until it joined the ring. */
  start(name: string): Promise<OperatorProcess>;
  /** SIGKILL: no release of its Lease, no clean stop; resolves once it exited. */
  kill(name: string): Promise<void>;
  /** SIGTERM: reconciles finish, the Lease is released; resolves once it exited. */
  stop(name: string): Promise<void>;
  /** Creates `count` policies `<prefix>-<i>` (1 address each) spread round-robin over the pools. */
  createPolicies(count: number, prefix?: string): Promise<string[]>;
  /** The live placement of policies and gateways. */
  placement(): Promise<Placement>;
  /**
   * The placement once every policy and its gateway sit on the shard the ring of `members` gives
   * the policy, none is draining, every policy holds its address, and each member's cache holds
   * exactly its share; otherwise throws what is missing (for `waitFor`). Checked first against the
   * harness's own watch caches (a poll costs no list of thousands of objects, which on a small
   * machine would compete with the operators for the apiserver), then confirmed by a live list.
   */
  converged(members: readonly string[]): Promise<Placement>;
  /**
   * What keeps the ring of `members` from converging, all of it (where `converged` throws the first
   * problem only): misplaced policies counted by where they are and where they belong, draining
   * ones, those without an address, each member's cache against its share, and every Lease. For
   * a post-mortem of a convergence that timed out.
   */
  diagnose(members: readonly string[]): Promise<string>;
  /** What `name` caches, from its `egress_cached_objects` gauge. */
  cached(name: string): Promise<{ policies: number; deployments: number; pools: number }>;
  /** Every reconcile record of every replica so far; a killed replica's open ones end at its death. */
  reconciles(): ReconcileRecord[];
  /** The kube-apiserver's own `/metrics` (Prometheus text), e.g. its requests per resource and verb. */
  apiServerMetrics(): string;
}

/** Options of {@link startShardCluster}. */
export interface ShardClusterOptions {
  /** IPAMPools `10.<i>.0.0/20` (4094 addresses each). Default 4. */
  readonly pools?: number;
  /** Operator flags beside `--shard-ring` (and `--concurrency=4`, unless they set it). */
  readonly args?: readonly string[];
  /** Extra environment of every operator process (e.g. `NODE_OPTIONS` for a CPU profile). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Starts a plane (no workloads: gateways need not run for sharding), applies `deploy/`, creates the pools. */
export async function startShardCluster(options: ShardClusterOptions = {}): Promise<ShardCluster> {
  const plane = await startControlPlane();
  const admin = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  const kubectl = (...args: string[]) => {
    const r = spawnSync(findBinary('kubectl'), ['--kubeconfig', plane.kubeconfigPath, ...args], {
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  };
  // `--concurrency=4` unless `args` sets it (a flag given twice would leave the reader guessing).
  const defaultArgs = (options.args ?? []).some((a) => a.startsWith('--concurrency'))
    ? []
    : ['--concurrency=4'];
  const replicas = new Map<string, OperatorProcess>();
  const deaths = new Map<string, number>();
  const namespace = 'tenants';
  const pools = options.pools ?? 4;
  // The harness's watch caches of policies and gateways, what `converged` polls (stopped with `admin`).
  const watched = {
    policies: createClient<EgressGatewayPolicy>(admin, EgressGatewayPolicyResource, { namespace }),
    gateways: createClient<V1Deployment>(admin, builtins.Deployment, {
      namespace,
      labelSelector: GATEWAY_SELECTOR,
    }),
  };
  try {
    kubectl('apply', '-k', DEPLOY);
    kubectl(
      'wait',
      '--for=condition=Established',
      '--timeout=120s',
      'crd/ipampools.egress.kubeloom.dev',
      'crd/egressgatewaypolicies.egress.kubeloom.dev',
    );
    await admin.api.create(builtins.Namespace, { metadata: { name: namespace } });
    for (let p = 0; p < pools; p++)
      await waitFor(`pool-${p} created`, () =>
        admin.api.create(IPAMPoolResource, {
          ...TYPE_META,
          kind: 'IPAMPool',
          metadata: { name: `pool-${p}` },
          spec: { cidrs: [`10.${p}.0.0/20`] },
        }),
      );
    // Runs until `admin` is disposed.
    if (!(await admin.runAndWait(new AbortController().signal)))
      throw new Error('the harness caches of policies and gateways did not sync');
  } catch (error) {
    await admin[Symbol.asyncDispose]();
    await plane[Symbol.asyncDispose]();
    throw error;
  }

  const scrape = async (name: string) => {
    const p = replicas.get(name);
    if (!p) throw new Error(`no replica ${name}`);
    const port = await p.port('serving metrics');
    // Bounded: a replica whose event loop is stuck must not hang the caller (e.g. a post-mortem).
    return (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  };
  const gauge = (text: string, resource: string) => {
    const m = new RegExp(`^egress_cached_objects\\{resource="${resource}"\\} (\\d+)`, 'm').exec(text);
    if (!m) throw new Error(`no egress_cached_objects{resource="${resource}"} in the scrape`);
    return Number(m[1]);
  };

  const placement = async (): Promise<Placement> => {
    const policies = (await admin.api.list(EgressGatewayPolicyResource, { namespace }))
      .items as EgressGatewayPolicy[];
    const gateways = (
      await admin.api.list(builtins.Deployment, { namespace, labelSelector: GATEWAY_SELECTOR })
    ).items as V1Deployment[];
    return placementOf(policies, gateways);
  };
  const cachedPlacement = (): Placement => placementOf(watched.policies.list(), watched.gateways.list());
  const placementOf = (
    policies: readonly EgressGatewayPolicy[],
    gateways: readonly V1Deployment[],
  ): Placement => {
    const owner = new Map<string, string>();
    const spread = new Map<string, number>();
    for (const p of policies) {
      const shard = p.metadata?.labels?.[LABELS.shard] ?? '';
      owner.set(`${namespace}/${p.metadata?.name}`, shard);
      spread.set(shard, (spread.get(shard) ?? 0) + 1);
    }
    const perShard = new Map<string, number>();
    for (const d of gateways) {
      const shard = d.metadata?.labels?.[LABELS.shard] ?? '';
      perShard.set(shard, (perShard.get(shard) ?? 0) + 1);
    }
    return { owner, spread, gateways: perShard, policies, deployments: gateways };
  };

  /** What keeps one policy from being converged on `ring`, each in words (none: it is). */
  const policyProblems = (pol: EgressGatewayPolicy, ring: HashRing): string[] => {
    const key = `${namespace}/${pol.metadata?.name}`;
    const labels = pol.metadata?.labels ?? {};
    const on = labels[LABELS.shard] || 'no shard';
    const problems: string[] = [];
    if (labels[LABELS.drain] !== undefined) problems.push(`draining on ${on}`);
    if (labels[LABELS.shard] !== ring.shardFor(key))
      problems.push(`on ${on}, belongs on ${ring.shardFor(key)}`);
    if (findCondition(pol.status?.conditions, 'IPAllocated')?.status !== 'True')
      problems.push('holds no address yet');
    return problems;
  };

  /** Throws what keeps `p` from being converged on the ring of `members` (see `converged`). */
  const check = async (p: Placement, members: readonly string[]): Promise<Placement> => {
    const ring = hashRing(members);
    const counts = JSON.stringify(Object.fromEntries(p.spread));
    const byUid = new Map(p.policies.map((x) => [x.metadata?.uid ?? '', x]));
    for (const pol of p.policies) {
      const [problem] = policyProblems(pol, ring);
      if (problem)
        throw new Error(`${namespace}/${pol.metadata?.name} ${problem}; policies per shard ${counts}`);
    }
    // Without a garbage collector a deleted policy's gateway stays: only live policies' count.
    let live = 0;
    for (const d of p.deployments) {
      const owner = byUid.get(d.metadata?.ownerReferences?.find((r) => r.controller)?.uid ?? '');
      if (!owner) continue;
      live++;
      const shard = owner.metadata?.labels?.[LABELS.shard];
      const labels = d.metadata?.labels ?? {};
      if (labels[LABELS.drain] !== undefined || labels[LABELS.shard] !== shard)
        throw new Error(
          `gateway ${d.metadata?.name} on ${labels[LABELS.shard] || 'no shard'}, its policy on ${shard}`,
        );
    }
    if (live !== p.policies.length) throw new Error(`${live} gateways for ${p.policies.length} policies`);
    for (const m of members) {
      const text = await scrape(m);
      const own = p.spread.get(m) ?? 0;
      const policies = gauge(text, 'egressgatewaypolicies');
      const deployments = gauge(text, 'deployments');
      if (policies !== own || deployments !== (p.gateways.get(m) ?? 0))
        throw new Error(`${m} caches ${policies} policies and ${deployments} gateways, owns ${own}`);
    }
    return p;
  };

  return {
    plane,
    admin,
    namespace,
    replicas,
    async start(name) {
      const pod = await plane.inClusterEnv(SYSTEM, SA);
      const p = startOperatorProcess({
        name,
        env: {
          ...pod.env,
          KUBELOOM_SERVICE_ACCOUNT_DIR: pod.serviceAccountDir,
          POD_NAMESPACE: SYSTEM,
          ...options.env,
        },
        args: [`--shard-ring=${RING}`, '--metrics-secure=false', ...defaultArgs, ...(options.args ?? [])],
      });
      replicas.set(name, p);
      await Promise.race([
        p.waitForLog('joined the ring', (r) => r.msg === 'joined the ring, starting workers', 120_000),
        p.exited.then((e) => {
          throw new Error(`${name} exited (${JSON.stringify(e)}) before joining: ${lastLines(p)}`);
        }),
      ]);
      return p;
    },
    async kill(name) {
      const p = replicas.get(name);
      if (!p) throw new Error(`no replica ${name}`);
      p.child.kill('SIGKILL');
      await p.exited;
      deaths.set(name, Date.now());
    },
    async stop(name) {
      const p = replicas.get(name);
      if (!p) throw new Error(`no replica ${name}`);
      await p[Symbol.asyncDispose]();
    },
    createPolicies: async (count, prefix = 'policy') => {
      const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
      for (let i = 0; i < names.length; i += 25)
        await Promise.all(
          names.slice(i, i + 25).map((name, j) =>
            createRetrying(() =>
              admin.api.create(EgressGatewayPolicyResource, {
                ...TYPE_META,
                kind: 'EgressGatewayPolicy',
                metadata: { name, namespace },
                spec: {
                  podSelector: { matchLabels: { app: name } },
                  ipamPoolRef: { name: `pool-${(i + j) % pools}` },
                  gateway: { replicas: 1 },
                },
              }),
            ),
          ),
        );
      return names;
    },
    placement,
    async converged(members) {
      await check(cachedPlacement(), members);
      return check(await placement(), members);
    },
    async diagnose(members) {
      const p = await placement();
      const ring = hashRing(members);
      const problems = new Map<string, number>();
      for (const pol of p.policies)
        for (const what of policyProblems(pol, ring)) problems.set(what, (problems.get(what) ?? 0) + 1);
      const lines = [
        `policies per shard ${JSON.stringify(Object.fromEntries(p.spread))}, live members ${members.join(', ')}`,
        ...[...problems].map(([what, n]) => `  ${n} policies ${what}`),
      ];
      for (const m of members) {
        const cached = await scrape(m)
          .then(
            (text) =>
              `${gauge(text, 'egressgatewaypolicies')} policies, ${gauge(text, 'deployments')} gateways`,
          )
          .catch((err: unknown) => `no scrape (${String(err)})`);
        lines.push(
          `  ${m} caches ${cached}; owns ${p.spread.get(m) ?? 0} policies, ${p.gateways.get(m) ?? 0} gateways`,
        );
      }
      lines.push(
        kubectl(
          'get',
          'leases',
          '-A',
          '-o',
          'custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,HOLDER:.spec.holderIdentity,RENEWED:.spec.renewTime,SECONDS:.spec.leaseDurationSeconds,TRANSITIONS:.spec.leaseTransitions',
        ).trimEnd(),
      );
      return lines.join('\n');
    },
    async cached(name) {
      const text = await scrape(name);
      return {
        policies: gauge(text, 'egressgatewaypolicies'),
        deployments: gauge(text, 'deployments'),
        pools: gauge(text, 'ipampools'),
      };
    },
    reconciles() {
      const out: ReconcileRecord[] = [];
      for (const [name, p] of replicas) {
        const open = new Map<string, number>();
        for (const r of p.logs) {
          if (r.msg === 'reconcile started') open.set(String(r.key), Number(r.at));
          else if (r.msg === 'reconcile finished') {
            const start = open.get(String(r.key));
            open.delete(String(r.key));
            if (start !== undefined)
              out.push({ shard: String(r.shard), key: String(r.key), start, end: Number(r.at) });
          }
        }
        const died = deaths.get(name);
        for (const [key, start] of open) out.push({ shard: name, key, start, end: died });
      }
      return out;
    },
    apiServerMetrics: () => kubectl('get', '--raw', '/metrics'),
    async [Symbol.asyncDispose]() {
      // SHARD_CLUSTER_LOG_DIR=<dir> keeps every replica's log (one JSON record a line) for a post-mortem.
      const logDir = process.env.SHARD_CLUSTER_LOG_DIR;
      if (logDir) {
        mkdirSync(logDir, { recursive: true });
        for (const [name, p] of replicas)
          writeFileSync(path.join(logDir, `${name}.jsonl`), p.logs.map((r) => JSON.stringify(r)).join('\n'));
      }
      await Promise.all([...replicas.values()].map((p) => p[Symbol.asyncDispose]()));
      await admin[Symbol.asyncDispose]();
      await plane[Symbol.asyncDispose]();
    },
  };
}

/**
 * Changes the policies' specs one after another, paced (about 20 changes a second, so the churn
 * does not starve the replicas' requests), until `signal` aborts; resolves with how many.
 */
export async function churnSpecs(
  cluster: ShardCluster,
  names: readonly string[],
  signal: AbortSignal,
): Promise<number> {
  let i = 0;
  while (!signal.aborted) {
    const name = names[(i * 7919) % names.length]!;
    i++;
    await cluster.admin.api
      .patch(
        { resource: EgressGatewayPolicyResource, name, namespace: cluster.namespace },
        { spec: { gateway: { replicas: 1 + (i % 2) } } },
        { type: 'merge', signal },
      )
      .catch(() => {});
    await delay(50, undefined, { signal }).catch(() => {});
  }
  return i;
}

function lastLines(p: OperatorProcess): string {
  return p.logs
    .slice(-5)
    .map((r) => JSON.stringify(r))
    .join('\n');
}

/**
 * Runs a create, again (up to 8 attempts, 0.5–4 s apart) while the apiserver answers that it is
 * overloaded: 429, a timeout, a dropped connection, or a 5xx such as "resource quota evaluation timed out", which a
 * saturated 2-core machine produces. AlreadyExists after a failed attempt means that attempt
 * landed after all.
 */
async function createRetrying(create: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create();
      return;
    } catch (err) {
      if (attempt > 1 && isAlreadyExists(err)) return;
      const code = toApiError(err)?.code ?? 0;
      const overloaded =
        err instanceof ConnectionError || isTooManyRequests(err) || isTimeout(err) || code >= 500;
      if (!overloaded || attempt >= 8) throw err;
      await delay(Math.min(4000, 500 * 2 ** (attempt - 1)));
    }
  }
}
