import { isTooManyRequests, toApiError } from '../errors.ts';

/**
 * How many watches in a row may fail at the same resourceVersion before the informer relists.
 * Counted: error responses to the watch request (except 410, which relists at once, and 429),
 * `ERROR` events and undecodable data. Not counted: connection failures, resets of an open watch
 * and idle timeouts, which say nothing about the resourceVersion (relisting after each of those
 * would turn every API server restart into a LIST storm).
 */
export const WATCH_FAILURES_BEFORE_RELIST = 5;

/** True for a watch failure that may be about its resourceVersion: the server answered with an error (not 429). */
export function isServerWatchFailure(err: unknown): boolean {
  return toApiError(err) !== undefined && !isTooManyRequests(err);
}

/**
 * Counts consecutive watch failures at one resourceVersion, so that a watch that cannot get past
 * a point (an event the server cannot encode, data the client cannot decode) ends in a relist
 * instead of retrying forever.
 */
export class WatchFailures {
  #count = 0;
  #rv: string | undefined;

  /**
   * Records a failure at `rv`; true when it is the {@link WATCH_FAILURES_BEFORE_RELIST}-th in a
   * row there (the count then starts over). A failure at another resourceVersion starts a new count.
   */
  failedAt(rv: string | undefined): boolean {
    if (this.#rv !== rv) {
      this.#rv = rv;
      this.#count = 0;
    }
    this.#count++;
    if (this.#count < WATCH_FAILURES_BEFORE_RELIST) return false;
    this.#count = 0;
    return true;
  }

  /** Forgets the failures (after a completed list). */
  reset(): void {
    this.#count = 0;
  }
}
