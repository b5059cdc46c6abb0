import { describe, expect, it } from 'vitest';
import { defaultControllerRateLimiter } from './default-rate-limiter.ts';
import { exponentialFailureRateLimiter } from './exponential-rate-limiter.ts';
import { maxOfRateLimiter } from './max-of-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { tokenBucketRateLimiter } from './token-bucket-rate-limiter.ts';

describe('exponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per key and caps at 1000 s', () => {
    const l = exponentialFailureRateLimiter();
    const delays = Array.from({ length: 20 }, () => l.when('a'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(5 * 2 ** 17); // 655.36 s
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    expect(l.requeues('a')).toBe(20);
    expect(l.when('b')).toBe(5);
  });

  it('stays at the cap after very many failures', () => {
    const l = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 10 });
    for (let i = 0; i < 5000; i++) l.when('a');
    expect(l.when('a')).toBe(10);
  });

  it('forget resets one key only', () => {
    const l = exponentialFailureRateLimiter();
    l.when('a');
    l.when('a');
    l.when('b');
    l.forget('a');
    expect(l.requeues('a')).toBe(0);
    expect(l.when('a')).toBe(5);
    expect(l.requeues('b')).toBe(1);
  });

  it('refuses invalid settings', () => {
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: 0 })).toThrow(/baseDelayMs must be a positive/);
    expect(() => exponentialFailureRateLimiter({ maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(
      /larger than maxDelayMs/,
    );
  });
});

describe('tokenBucketRateLimiter', () => {
  it('lets a burst through, then spaces reservations at 1/qps', () => {
    let now = 0;
    const l = tokenBucketRateLimiter({ qps: 10, burst: 100, now: () => now });
    const burst = Array.from({ length: 100 }, (_, i) => l.when(`k${i}`));
    expect(burst.every((d) => d === 0)).toBe(true);
    expect(l.when('x')).toBeCloseTo(100);
    expect(l.when('y')).toBeCloseTo(200);
    expect(l.when('z')).toBeCloseTo(300);
    // 1 s later 10 tokens have refilled, 3 of which were already promised.
    now = 1000;
    expect(l.when('w')).toBeCloseTo(0);
    now = 10_000_000;
    // Refill stops at the burst size.
    const again = Array.from({ length: 101 }, (_, i) => l.when(`k${i}`));
    expect(again.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(again[100]).toBeCloseTo(100);
  });

  it('keeps no per-key state', () => {
    const l = tokenBucketRateLimiter({ now: () => 0 });
    l.when('a');
    expect(l.requeues('a')).toBe(0);
    l.forget('a');
  });

  it('refuses invalid settings', () => {
    expect(() => tokenBucketRateLimiter({ qps: -1 })).toThrow(/qps must be a positive/);
    expect(() => tokenBucketRateLimiter({ burst: 0 })).toThrow(/burst must be a positive integer/);
    expect(() => tokenBucketRateLimiter({ burst: 1.5 })).toThrow(/burst/);
  });
});

describe('maxOfRateLimiter', () => {
  const fixed = (delay: number, requeues: number): RateLimiter & { forgotten: string[] } => {
    const forgotten: string[] = [];
    return {
      when: () => delay,
      forget: (k) => void forgotten.push(k),
      requeues: () => requeues,
      forgotten,
    };
  };

  it('takes the longest delay and the largest requeue count, and forgets everywhere', () => {
    const a = fixed(5, 3);
    const b = fixed(50, 1);
    const l = maxOfRateLimiter(a, b);
    expect(l.when('k')).toBe(50);
    expect(l.requeues('k')).toBe(3);
    l.forget('k');
    expect(a.forgotten).toEqual(['k']);
    expect(b.forgotten).toEqual(['k']);
    expect(() => maxOfRateLimiter()).toThrow(/at least one/);
  });

  it('is the default: per-key backoff until the global bucket runs dry', () => {
    let now = 0;
    const l = defaultControllerRateLimiter(() => now);
    expect([l.when('a'), l.when('a'), l.when('a')]).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) l.when(`other${i}`);
    // 100 tokens are gone: a fresh key now waits for the bucket (100 ms), not 5 ms.
    expect(l.when('fresh')).toBeCloseTo(100);
    expect(l.requeues('a')).toBe(3);
    now = 60_000;
    expect(l.when('fresh2')).toBe(5);
  });
});
