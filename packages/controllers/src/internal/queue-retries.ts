import { type Logger, serializeError } from '@kubeloom/kube';
import { type ReconcileResult, TerminalError } from '../queue.ts';
import type { RateLimiter } from '../rate-limiter.ts';
import { logKey } from './queue-keys.ts';

/** What {@link QueueRetries} needs from its queue. */
export interface QueueRetriesOptions<K> {
  readonly rateLimiter: RateLimiter;
  /** Attempts per key before it is dropped (0 or 1: no retries). */
  readonly maxAttempts: number;
  readonly logger: Logger;
  /** Whether the queue is stopping (a failure then is not retried). */
  readonly stopping: () => boolean;
  /** Adds `value` again after `delayMs` (the queue's `addAfter`). */
  readonly addAfter: (value: K, delayMs: number) => void;
}

/**
 * The retry bookkeeping of a queue: which keys the rate limiter holds failures for, what a
 * reconcile's success or failure means for its key (forget, requeue after a delay, retry with
 * backoff, or drop), and the log lines that say so.
 */
export class QueueRetries<K> {
  /**
   * Keys the rate limiter has failures for, so a success calls `forget` only when needed. Read
   * directly on the queue's hot path (`size !== 0 && has(key)`).
   */
  readonly limited = new Set<string>();
  readonly #o: QueueRetriesOptions<K>;

  constructor(options: QueueRetriesOptions<K>) {
    this.#o = options;
  }

  /** The attempt number of the next reconcile of `key` (1 for a key without failures). */
  attempt(key: string): number {
    return this.#o.rateLimiter.requeues(key) + 1;
  }

  /** How many times `key` was requeued for failures. */
  requeues(key: string): number {
    return this.#o.rateLimiter.requeues(key);
  }

  /** The backoff before `key`'s next attempt; the key is counted as failing until forgotten. */
  backoff(key: string): number {
    const delayMs = this.#o.rateLimiter.when(key);
    this.limited.add(key);
    return delayMs;
  }

  /** Clears `key`'s failures. */
  forget(key: string): void {
    this.limited.delete(key);
    this.#o.rateLimiter.forget(key);
  }

  /** The reconcile of `key` (called with `value`) returned `result`. */
  succeeded(key: string, value: K, result: ReconcileResult | undefined): void {
    if (this.limited.size !== 0 && this.limited.delete(key)) this.#o.rateLimiter.forget(key);
    const after = result?.requeueAfterMs;
    if (after === undefined) return;
    if (typeof after === 'number' && after >= 0 && Number.isFinite(after)) this.#o.addAfter(value, after);
    else {
      this.#o.logger.error('reconciler returned an invalid requeueAfterMs; not requeued', {
        key: logKey(key),
        requeueAfterMs: String(after),
      });
    }
  }

  /**
   * The reconcile of `key` failed with `err`: dropped for a {@link TerminalError}, not retried
   * while the queue stops, retried with backoff (`retry`) within the attempt budget, else dropped.
   */
  failed(key: string, err: unknown, retry: () => void): void {
    const { logger, maxAttempts } = this.#o;
    const fields = { key: logKey(key), err: serializeError(err) };
    if (err instanceof TerminalError) {
      logger.error('reconcile failed with a terminal error; dropping the key', fields);
      this.forget(key);
      return;
    }
    if (this.#o.stopping()) {
      logger.warn('reconcile failed while the queue was stopping; not retried', fields);
      return;
    }
    const attempts = (this.limited.has(key) ? this.#o.rateLimiter.requeues(key) : 0) + 1;
    if (attempts < maxAttempts) {
      logger.warn('reconcile failed; retrying', { ...fields, attempt: attempts, maxAttempts });
      retry();
      return; // no forget: the backoff grows
    }
    logger.error(
      maxAttempts <= 1
        ? 'reconcile failed; dropping the key (retries are off: set maxAttempts to retry)'
        : 'reconcile failed and the retry budget is exhausted; dropping the key',
      { ...fields, attempt: attempts, maxAttempts },
    );
    this.forget(key);
  }
}
