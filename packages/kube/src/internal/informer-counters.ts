import type { InformerHealth } from '../informer.ts';
import type { Logger } from '../logger.ts';
import { serializeError } from '../serialize-error.ts';

/** How many failures of one index function are logged; later ones are only counted. */
const INDEX_ERRORS_LOGGED_PER_INDEX = 10;

/** The counters of {@link InformerHealth}. */
export type InformerCounts = Pick<
  InformerHealth,
  | 'restarts'
  | 'lists'
  | 'listAttempts'
  | 'errors'
  | 'malformedLines'
  | 'unknownEvents'
  | 'handlerErrors'
  | 'idleTimeouts'
  | 'rejectedObjects'
  | 'lastError'
>;

/**
 * An informer's failure and progress counters, and the bounded logging of what its user's code
 * (handlers, index functions) throws. The engine counts; `health()` reads {@link counts}.
 */
export class InformerCounters {
  restarts = 0;
  lists = 0;
  listAttempts = 0;
  errors = 0;
  malformed = 0;
  unknown = 0;
  handlerErrors = 0;
  idleTimeouts = 0;
  rejected = 0;
  lastError: string | undefined;
  readonly #log: Logger;
  readonly #indexErrorsLogged = new Map<string, number>();

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Counts an error and keeps its message as the last one. */
  recordError(err: unknown): void {
    this.errors++;
    this.lastError = err instanceof Error ? err.message : String(err);
  }

  /** A handler threw: counted and logged; the other handlers still run. */
  handlerThrew(callback: string, err: unknown): void {
    this.handlerErrors++;
    this.errors++;
    this.lastError = `${callback} handler threw: ${err instanceof Error ? err.message : String(err)}`;
    this.#log.error('event handler threw; other handlers still run', {
      handler: callback,
      err: serializeError(err),
    });
  }

  /** An object could not be ingested (not an object, no name, a throwing transform): skipped. */
  objectRejected(err: unknown): void {
    this.rejected++;
    this.errors++;
    this.lastError = `object skipped: ${err instanceof Error ? err.message : String(err)}`;
  }

  /**
   * An index function failed on an object: the caller's bug. Logged (a bounded number of times
   * per index) and counted.
   */
  indexFailed(index: string, key: string, err: unknown): void {
    this.errors++;
    const message = err instanceof Error ? err.message : String(err);
    this.lastError = `index "${index}" failed for ${key}: ${message}`;
    const logged = this.#indexErrorsLogged.get(index) ?? 0;
    if (logged >= INDEX_ERRORS_LOGGED_PER_INDEX) return;
    this.#indexErrorsLogged.set(index, logged + 1);
    this.#log.error(
      'an index function threw; the object is left out of that index (fix the index function)',
      {
        index,
        key,
        err: serializeError(err),
        ...(logged + 1 === INDEX_ERRORS_LOGGED_PER_INDEX
          ? { note: 'further failures of this index are counted in health().indexErrors, not logged' }
          : {}),
      },
    );
  }

  /** The counters as {@link InformerHealth} reports them. */
  counts(): InformerCounts {
    return {
      restarts: this.restarts,
      lists: this.lists,
      listAttempts: this.listAttempts,
      errors: this.errors,
      malformedLines: this.malformed,
      unknownEvents: this.unknown,
      handlerErrors: this.handlerErrors,
      idleTimeouts: this.idleTimeouts,
      rejectedObjects: this.rejected,
      lastError: this.lastError,
    };
  }
}
