/**
 * The operator as one shard of a ring (`--shard-ring`): instead of one elected leader running
 * every reconcile, each replica holds its own Lease in the ring (`createShardMember`) and runs
 * the workers over its share of the policies; the ring's elected replica runs the sharder, which
 * labels every policy and gateway Deployment with its shard (a Deployment with its owner's,
 * `controllerOwnerKey`, so a policy and its gateway land together). Pools stay whole on every
 * replica; a pool write's resourceVersion precondition keeps allocations unique across shards.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import {
  type ControllerMetrics,
  controllerOwnerKey,
  createSharder,
  createShardMember,
  type ShardRing,
} from '@kubeloom/controllers';
import { builtins, type KubeClient, type Logger } from '@kubeloom/kube';
import { GATEWAY_SELECTOR } from '../controller/clients.ts';
import type { EgressController } from '../controller/egress-controller.ts';
import { EgressGatewayPolicyResource } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import type { LeaseTimings } from './flags.ts';

/** What {@link runShard} needs. */
export interface ShardRunOptions {
  /** The replica's client: its Lease is written through it. */
  readonly kube: KubeClient;
  /** A client of its own for the sharder and the ring (their informers run with them). */
  readonly ringKube: KubeClient;
  /** The ring view the controller's orphan filter reads (see `createShardRing`). */
  readonly ring: ShardRing;
  /** The controller, built with `shard` (its caches already synced). */
  readonly controller: EgressController;
  readonly identity: string;
  /** Namespace of the shard Leases and of the sharder's election Lease. */
  readonly namespace: string;
  /** Shard only policies (and Deployments) of this namespace; all when undefined. */
  readonly watchNamespace: string | undefined;
  /** Lease timings of the shard Leases and of the sharder's election (`--leader-elect-*`). */
  readonly timings: LeaseTimings;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
  readonly signal: AbortSignal;
}

/**
 * Runs the sharder, the ring view and this replica's membership until `signal` aborts (exit code 0)
 * or the replica loses its Lease (exit code 1: as with leader election, a replica that lost its
 * place exits and is restarted, so it rejoins with fresh caches).
 */
export async function runShard(opts: ShardRunOptions): Promise<number> {
  const { ring, identity, namespace, logger, signal } = opts;
  const scope = opts.watchNamespace ? { namespace: opts.watchNamespace } : {};
  const sharder = createSharder({
    kube: opts.ringKube,
    ring: ring.labels.ring,
    namespace,
    resources: [
      { resource: EgressGatewayPolicyResource, ...scope },
      { resource: builtins.Deployment, ...scope, labelSelector: GATEWAY_SELECTOR, key: controllerOwnerKey },
    ],
    identity: `${identity}_${randomUUID()}`,
    ...opts.timings,
    logger,
    metrics: opts.metrics,
  });
  const left = new AbortController();
  const stop = AbortSignal.any([signal, left.signal]);
  let lost = false;
  const member = createShardMember({
    api: opts.kube.api,
    ring: ring.labels.ring,
    namespace,
    identity,
    ...opts.timings,
    logger,
    metrics: opts.metrics,
    onJoined: (joined) => {
      logger.info('joined the ring, starting workers', { ring: ring.labels.ring, shard: identity });
      return opts.controller.run(joined);
    },
    onLeft: () => {
      if (signal.aborted) return;
      lost = true;
      left.abort();
    },
  });
  try {
    await Promise.all([ring.run(stop), sharder.run(stop), member.run(stop)]);
  } finally {
    await sharder[Symbol.asyncDispose]();
    await ring[Symbol.asyncDispose]();
  }
  if (!lost) return 0;
  logger.error('shard Lease lost', { ring: ring.labels.ring, shard: identity });
  return 1;
}
