import { setTimeout as sleep } from 'node:timers/promises';
import { isConflict } from '@kubeloom/kube';

/** Options of {@link retryOnConflict}; the defaults are client-go's `retry.DefaultRetry`. */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 5. */
  readonly steps?: number | undefined;
  /** Delay before the second attempt, in ms. Default 10. */
  readonly initialDelayMs?: number | undefined;
  /** Each delay is the previous one times this. Default 1. */
  readonly factor?: number | undefined;
  /** Adds up to this fraction of the delay at random. Default 0.1. */
  readonly jitter?: number | undefined;
  /** Upper bound of one delay, in ms. Default: none. */
  readonly maxDelayMs?: number | undefined;
  /** Which errors to retry. Default: `isConflict` (409 Conflict from a stale resourceVersion). */
  readonly retriable?: ((err: unknown) => boolean) | undefined;
  /** Stops retrying: the pending delay ends and the abort reason is thrown. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs `fn` and runs it again when it fails with a conflict, up to `steps` attempts with
 * backoff in between. `fn` must read the latest state itself (from the API or the cache) on
 * every attempt; a conflict means the object changed since it was read. The last error is
 * thrown when the attempts run out, and any other error at once.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#retryOnConflict}
 */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  const steps = Math.max(1, options.steps ?? 5);
  const factor = options.factor ?? 1;
  const jitter = options.jitter ?? 0.1;
  const retriable = options.retriable ?? isConflict;
  let delay = options.initialDelayMs ?? 10;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= steps || !retriable(err)) throw err;
    }
    let wait = delay * (1 + Math.random() * jitter);
    if (options.maxDelayMs !== undefined) wait = Math.min(wait, options.maxDelayMs);
    await sleep(wait, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {
      options.signal?.throwIfAborted();
    });
    delay *= factor;
  }
}
