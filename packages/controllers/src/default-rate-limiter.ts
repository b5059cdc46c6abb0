import { exponentialFailureRateLimiter } from './exponential-rate-limiter.ts';
import { maxOfRateLimiter } from './max-of-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { tokenBucketRateLimiter } from './token-bucket-rate-limiter.ts';

/**
 * The queue's default rate limiter, client-go's `DefaultControllerRateLimiter`: the longer of a
 * per-key exponential backoff (5 ms doubling to 1000 s) and a global 10 qps / burst 100 bucket.
 * Each queue gets its own instance.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#defaultControllerRateLimiter}
 */
export function defaultControllerRateLimiter(now?: () => number): RateLimiter {
  return maxOfRateLimiter(
    exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    tokenBucketRateLimiter({ qps: 10, burst: 100, ...(now ? { now } : {}) }),
  );
}
