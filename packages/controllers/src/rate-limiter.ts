/**
 * Decides how long a failed key waits before it is retried (client-go's `RateLimiter`). Keys are
 * the queue's string keys (`namespace/name` for object keys). Implement it for a custom policy;
 * the queue calls {@link RateLimiter.when} once per retry and {@link RateLimiter.forget} when a
 * key succeeds or is dropped.
 */
export interface RateLimiter {
  /** Records one more failure of `key` and returns the delay before its retry, in milliseconds. */
  when(key: string): number;
  /** Clears the failure history of `key` (it succeeded, or the queue gave up on it). */
  forget(key: string): void;
  /** How many times `key` was retried since it was last forgotten. */
  requeues(key: string): number;
}

/** Options of {@link exponentialFailureRateLimiter}. */
export interface ExponentialRateLimiterOptions {
  /** The delay of the first retry. Default 5 ms. */
  readonly baseDelayMs?: number;
  /** The largest delay. Default 1000 s. */
  readonly maxDelayMs?: number;
}

/** Options of {@link tokenBucketRateLimiter}. */
export interface TokenBucketRateLimiterOptions {
  /** Tokens added per second. Default 10. */
  readonly qps?: number;
  /** Bucket size: retries allowed at once before the rate applies. Default 100. */
  readonly burst?: number;
  /** The time source, in milliseconds. Default `performance.now()`. */
  readonly now?: () => number;
}
