import { requirePositiveFinite } from './internal/validate.ts';
import type { RateLimiter, TokenBucketRateLimiterOptions } from './rate-limiter.ts';

/**
 * A global token bucket (client-go's `BucketRateLimiter`, golang.org/x/time/rate semantics): up
 * to `burst` retries go at once, then one every `1/qps` seconds, whatever the key. Each call to
 * `when` reserves a token, so delays grow as reservations pile up. It keeps no per-key state:
 * `requeues` is always 0 and `forget` does nothing. Defaults: 10 qps, burst 100.
 *
 * @throws RangeError when qps is not a positive finite number or burst not a positive integer.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#tokenBucketRateLimiter}
 */
export function tokenBucketRateLimiter(opts: TokenBucketRateLimiterOptions = {}): RateLimiter {
  const qps = requirePositiveFinite(opts.qps ?? 10, { owner: 'tokenBucketRateLimiter', option: 'qps' });
  const burst = opts.burst ?? 100;
  if (!Number.isInteger(burst) || burst < 1) {
    throw new RangeError(`tokenBucketRateLimiter: burst must be a positive integer, got ${String(burst)}`);
  }
  const now = opts.now ?? (() => performance.now());
  const msPerToken = 1000 / qps;
  let tokens = burst;
  let last: number | undefined;
  return {
    when() {
      const t = now();
      if (last !== undefined && t > last) tokens = Math.min(burst, tokens + (t - last) / msPerToken);
      if (last === undefined || t > last) last = t;
      tokens -= 1;
      return tokens >= 0 ? 0 : -tokens * msPerToken;
    },
    forget() {},
    requeues() {
      return 0;
    },
  };
}
