/** What a queue reports about itself when its metrics are collected. */
export interface QueueStats {
  /** Keys waiting to be processed (not counting delayed ones). */
  depth(): number;
  /** Seconds of work in progress not yet observed by the work-duration histogram. */
  unfinishedWorkSeconds(): number;
  /** Seconds the longest-running reconcile of this queue has been running (0 when idle). */
  longestRunningProcessorSeconds(): number;
}

/** The per-queue side of a {@link ControllerMetrics}: the queue calls it as things happen. */
export interface QueueMetricsRecorder {
  /** A key entered the queue (an add that was not deduplicated). */
  add(): void;
  /** A key was scheduled for a delayed or rate-limited add. */
  retry(): void;
  /** A key left the queue for a worker after waiting `seconds`. */
  observeQueueDuration(seconds: number): void;
  /** A reconcile took `seconds`. */
  observeWorkDuration(seconds: number): void;
  /**
   * A reconcile finished with `result` after `seconds` (controller-runtime's
   * `controller_runtime_reconcile_*`): `success`, `error` (it threw), or `requeue_after` (it asked
   * to run again later).
   */
  reconcile?(result: 'success' | 'error' | 'requeue_after', seconds: number): void;
  /** The queue stopped; its gauges drop to zero and it is no longer collected. */
  close(): void;
}

/** The per-lease side of a {@link ControllerMetrics}. */
export interface LeaderElectionMetricsRecorder {
  /** This process started (`true`) or stopped (`false`) leading. */
  setLeader(leading: boolean): void;
  /** The elector stopped. */
  close(): void;
}

/** What a sharder reports about its ring when metrics are collected. */
export interface ShardingStats {
  /** Objects per shard, by the shard label the sharder's cache sees. */
  assigned(): ReadonlyMap<string, number>;
}

/** The per-ring side of a {@link ControllerMetrics}, recorded by the elected sharder. */
export interface ShardingMetricsRecorder {
  /** An object moved to `shard` (after a drain, or from a shard whose Lease expired). */
  move(shard: string): void;
  /** `shard` acknowledged a drain `seconds` after the sharder asked. */
  observeDrain(shard: string, seconds: number): void;
  /** The sharder stopped leading; its gauges drop to zero. */
  close(): void;
}

/**
 * A metrics sink for queues and leader electors. {@link prometheusMetrics} implements it on
 * prom-client with controller-runtime's metric names; implement it yourself for another system.
 * Queues and electors record nothing when no metrics are configured.
 */
export interface ControllerMetrics {
  /**
   * A recorder for the queue `name`, called when the queue is constructed; `stats` is read when
   * metrics are collected. The queue calls the recorder's `close` when it stops; a queue that
   * never runs and is never shut down never does, so hold `stats` weakly (as
   * {@link prometheusMetrics} does) rather than keep such a queue alive.
   */
  queue(name: string, stats: QueueStats): QueueMetricsRecorder;
  /** A recorder for the leader election of lease `name`. */
  leaderElection(name: string): LeaderElectionMetricsRecorder;
  /** A recorder for the sharder of ring `name`; `stats` is read when metrics are collected. Optional. */
  sharding?(name: string, stats: ShardingStats): ShardingMetricsRecorder;
}
