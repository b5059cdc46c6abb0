import { inspect, isDeepStrictEqual } from 'node:util';
import { extractTombstone, type KubeObject, type ResourceEventHandler } from '@kubeloom/kube';
import { ClientTestError } from './client-test-error.ts';

/** Options of {@link createEventTracker}. */
export interface EventTrackerOptions {
  /** How long one wait may take before it fails, in ms. Default 30 000: generous, so a loaded machine does not fail a test; a wait that succeeds returns at once. */
  readonly timeoutMs?: number | undefined;
}

interface Waiter<E> {
  resolve(e: E): void;
}

const show = (v: unknown): string =>
  typeof v === 'string' ? v : inspect(v, { depth: 4, breakLength: Infinity });

/**
 * Records events (usually `add/<name>`, `update/<name>`, `delete/<name>` from
 * {@link trackerHandler}) and lets a test wait for them (Istio's `assert.Tracker`). Every wait is
 * bounded by `timeoutMs` and fails with a {@link ClientTestError} listing what was expected and
 * what arrived; waits consume the events they match. `@kubeloom/krt/testing`'s collection
 * tracker has this shape too.
 */
export interface EventTracker<E = string> {
  /** Records an event (resolves a waiting call at once). */
  record(event: E): void;
  /** The events recorded and not yet consumed by a wait. */
  events(): readonly E[];
  /** Every event recorded so far, consumed or not. */
  all(): readonly E[];
  /** Drops every event not yet consumed. */
  clear(): void;
  /**
   * Waits for exactly these events in this order, then checks that nothing else is pending.
   * @throws ClientTestError on the first mismatch, a timeout, or extra events.
   */
  waitOrdered(...expected: E[]): Promise<void>;
  /**
   * Waits for exactly these events in any order, then checks that nothing else is pending.
   * @throws ClientTestError on an unexpected event, a timeout, or extra events.
   */
  waitUnordered(...expected: E[]): Promise<void>;
  /**
   * Waits for the next event and checks it with `predicate`; returns it.
   * @throws ClientTestError when it does not match, or on a timeout.
   */
  waitFor(predicate: (event: E) => boolean, description?: string): Promise<E>;
  /**
   * Lets events already on their way arrive (two turns of the event loop), then checks that
   * none is pending.
   * @throws ClientTestError when events are pending.
   */
  empty(): Promise<void>;
}

/**
 * Creates an empty {@link EventTracker}.
 *
 * @example
 * {@includeCode ../doc-examples.test.ts#createEventTracker}
 */
export function createEventTracker<E = string>(options: EventTrackerOptions = {}): EventTracker<E> {
  return new Tracker<E>(options);
}

/** Resolves after pending microtasks and `turns` macrotask turns: lets queued deliveries drain. */
export function settle(turns = 1): Promise<void> {
  return new Promise<void>((resolve) => {
    let n = turns;
    const step = (): void => {
      if (--n <= 0) resolve();
      else setImmediate(step);
    };
    setImmediate(step);
  });
}

class Tracker<E> implements EventTracker<E> {
  readonly #timeoutMs: number;
  readonly #pending: E[] = [];
  readonly #all: E[] = [];
  readonly #waiters: Waiter<E>[] = [];

  constructor(options: EventTrackerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  record(event: E): void {
    this.#all.push(event);
    const w = this.#waiters.shift();
    if (w) w.resolve(event);
    else this.#pending.push(event);
  }

  events(): readonly E[] {
    return [...this.#pending];
  }

  all(): readonly E[] {
    return [...this.#all];
  }

  clear(): void {
    this.#pending.length = 0;
  }

  async empty(): Promise<void> {
    await settle(2);
    this.#assertEmpty();
  }

  #assertEmpty(): void {
    if (this.#pending.length > 0) {
      throw new ClientTestError(`expected no more events, got: ${this.#pending.map(show).join(', ')}`);
    }
  }

  /** The next event, waiting until `deadline`. */
  #next(deadline: number, what: () => string): Promise<E> {
    if (this.#pending.length > 0) return Promise.resolve(this.#pending.shift() as E);
    return new Promise<E>((resolve, reject) => {
      const waiter: Waiter<E> = {
        resolve: (ev) => {
          clearTimeout(timer);
          resolve(ev);
        },
      };
      const timer = setTimeout(
        () => {
          const i = this.#waiters.indexOf(waiter);
          if (i !== -1) this.#waiters.splice(i, 1);
          reject(new ClientTestError(`timed out after ${this.#timeoutMs} ms waiting for ${what()}`));
        },
        Math.max(0, deadline - Date.now()),
      );
      this.#waiters.push(waiter);
    });
  }

  async waitOrdered(...expected: E[]): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    const got: E[] = [];
    for (const want of expected) {
      const e = await this.#next(
        deadline,
        () =>
          `${show(want)} (expected in order: ${expected.map(show).join(', ')}; got so far: ${got.map(show).join(', ') || 'nothing'})`,
      );
      got.push(e);
      if (!isDeepStrictEqual(e, want)) {
        throw new ClientTestError(
          `expected events in order ${expected.map(show).join(', ')}; event #${got.length} was ${show(e)} instead of ${show(want)}`,
        );
      }
    }
    this.#assertEmpty();
  }

  async waitUnordered(...expected: E[]): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    const left = [...expected];
    while (left.length > 0) {
      const e = await this.#next(
        deadline,
        () => `${left.map(show).join(', ')} (expected in any order: ${expected.map(show).join(', ')})`,
      );
      const i = left.findIndex((want) => isDeepStrictEqual(e, want));
      if (i === -1) {
        throw new ClientTestError(
          `unexpected event ${show(e)} while waiting for ${left.map(show).join(', ')} (in any order)`,
        );
      }
      left.splice(i, 1);
    }
    this.#assertEmpty();
  }

  async waitFor(
    predicate: (event: E) => boolean,
    description = 'an event matching the predicate',
  ): Promise<E> {
    const e = await this.#next(Date.now() + this.#timeoutMs, () => description);
    if (!predicate(e)) throw new ClientTestError(`event ${show(e)} is not ${description}`);
    return e;
  }
}

/**
 * An event handler that records `add/<name>`, `update/<name>` and `delete/<name>` (tombstones
 * unwrapped) into `tracker` (Istio's `clienttest.TrackerHandler`).
 */
export function trackerHandler<T extends KubeObject>(tracker: EventTracker<string>): ResourceEventHandler<T> {
  return {
    onAdd: (obj) => tracker.record(`add/${obj.metadata?.name}`),
    onUpdate: (_old, obj) => tracker.record(`update/${obj.metadata?.name}`),
    onDelete: (obj) => tracker.record(`delete/${extractTombstone(obj).metadata?.name}`),
  };
}
