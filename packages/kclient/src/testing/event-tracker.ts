import { inspect, isDeepStrictEqual } from 'node:util';
import { extractTombstone, type KubeObject, type ResourceEventHandler } from '@kubeloom/kube';
import { ClientTestError } from './client-test-error.ts';

/** Options of {@link EventTracker}. */
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
 * {@link trackerHandler}) and lets a test wait for them. Every wait is bounded and fails with
 * a message listing what was expected and what arrived; waits consume the events they match.
 */
export class EventTracker<E = string> {
  readonly #timeoutMs: number;
  readonly #pending: E[] = [];
  readonly #waiters: Waiter<E>[] = [];

  /** Creates an empty tracker. */
  constructor(options: EventTrackerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Records an event (resolves a waiting call at once). */
  record(event: E): void {
    const w = this.#waiters.shift();
    if (w) w.resolve(event);
    else this.#pending.push(event);
  }

  /** The events recorded and not yet consumed. */
  events(): readonly E[] {
    return [...this.#pending];
  }

  /** Drops every pending event. */
  clear(): void {
    this.#pending.length = 0;
  }

  /** @throws ClientTestError when events are pending. */
  empty(): void {
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

  /**
   * Waits for exactly these events in this order, then checks that nothing else is pending.
   * @throws ClientTestError on the first mismatch, a timeout, or extra events.
   */
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
    this.empty();
  }

  /**
   * Waits for exactly these events in any order, then checks that nothing else is pending.
   * @throws ClientTestError on an unexpected event, a timeout, or extra events.
   */
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
    this.empty();
  }

  /**
   * Waits for the next event and checks it with `predicate`; returns it.
   * @throws ClientTestError when it does not match, or on a timeout.
   */
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
