/**
 * The EgressGatewayPolicy controller: two queues (policies, pool summaries) fed by informer
 * handlers — or, for the pool summaries, by the derived pool-usage collection (krt) — and a
 * reconcile that is a thin sequence of the processors. Two phases, as every kubeloom controller:
 * {@link createEgressController} wires clients, indexes, collections, queues and handlers without
 * I/O; `run(signal)` waits for the caches and runs the workers until `signal` aborts.
 *
 * @module
 */

import {
  type ControllerMetrics,
  createQueue,
  extract,
  type Queue,
  type RateLimiter,
  type Reconciler,
  shardLabels,
} from '@kubeloom/controllers';
import type { Collection } from '@kubeloom/krt';
import { type KubeClient, type Logger, noopLogger, type ObjectKey } from '@kubeloom/kube';
import type { V1Deployment } from '@kubernetes/client-node';
import { findCondition } from '../domain/conditions.ts';
import { gatewayChanged } from '../domain/gateway.ts';
import { type OrphanCandidate, orphanCandidates, type PoolUsage, poolUsage } from '../domain/pool-summary.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { createOperatorClients, type OperatorClients } from './clients.ts';
import { poolUsageCollection } from './pool-usage.ts';
import { createPoolWriter } from './pool-writer.ts';
import {
  allocate,
  convergeGateway,
  ensureFinalizer,
  finalize,
  type ProcessorContext,
  summarizePool,
  writeStatus,
} from './processors.ts';
import { type ControllerShard, shardedParts } from './sharding.ts';

/**
 * How the pool-summary pass learns which pools to visit, and where the pool metrics come from:
 *
 * - `'krt'`: a derived collection (`poolUsageCollection`) keeps each pool's usage — counters,
 *   policies by pool, orphan candidates — and enqueues a pool only when its stored status is stale
 *   or it has orphan candidates. The metrics read the collection.
 * - `'queue'`: every pool event and every policy deletion enqueues the pool; the pass computes the
 *   orphan candidates from the caches. The metrics compute the usage at scrape time.
 *
 * Either way the pass (live read, then a pool write with a resourceVersion precondition) runs in
 * a queue, and the policy reconcile is the same.
 */
export type PoolSummaryMode = 'krt' | 'queue';

/** Options of {@link createEgressController}. */
export interface EgressControllerOptions {
  /** Watch policies (and their Deployments) in this namespace only. Default: all namespaces. */
  readonly namespace?: string | undefined;
  /** Parallel policy reconciles (distinct keys). Default 1. */
  readonly workers?: number | undefined;
  /** Where reconcile failures are logged. Default: nowhere. */
  readonly logger?: Logger | undefined;
  /** Workqueue and reconcile metrics (e.g. `prometheusMetrics`). Default: none. */
  readonly metrics?: ControllerMetrics | undefined;
  /** The clock of condition transitions and allocation times. Default: the system clock. */
  readonly now?: (() => Date) | undefined;
  /** See {@link PoolSummaryMode}. Default `'krt'`. */
  readonly poolSummary?: PoolSummaryMode | undefined;
  /**
   * Run as one shard of a ring: cache and reconcile only the policies (and their gateway
   * Deployments) labelled for this shard, acknowledge drains, look for orphans only among this
   * shard's policies (see `src/controller/sharding.ts`). Default: every policy.
   */
  readonly shard?: ControllerShard | undefined;
  /**
   * Makes the rate limiter that delays the retries of one queue (called once per queue). Default:
   * `defaultControllerRateLimiter` (5 ms doubling to 1000 s per key, 10 qps overall).
   */
  readonly rateLimiter?: (() => RateLimiter) | undefined;
}

/** A running-or-ready EgressGatewayPolicy controller. */
export interface EgressController {
  /** The typed clients and indexes the controller reads (shared caches). */
  readonly clients: OperatorClients;
  /**
   * Waits until the caches synced and the handlers saw the initial lists, then runs the workers
   * until `signal` aborts; resolves once in-flight reconciles finished and handlers were removed.
   * Start the informers first with `kube.runAndWait(signal)` (on every replica: only the leader
   * calls `run`).
   */
  run(signal: AbortSignal): Promise<void>;
  /** True once every policy and pool that existed when `run` started was reconciled once. */
  hasSynced(): boolean;
  /** Each pool's usage (for the metrics): from the derived collection, or computed from the caches. */
  poolUsage(): PoolUsage[];
  /** Stops the derived collections (every replica has them; `run` does not stop them). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Retries per policy (rate-limited, up to the limiter's 1000 s cap: hours), then the next event requeues it. */
const MAX_ATTEMPTS = 50;

/**
 * A pool summary is never given up: with krt, the next event that enqueues a pool is a change of
 * its usage, which a pool whose status write keeps failing may never see. Its retries stay at the
 * rate limiter's cap (1000 s by default), as controller-runtime retries every failed key.
 */
const UNBOUNDED_ATTEMPTS = Number.MAX_SAFE_INTEGER;

/**
 * How long after a ring change the pools with orphans are looked at again: a dead shard's fence
 * (its Lease taken by the sharder's evictor) shows a moment after it left the live shards.
 */
const RING_SETTLE_MS = 5000;

/** Builds the controller (phase 1: no I/O, nothing starts). */
export function createEgressController(
  kube: KubeClient,
  options: EgressControllerOptions = {},
): EgressController {
  const shard = options.shard;
  const clients = createOperatorClients(kube, { namespace: options.namespace, shard });
  const logger = options.logger ?? noopLogger;
  const now = options.now ?? (() => new Date());
  const common = () => ({
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.rateLimiter ? { rateLimiter: options.rateLimiter() } : {}),
  });
  const pools = createPoolWriter({ kube, clients, now });
  const context = (signal: AbortSignal): ProcessorContext => ({ kube, clients, pools, signal, now });
  const mode = options.poolSummary ?? 'krt';
  if (mode !== 'krt' && mode !== 'queue')
    throw new TypeError(`egress controller: poolSummary "${String(mode)}": expected "krt" or "queue"`);
  const stopCollections = new AbortController();
  const usage: Collection<PoolUsage> | undefined =
    mode === 'krt' ? poolUsageCollection(clients, { signal: stopCollections.signal }) : undefined;
  // A shard caches only its own policies: every other shard's allocation would look orphaned.
  const owns = shard ? (c: OrphanCandidate) => shard.owns(`${c.namespace}/${c.name}`) : () => true;
  const ours = (list: readonly OrphanCandidate[]) => (shard ? list.filter(owns) : list);
  const candidates = usage
    ? (pool: IPAMPool) => ours(usage.get(name(pool))?.orphanCandidates ?? [])
    : (pool: IPAMPool) => {
        const known = new Set<string>();
        for (const a of pool.status?.allocations ?? [])
          if (clients.policiesByUid.lookup(a.owner.uid).length > 0) known.add(a.owner.uid);
        return ours(orphanCandidates(pool, known));
      };

  const reconcile: Reconciler<ObjectKey> = (key, ctx) => reconcilePolicy(context(ctx.signal), key);
  let policyReconciler = reconcile;
  const policyQueue: Queue<ObjectKey> = createQueue<ObjectKey>({
    name: 'egressgatewaypolicy',
    workers: options.workers ?? 1,
    reconciler: (key, ctx) => policyReconciler(key, ctx),
    maxAttempts: MAX_ATTEMPTS,
    ...common(),
  });
  const sharded = shard ? shardedParts({ kube, clients, shard, policyQueue, reconcile, logger }) : undefined;
  if (sharded) policyReconciler = sharded.reconciler;
  const poolQueue: Queue<string> = createQueue<string>({
    name: 'ipampool',
    reconciler: (name, ctx) => summarizePool(context(ctx.signal), { name, candidates, owns }),
    maxAttempts: UNBOUNDED_ATTEMPTS,
    ...common(),
  });

  const ringLabels = shard ? ringLabelKeys(shard.ring) : [];
  const enqueueOwner = (d: V1Deployment) => {
    for (const ref of d.metadata?.ownerReferences ?? [])
      if (ref.controller && ref.kind === EgressGatewayPolicyResource.kind && d.metadata?.namespace)
        policyQueue.add({ namespace: d.metadata.namespace, name: ref.name });
  };
  const enqueuePoliciesOf = (pool: string, filter: (p: EgressGatewayPolicy) => boolean = () => true) => {
    for (const p of clients.policiesByPool.lookup(pool)) if (filter(p)) policyQueue.addObject(p);
  };
  const handlers = [
    clients.policies.addEventHandler({
      onAdd: (p) => policyQueue.addObject(p),
      onUpdate: (old, p) => {
        // Status-only updates (our own writes among them) change nothing a reconcile reads.
        if (specOrLifecycleChanged(old, p)) policyQueue.addObject(p);
      },
      onDelete: (obj) => {
        const p = extract(obj);
        if (!p) return;
        policyQueue.addObject(p);
        // A finalizer removed by hand leaves an orphan (with krt, the pool's usage shows it).
        if (!usage) poolQueue.add(p.spec.ipamPoolRef.name);
      },
    }),
    clients.pools.addEventHandler({
      onAdd: (pool) => {
        if (!usage) poolQueue.add(name(pool));
        enqueuePoliciesOf(name(pool));
      },
      onUpdate: (old, pool) => {
        if (!usage) poolQueue.add(name(pool));
        if (old.metadata?.generation !== pool.metadata?.generation) enqueuePoliciesOf(name(pool));
        // Addresses came back: policies waiting for room may fit now.
        else if (released(old, pool)) enqueuePoliciesOf(name(pool), (p) => !allocated(p));
      },
      onDelete: (obj) => {
        const pool = extract(obj);
        if (pool) enqueuePoliciesOf(name(pool));
      },
    }),
    clients.deployments.addEventHandler({
      onAdd: (d) => enqueueOwner(d),
      // The sharder's relabels (moves, standby changes) change nothing a reconcile reads.
      onUpdate: (old, d) => {
        if (gatewayChanged(old, d, ringLabels)) enqueueOwner(d);
      },
      onDelete: (obj) => {
        const d = extract(obj);
        if (d) enqueueOwner(d);
      },
    }),
  ];
  const usageRegistration = usage?.register((e) => {
    if (e.new && (!e.new.statusCurrent || ours(e.new.orphanCandidates).length > 0)) poolQueue.add(e.new.name);
  });
  // Which orphans are this shard's follows the ring, not the pools: an orphan that was another
  // shard's (a fenced one's, until the fence ends) becomes this one's with no change of its pool.
  // Looked at once the ring settled: a dead shard leaves the live ones a moment before its fence
  // shows, and in between its policies would look like this replica's orphans (a live read each).
  const unfollowRing = shard?.fencing?.subscribe(() => {
    if (usage) {
      for (const u of usage.list())
        if (ours(u.orphanCandidates).length > 0) poolQueue.addAfter(u.name, RING_SETTLE_MS);
    } else for (const p of clients.pools.list()) poolQueue.addAfter(name(p), RING_SETTLE_MS);
  });
  const queues = [policyQueue, poolQueue, ...(sharded ? [sharded.deploymentDrains] : [])];
  const registrations = [...handlers, ...(sharded?.registrations ?? [])];

  return {
    clients,
    async run(signal) {
      const synced = await kube.waitForCacheSync(
        'egress controller',
        signal,
        () => clients.policies.hasSynced() && clients.pools.hasSynced() && clients.deployments.hasSynced(),
        ...registrations.map((h) => () => h.hasSynced()),
        () => usageRegistration?.hasSynced() ?? true,
      );
      if (synced) await Promise.all(queues.map((q) => q.run(signal)));
      else await Promise.all(queues.map((q) => q[Symbol.asyncDispose]()));
      for (const h of registrations) h.remove();
    },
    hasSynced: () => policyQueue.hasSynced() && poolQueue.hasSynced(),
    poolUsage: () =>
      usage
        ? usage.list()
        : clients.pools.list().map((p) => poolUsage(p, clients.policiesByPool.lookup(name(p)))),
    async [Symbol.asyncDispose]() {
      sharded?.close();
      unfollowRing?.();
      usageRegistration?.remove();
      stopCollections.abort();
    },
  };
}

/**
 * One policy: finalizer guard → IP pool → Deployment → status. Level-based: everything is read
 * from the caches; a conflict anywhere throws and the key is retried.
 */
async function reconcilePolicy(ctx: ProcessorContext, key: ObjectKey): Promise<void> {
  const cached = ctx.clients.policies.get(key.name, key.namespace);
  if (!cached) return; // deleted: its addresses were released by the finalizer (or are reclaimed as orphans)
  if (cached.metadata?.deletionTimestamp) return finalize(ctx, cached);
  const policy = await ensureFinalizer(ctx, cached);
  const pool = await allocate(ctx, policy);
  const gateway = await convergeGateway(ctx, policy, pool);
  await writeStatus(ctx, policy, { pool, gateway });
}

/** The label keys a ring's sharder writes on objects (shard, standby, drain). */
function ringLabelKeys(ring: string): string[] {
  const labels = shardLabels(ring);
  return [labels.shard, labels.standby, labels.drain];
}

function name(obj: { metadata?: { name?: string } | undefined }): string {
  return obj.metadata?.name ?? '';
}

function specOrLifecycleChanged(old: EgressGatewayPolicy, p: EgressGatewayPolicy): boolean {
  const a = old.metadata;
  const b = p.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    JSON.stringify(a?.finalizers ?? []) !== JSON.stringify(b?.finalizers ?? []) ||
    a?.uid !== b?.uid
  );
}

function released(old: IPAMPool, pool: IPAMPool): boolean {
  const now = new Set((pool.status?.allocations ?? []).map((a) => `${a.ip}|${a.owner.uid}`));
  return (old.status?.allocations ?? []).some((a) => !now.has(`${a.ip}|${a.owner.uid}`));
}

function allocated(p: EgressGatewayPolicy): boolean {
  return findCondition(p.status?.conditions, 'IPAllocated')?.status === 'True';
}
