import { ConflictError, NotFoundError } from '@kubeloom/kube';
import { describe, expect, it } from 'vitest';
import { retryOnConflict } from './retry-on-conflict.ts';

const conflict = (): ConflictError => new ConflictError('conflict', { code: 409, reason: 'Conflict' });

describe('retryOnConflict', () => {
  it('retries conflicts until success', async () => {
    let n = 0;
    const result = await retryOnConflict(
      async (attempt) => {
        n = attempt;
        if (attempt < 3) throw conflict();
        return 'done';
      },
      { initialDelayMs: 1 },
    );
    expect(result).toBe('done');
    expect(n).toBe(3);
  });

  it('gives up after `steps` attempts with the last conflict', async () => {
    let n = 0;
    const err = await retryOnConflict(
      async () => {
        n++;
        throw conflict();
      },
      { steps: 4, initialDelayMs: 1, factor: 2, maxDelayMs: 2 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(n).toBe(4);
  });

  it('throws other errors at once', async () => {
    let n = 0;
    const err = await retryOnConflict(async () => {
      n++;
      throw new NotFoundError('gone', { code: 404, reason: 'NotFound' });
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(n).toBe(1);
  });

  it('retries what `retriable` says', async () => {
    let n = 0;
    await retryOnConflict(
      async () => {
        if (++n === 1) throw new Error('flaky');
      },
      { retriable: (e) => (e as Error).message === 'flaky', initialDelayMs: 1 },
    );
    expect(n).toBe(2);
  });

  it('stops when the signal aborts, during the delay or before an attempt', async () => {
    const stop = new AbortController();
    let n = 0;
    const err = await retryOnConflict(
      async () => {
        n++;
        stop.abort(new Error('stopped'));
        throw conflict();
      },
      { initialDelayMs: 60_000, signal: stop.signal },
    ).catch((e: unknown) => e);
    expect((err as Error).message).toBe('stopped');
    expect(n).toBe(1);
    await expect(retryOnConflict(async () => 1, { signal: stop.signal })).rejects.toThrow('stopped');
  });
});
