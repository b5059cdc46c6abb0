import type { Logger } from '@kubeloom/kube';
import type { Clock } from '../clock.ts';

/**
 * The sharder's standby-only writes wait while a dead shard's objects are still to move (moves go
 * first, so a failover is not slowed by the standby writes its ring change enqueued with it). They
 * stop waiting once no move landed for `maxMs` (and the object waited that long): a move that keeps
 * failing (a webhook or a policy refusing the patch, an object the sharder may not write) keeps
 * moves pending for good, and would otherwise hold back every standby-only write of the ring for
 * good too; moves that are slow but landing (a loaded apiserver) keep them waiting.
 */
export class StandbyDeferral {
  readonly #clock: Clock;
  readonly #maxMs: number;
  readonly #logger: Logger;
  /** Since when each waiting object has waited in a row. */
  readonly #since = new Map<string, number>();
  /** When a dead shard's object last moved. */
  #progressAt = Number.NEGATIVE_INFINITY;
  #warned = false;

  constructor(opts: { readonly clock: Clock; readonly maxMs: number; readonly logger: Logger }) {
    this.#clock = opts.clock;
    this.#maxMs = opts.maxMs;
    this.#logger = opts.logger;
  }

  /**
   * Starts a reconcile of `key`: returns since when it has waited in a row, and forgets it, so a
   * reconcile that does not wait again (it wrote, or found nothing to write) ends the row.
   */
  begin(key: string): number | undefined {
    const since = this.#since.get(key);
    if (since !== undefined) this.#since.delete(key);
    return since;
  }

  /** A dead shard's object moved (its owner's count dropped): the waits go on. */
  progress(): void {
    this.#progressAt = this.#clock.now();
  }

  /**
   * Whether `key`'s standby-only write waits once more, given `pendingOwners`, the dead shards
   * whose objects are still to move (empty: it does not wait), and `since` from {@link begin}.
   */
  waits(key: string, since: number | undefined, pendingOwners: readonly string[]): boolean {
    if (pendingOwners.length === 0) {
      this.#warned = false;
      return false;
    }
    const now = this.#clock.now();
    const start = since ?? now;
    if (now - Math.max(start, this.#progressAt) < this.#maxMs) {
      this.#since.set(key, start);
      return true;
    }
    if (!this.#warned) {
      this.#warned = true;
      this.#logger.warn(
        'objects of shards no longer in the ring are still not moved; standby-only writes stop waiting for them ' +
          '(check the sharder’s errors: a label write that keeps failing, e.g. refused by a webhook or RBAC)',
        { pendingOwners, waitedMs: now - start, sinceLastMoveMs: now - this.#progressAt },
      );
    }
    return false;
  }

  /** Forgets every waiting object (a term starts or ends). */
  clear(): void {
    this.#since.clear();
    this.#warned = false;
  }
}
