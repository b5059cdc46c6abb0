/**
 * The sharded side of the controller (`--shard-ring`): each replica caches and reconciles only the
 * policies labelled for its shard, and the gateway Deployments they own (the sharder gives a
 * Deployment its owner's shard, `controllerOwnerKey`). This file holds what sharding adds to the
 * controller: the policy reconciler wrapped in the owner's half of the drain handshake
 * (`shardedReconciler`), a queue that acknowledges drains of gateway Deployments, the reconcile
 * start/end log, and the orphan filter (a replica reclaims only orphans whose policy would be its own).
 *
 * @module
 */

import {
  createQueue,
  drainHandler,
  type HashRing,
  hashRing,
  type Queue,
  type Reconciler,
  shardedReconciler,
  shardLabels,
} from '@kubeloom/controllers';
import type { ShardRef } from '@kubeloom/kclient';
import { builtins, type KubeClient, keyOf, type Logger, type ObjectKey } from '@kubeloom/kube';
import { EgressGatewayPolicyResource } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { FIELD_MANAGER, type OperatorClients } from './clients.ts';

/** How a controller replica takes part in a ring (see `createEgressController`'s `shard`). */
export interface ControllerShard extends ShardRef {
  /**
   * True when the policy `namespace/name` belongs to this shard on the ring as it stands (e.g.
   * `ring.hashRing().shardFor(key) === identity`): the replica looks for orphaned allocations only
   * among those, since its cache holds only its own policies. It follows the ring: with
   * {@link ControllerShard.fencing}, the pools with orphans are looked at again at every ring change.
   */
  readonly owns: (policyKey: string) => boolean;
  /**
   * Adoption (the ring view, `createShardRing`): the shards fenced now, and a subscription to
   * their changes. With it, this replica also caches and reconciles the policies (and gateways) of
   * fenced shards that name it as their standby, before the sharder relabels them. Default: none.
   */
  readonly fencing?: ShardFencing | undefined;
}

/** The part of a ring view adoption reads (`ShardRing` of `@kubeloom/controllers` has it). */
interface ShardFencing {
  /** True while `shard` is fenced (its Lease held by the sharder's evictor). */
  isFenced(shard: string): boolean;
  /** The fenced shards, sorted. */
  fenced(): readonly string[];
  /** Calls `listener` after the fenced shards (or the live ones) changed; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** What sharding adds to a controller. */
export interface ShardedParts {
  /** The policy reconciler, run only for policies this shard owns; drains acknowledged. */
  readonly reconciler: Reconciler<ObjectKey>;
  /** The queue that acknowledges drains of gateway Deployments (run beside the policy queue). */
  readonly deploymentDrains: Queue<ObjectKey>;
  /** Handler registrations to remove when the controller stops. */
  readonly registrations: readonly { remove(): void; hasSynced(): boolean }[];
  /** Stops following the ring's fenced shards (see {@link ControllerShard.fencing}). */
  readonly close: () => void;
}

/** Options of {@link shardedParts}. */
export interface ShardedPartsOptions {
  readonly kube: KubeClient;
  readonly clients: OperatorClients;
  readonly shard: ControllerShard;
  /** The controller's policy queue (drain requests of policies are added to it). */
  readonly policyQueue: Queue<ObjectKey>;
  /** The policy reconcile itself. */
  readonly reconcile: Reconciler<ObjectKey>;
  readonly logger: Logger;
}

/** The wall clock with sub-millisecond resolution, comparable across processes on one machine. */
function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Wires sharding into a controller: the policy reconciler behind the drain handshake, with a
 * debug record `reconcile started` / `reconcile finished` (`key`, `shard`, `at`: epoch
 * milliseconds) around every reconcile it runs, and the acknowledgement of gateway Deployment
 * drains. The policy handler enqueues only on spec and lifecycle changes, so drain requests are
 * routed by `drainHandler`.
 */
export function shardedParts(opts: ShardedPartsOptions): ShardedParts {
  const { kube, clients, shard, logger } = opts;
  const fencing = shard.fencing;
  /**
   * Fenced shards whose adopted objects both caches hold (policies and gateways): a policy is
   * adopted only then, so its reconcile finds its gateway in the cache (not by a live read per
   * policy while the gateways' list is still on its way), and runs once, not once per arrival.
   */
  let cachedFences = new Set<string>();
  const isFenced = fencing
    ? (d: string): boolean => {
        if (!cachedFences.has(d)) return false;
        if (fencing.isFenced(d)) return true;
        // The fence ended by the clock, maybe with no change of the fenced list to tell: this
        // replica adopts from it no more, so a move from it here must enqueue (see below).
        cachedFences.delete(d);
        return false;
      }
    : undefined;
  const logged: Reconciler<ObjectKey> = async (key, ctx) => {
    const k = keyOf(key);
    logger.debug('reconcile started', { key: k, shard: shard.identity, at: wallNow() });
    try {
      return await opts.reconcile(key, ctx);
    } finally {
      logger.debug('reconcile finished', { key: k, shard: shard.identity, at: wallNow() });
    }
  };
  const reconciler = shardedReconciler({
    ring: shard.ring,
    identity: shard.identity,
    api: kube.api,
    resource: EgressGatewayPolicyResource,
    get: (key) => clients.policies.get(key.name, key.namespace),
    reconciler: logged,
    fieldManager: FIELD_MANAGER,
    logger,
    ...(isFenced ? { isFenced } : {}),
  });
  // A gateway Deployment is written only by its policy's reconcile, which never touches the shard
  // labels (server-side apply of the rendered fields): acknowledging its drain needs no ordering
  // with that reconcile, only the resourceVersion precondition shardedReconciler carries.
  const deploymentDrains = createQueue<ObjectKey>({
    name: 'gateway-drain',
    logger,
    reconciler: shardedReconciler({
      ring: shard.ring,
      identity: shard.identity,
      api: kube.api,
      resource: builtins.Deployment,
      get: (key) => clients.deployments.get(key.name, key.namespace),
      reconciler: () => {},
      fieldManager: FIELD_MANAGER,
      logger,
      ...(isFenced ? { isFenced } : {}),
    }),
  });
  const labels = shardLabels(shard.ring);
  const registrations = [
    clients.policies.addEventHandler(drainHandler(shard.ring, opts.policyQueue)),
    clients.deployments.addEventHandler(drainHandler(shard.ring, deploymentDrains)),
    // A policy moved here that this cache already held under a fenced shard not adopted from yet:
    // its reconciles skipped it, the controller's handler ignores label-only updates, and the
    // adoption's enqueue (once the caches hold the fenced shard) looks only for that shard's label.
    // Moves from a shard adopted from need nothing: its policies were reconciled as they came,
    // and one skipped since its fence ended took that shard out of the adopted ones.
    clients.policies.addEventHandler({
      onUpdate: (old, p) => {
        const from = old.metadata?.labels?.[labels.shard];
        const to = p.metadata?.labels?.[labels.shard];
        if (to === shard.identity && from !== to && from !== undefined && !cachedFences.has(from))
          opts.policyQueue.addObject(p);
      },
    }),
  ];
  // The caches follow the ring's fenced shards: their objects that name this shard as standby.
  let following = 0;
  const follow = (): void => {
    const fenced = fencing?.fenced() ?? [];
    const cached = clients.adopt?.(fenced);
    if (!cached) return;
    const call = ++following;
    // Shards that left the fence are not adopted from any more; new ones wait for the caches.
    cachedFences = new Set([...cachedFences].filter((d) => fenced.includes(d)));
    logger.info('caching the adopted objects of fenced shards', {
      fenced,
      shard: shard.identity,
      at: wallNow(),
    });
    // The promise never rejects (the unions' waits resolve false when they stop).
    void cached.then((ok) => {
      if (!ok || call !== following) return; // stopped, or a later change of the fenced shards decides
      cachedFences = new Set(fenced);
      logger.info('cached the adopted objects', { fenced, shard: shard.identity, at: wallNow() });
      // Their arrivals were skipped (not adopted yet): reconcile them now.
      for (const p of clients.policies.list()) {
        const l = p.metadata?.labels ?? {};
        const owner = l[labels.shard];
        if (owner !== undefined && cachedFences.has(owner) && l[labels.standby] === shard.identity)
          opts.policyQueue.addObject(p);
      }
    });
  };
  const unsubscribe = fencing?.subscribe(follow);
  follow();
  return { reconciler, deploymentDrains, registrations, close: () => unsubscribe?.() };
}

/** The part of a ring view {@link ownsOnRing} reads (`ShardRing` of `@kubeloom/controllers` has it). */
interface RingMembers {
  /** The live shards, sorted (the same array until they change). */
  members(): readonly string[];
  /** The fenced shards, sorted (the same array until they change). */
  fenced(): readonly string[];
}

/**
 * A {@link ControllerShard.owns} from a ring view: whether the ring gives the policy to
 * `identity`, counting fenced shards as members. A fenced shard's policies are adopted or about
 * to be moved, and until they reach this replica's cache they are no orphans of its to look for
 * (each candidate costs a live read). The other keys map as on the live ring: consistent hashing
 * moves only the fenced shards' keys.
 */
export function ownsOnRing(ring: RingMembers, identity: string): (policyKey: string) => boolean {
  let memo: { members: readonly string[]; fenced: readonly string[]; ring: HashRing } | undefined;
  return (key) => {
    const members = ring.members();
    const fenced = ring.fenced();
    if (memo?.members !== members || memo.fenced !== fenced)
      memo = { members, fenced, ring: hashRing([...members, ...fenced]) };
    return memo.ring.shardFor(key) === identity;
  };
}
