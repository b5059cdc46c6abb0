import { requirePositiveFinite } from './internal/validate.ts';
import type { ExponentialRateLimiterOptions, RateLimiter } from './rate-limiter.ts';

/**
 * Per-key exponential backoff (client-go's `ItemExponentialFailureRateLimiter`): the n-th retry of
 * a key waits `baseDelayMs × 2^(n-1)`, capped at `maxDelayMs`. Defaults: 5 ms doubling to 1000 s.
 *
 * @throws RangeError when a delay is not a positive finite number or the base exceeds the cap.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#exponentialFailureRateLimiter}
 */
export function exponentialFailureRateLimiter(opts: ExponentialRateLimiterOptions = {}): RateLimiter {
  const owner = 'exponentialFailureRateLimiter';
  const unit = ' (milliseconds)';
  const base = requirePositiveFinite(opts.baseDelayMs ?? 5, { owner, option: 'baseDelayMs', unit });
  const max = requirePositiveFinite(opts.maxDelayMs ?? 1_000_000, { owner, option: 'maxDelayMs', unit });
  if (base > max) {
    throw new RangeError(
      `exponentialFailureRateLimiter: baseDelayMs (${base}) is larger than maxDelayMs (${max}); pass a base no larger than the cap`,
    );
  }
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      // 2^1024 is Infinity; past the cap the exact exponent no longer matters.
      const delay = base * 2 ** Math.min(n, 1023);
      return Math.min(delay, max);
    },
    forget(key) {
      failures.delete(key);
    },
    requeues(key) {
      return failures.get(key) ?? 0;
    },
  };
}
