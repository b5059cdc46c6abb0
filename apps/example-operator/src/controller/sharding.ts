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
  type Queue,
  type Reconciler,
  shardedReconciler,
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
   * among those, since its cache holds only its own policies.
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
  const isFenced = fencing ? (d: string) => fencing.isFenced(d) : undefined;
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
  const registrations = [
    clients.policies.addEventHandler(drainHandler(shard.ring, opts.policyQueue)),
    clients.deployments.addEventHandler(drainHandler(shard.ring, deploymentDrains)),
  ];
  // The caches follow the ring's fenced shards: their objects that name this shard as standby.
  const follow = () => clients.adopt?.(fencing?.fenced() ?? []);
  const unsubscribe = fencing?.subscribe(follow);
  follow();
  return { reconciler, deploymentDrains, registrations, close: () => unsubscribe?.() };
}
