import type { RateLimiter } from './rate-limiter.ts';

/**
 * Combines rate limiters (client-go's `MaxOfRateLimiter`): the delay is the longest of theirs,
 * the requeue count the largest; `forget` reaches every one. Every limiter is consulted on each
 * `when`, so each one records the failure.
 *
 * @throws TypeError when no limiter is given.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#maxOfRateLimiter}
 */
export function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  if (limiters.length === 0) throw new TypeError('maxOfRateLimiter: pass at least one rate limiter');
  return {
    when(key) {
      let delay = 0;
      for (const l of limiters) {
        const d = l.when(key);
        if (d > delay) delay = d;
      }
      return delay;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    requeues(key) {
      let n = 0;
      for (const l of limiters) {
        const r = l.requeues(key);
        if (r > n) n = r;
      }
      return n;
    },
  };
}
