/**
 * `@kubeloom/controllers`: the tools to write a controller by hand: a deduplicating,
 * rate-limited work queue, rate limiters, informer event-handler helpers, Lease leader election,
 * sharding over a ring of replicas and Prometheus metrics. See README.md.
 *
 * @packageDocumentation
 */
export { type Clock, systemClock, type TimerHandle } from './clock.ts';
export { createLeaderElector } from './create-leader-elector.ts';
export { createQueue } from './create-queue.ts';
export { createShardMember, type ShardMember, type ShardMemberOptions } from './create-shard-member.ts';
export { createShardRing, type ShardRing, type ShardRingOptions } from './create-shard-ring.ts';
export { createSharder } from './create-sharder.ts';
export { defaultControllerRateLimiter } from './default-rate-limiter.ts';
export { exponentialFailureRateLimiter } from './exponential-rate-limiter.ts';
export {
  enqueueForParentHandler,
  extract,
  filteredObjectHandler,
  filteredObjectSpecHandler,
  objectHandler,
  type ParentKind,
  typedObjectHandler,
} from './handlers.ts';
export { type HashRing, type HashRingOptions, hash53, hashRing } from './hash-ring.ts';
export {
  LeaderElectionConfigError,
  type LeaderElectionOptions,
  type LeaderElector,
  type LeaseRef,
} from './leader-election.ts';
export { maxOfRateLimiter } from './max-of-rate-limiter.ts';
export type {
  ControllerMetrics,
  LeaderElectionMetricsRecorder,
  QueueMetricsRecorder,
  QueueStats,
  ShardingMetricsRecorder,
  ShardingStats,
} from './metrics.ts';
export {
  importPrometheusMetrics,
  type PromClientModule,
  type PromCounter,
  type PrometheusMetricsOptions,
  type PromGauge,
  type PromHistogram,
  type PromMetricConfig,
  type PromRegistry,
  prometheusMetrics,
} from './prometheus-metrics.ts';
export {
  type PrometheusRequestMetricsOptions,
  prometheusRequestMetrics,
} from './prometheus-request-metrics.ts';
export {
  type KeySink,
  type Queue,
  type QueueOptions,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  TerminalError,
} from './queue.ts';
export type {
  ExponentialRateLimiterOptions,
  RateLimiter,
  TokenBucketRateLimiterOptions,
} from './rate-limiter.ts';
export {
  controllerOwnerKey,
  objectShardKey,
  RING_LABEL,
  type ShardLabels,
  shardLabels,
  validateShardIdentity,
} from './shard-labels.ts';
export { drainHandler, type ShardedReconcilerOptions, shardedReconciler } from './sharded-reconciler.ts';
export type { ShardedResource, Sharder, SharderOptions } from './sharder.ts';
export { tokenBucketRateLimiter } from './token-bucket-rate-limiter.ts';
