import { describe, expect, it, vi } from 'vitest';
import { WaitForTimeoutError, waitFor } from './wait-for.ts';

describe('waitFor', () => {
  it('returns the first truthy value of the condition', async () => {
    let n = 0;
    const value = await waitFor('n to reach 3', () => (++n >= 3 ? { n } : undefined), { intervalMs: 1 });
    expect(value).toEqual({ n: 3 });
  });

  it('retries a condition that throws, and an async one', async () => {
    let n = 0;
    await waitFor(
      'the assertion to hold',
      async () => {
        n++;
        expect(n).toBeGreaterThan(2);
        return true;
      },
      { intervalMs: 1 },
    );
    expect(n).toBe(3);
  });

  it('fails after the bound, naming what it waited for and what the condition last saw', async () => {
    const err = await waitFor('never', () => false, { timeoutMs: 30, intervalMs: 5 }).catch((e) => e);
    expect(err).toBeInstanceOf(WaitForTimeoutError);
    expect(err.message).toMatch(
      /^timed out after \d+ ms \(\d+ checks\) waiting for never: the condition last returned false$/,
    );
    expect(err.attempts).toBeGreaterThan(1);
  });

  it('keeps the last error as the cause', async () => {
    const boom = new Error('not yet\nsecond line');
    const err = await waitFor(
      'boom',
      () => {
        throw boom;
      },
      { timeoutMs: 10, intervalMs: 2 },
    ).catch((e) => e);
    expect(err.message).toContain('the condition last threw Error: not yet');
    expect(err.message).not.toContain('second line');
    expect(err.cause).toBe(boom);
  });

  it('stops early when the signal aborts, before or during a pause, and leaves no timer behind', async () => {
    const controller = new AbortController();
    let checks = 0;
    const wait = waitFor('abort', () => ++checks > 1_000, { signal: controller.signal, intervalMs: 60_000 });
    controller.abort(new Error('stopped'));
    await expect(wait).rejects.toThrow('stopped');
    expect(checks).toBe(1);

    vi.useFakeTimers();
    try {
      const later = new AbortController();
      const pausing = waitFor('abort', () => false, { signal: later.signal, intervalMs: 60_000 });
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(1);
      later.abort(new Error('stopped later'));
      await expect(pausing).rejects.toThrow('stopped later');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
