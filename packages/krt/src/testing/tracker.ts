import type { Event, EventStream, Registration } from '../core.ts';
import { tryGetKey } from '../keys.ts';

/** Options of {@link EventTracker}. */
export interface EventTrackerOptions<T> {
  /** How an object is named in a record. Default: its krt key. */
  readonly keyOf?: ((obj: T) => string) | undefined;
  /** Register without the existing state (default: with). */
  readonly skipExisting?: boolean | undefined;
  /** Default wait timeout in ms. Default 5 000. */
  readonly timeoutMs?: number | undefined;
}

/** Resolves after pending microtasks and one macrotask turn: lets krt's handler queues drain. */
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

/**
 * Records the events of a collection as `"<type>/<key>"` strings and waits for them (ordered,
 * unordered, or by predicate), each wait bounded by a timeout.
 */
export class EventTracker<T> {
  readonly #keyOf: (obj: T) => string;
  readonly #timeoutMs: number;
  readonly #pending: string[] = [];
  readonly #all: string[] = [];
  readonly #waiters = new Set<() => void>();
  /** The tracker's registration on the stream. */
  readonly registration: Registration;

  /** Registers on `stream`. */
  constructor(stream: EventStream<T>, opts: EventTrackerOptions<T> = {}) {
    this.#keyOf = opts.keyOf ?? ((o) => tryGetKey(o) ?? JSON.stringify(o));
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.registration = stream.registerBatch((events) => this.#record(events), !opts.skipExisting);
  }

  #record(events: readonly Event<T>[]): void {
    for (const e of events) {
      const s = `${e.type}/${this.#keyOf((e.new ?? e.old)!)}`;
      this.#pending.push(s);
      this.#all.push(s);
    }
    for (const w of [...this.#waiters]) w();
  }

  /** Every event recorded so far. */
  all(): readonly string[] {
    return this.#all;
  }

  /** The events not yet consumed by a wait, and consumes them. */
  take(): string[] {
    return this.#pending.splice(0);
  }

  /** The events not yet consumed, without consuming them. */
  peek(): readonly string[] {
    return this.#pending;
  }

  /** Waits until the unconsumed events start with `expected` (in order) and consumes them. */
  waitOrdered(expected: readonly string[], timeoutMs = this.#timeoutMs): Promise<void> {
    return this.#wait(
      () => {
        if (this.#pending.length < expected.length) return false;
        for (let i = 0; i < expected.length; i++) if (this.#pending[i] !== expected[i]) return 'mismatch';
        this.#pending.splice(0, expected.length);
        return true;
      },
      () => `expected events ${JSON.stringify(expected)} in order, have ${JSON.stringify(this.#pending)}`,
      timeoutMs,
    );
  }

  /** Waits until the unconsumed events contain all of `expected` (any order) and consumes those. */
  waitUnordered(expected: readonly string[], timeoutMs = this.#timeoutMs): Promise<void> {
    return this.#wait(
      () => {
        const rest = [...this.#pending];
        for (const e of expected) {
          const i = rest.indexOf(e);
          if (i < 0) return false;
          rest.splice(i, 1);
        }
        for (const e of expected) this.#pending.splice(this.#pending.indexOf(e), 1);
        return true;
      },
      () => `expected events ${JSON.stringify(expected)} in any order, have ${JSON.stringify(this.#pending)}`,
      timeoutMs,
    );
  }

  /** Waits until `predicate` holds for the recorded events (all of them). */
  waitFor(
    predicate: (all: readonly string[]) => boolean,
    what = 'condition',
    timeoutMs = this.#timeoutMs,
  ): Promise<void> {
    return this.#wait(
      () => predicate(this.#all),
      () => `timed out waiting for ${what}; events: ${JSON.stringify(this.#all)}`,
      timeoutMs,
    );
  }

  /** Lets queued events arrive, then asserts none is unconsumed. */
  async expectEmpty(): Promise<void> {
    await settle(2);
    if (this.#pending.length > 0)
      throw new Error(`expected no more events, have ${JSON.stringify(this.#pending)}`);
  }

  /** Unregisters. */
  stop(): void {
    this.registration.remove();
  }

  #wait(check: () => boolean | 'mismatch', describe: () => string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const attempt = (): void => {
        const r = check();
        if (r === true) {
          done();
          resolve();
        } else if (r === 'mismatch') {
          done();
          reject(new Error(describe()));
        }
      };
      const done = (): void => {
        this.#waiters.delete(attempt);
        if (timer !== undefined) clearTimeout(timer);
      };
      this.#waiters.add(attempt);
      timer = setTimeout(() => {
        done();
        reject(new Error(describe()));
      }, timeoutMs);
      attempt();
    });
  }
}
