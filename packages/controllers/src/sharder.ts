import type { KubeClient, KubeObject, Logger, ResourceDescriptor } from '@kubeloom/kube';
import type { Clock } from './clock.ts';
import type { ControllerMetrics } from './metrics.ts';

/** One resource the sharder assigns. */
export interface ShardedResource {
  /** The resource. */
  readonly resource: ResourceDescriptor;
  /** Only this namespace; all when omitted. */
  readonly namespace?: string;
  /**
   * Only objects matching this label selector (e.g. `app.kubernetes.io/name=egress-gateway`), so
   * the sharder neither watches nor labels the resource's other objects. All when omitted.
   */
  readonly labelSelector?: string;
  /**
   * The object's shard key. Default `namespace/name` ({@link objectShardKey}); return the same key
   * for objects that must land together, e.g. {@link controllerOwnerKey}.
   */
  readonly key?: (obj: KubeObject) => string;
}

/** Options of {@link createSharder}. */
export interface SharderOptions {
  /** The client whose shared informers watch the objects (metadata only) and the ring's Leases. */
  readonly kube: KubeClient;
  /** The ring's name. */
  readonly ring: string;
  /** The namespace of the ring's shard Leases and of the sharder's own election Lease `<ring>-sharder`. */
  readonly namespace: string;
  /** The resources whose objects are spread over the ring's shards. */
  readonly resources: readonly ShardedResource[];
  /** This sharder's identity in its election. Default: the leader elector's `<hostname>_<uuid>`. */
  readonly identity?: string;
  /** Virtual nodes per shard. Default 1000. */
  readonly virtualNodes?: number;
  /** Timings of the sharder's election and of its take-over of dead shards' Leases. Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. */
  readonly retryPeriodMs?: number;
  /**
   * How often the elected sharder checks every object again, besides reacting to changes (a
   * safety net for writes that kept failing). Default 30 s.
   */
  readonly resyncPeriodMs?: number;
  /**
   * Parallel label writes. Default 16: a dead shard's objects wait for its Lease to expire and then
   * move at once, so the hand-over takes their number divided by the write rate.
   */
  readonly workers?: number;
  /** The field manager of the label writes. Default `kubeloom-sharder`. */
  readonly fieldManager?: string;
  /** Where decisions and failures are logged. Default `consoleLogger('warn')`. */
  readonly logger?: Logger;
  /** Per-shard metrics (objects assigned, moves, drain time) and the election's. Default: none. */
  readonly metrics?: ControllerMetrics;
  /** Default {@link systemClock}. */
  readonly clock?: Clock;
}

/**
 * The ring's sharder: the elected one among its replicas writes the shard label of every object
 * of the sharded resources (see the controllers README, "Sharding").
 */
export interface Sharder {
  /** This sharder's identity in its election. */
  readonly identity: string;
  /**
   * Watches the ring and the objects (metadata only) until `signal` aborts, and assigns objects
   * while elected. Settles once stopped.
   */
  run(signal: AbortSignal): Promise<void>;
  /** True while this replica is the ring's sharder. */
  isLeader(): boolean;
  /** True once the ring and object informers synced. */
  hasSynced(): boolean;
  /** Resolves true once synced, false when `signal` aborts first. */
  waitUntilSynced(signal: AbortSignal): Promise<boolean>;
  /** Stops it and resolves once stopped, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
