import type { WatchEvent } from '../../api.ts';

/**
 * An unbounded, single-consumer queue of watch events that is also an async iterator. The
 * producer pushes, ends or fails it; `onClose` runs once when it stops for any reason
 * (producer end, consumer `return`/`break`, failure), to release timers and listeners.
 */
export class WatchChannel implements AsyncIterableIterator<WatchEvent> {
  #buffer: WatchEvent[] = [];
  #waiting: { resolve: (r: IteratorResult<WatchEvent>) => void; reject: (e: unknown) => void } | undefined;
  #ended = false;
  #error: unknown;
  #closed = false;
  readonly #onClose: () => void;

  /** Creates a channel; `onClose` runs exactly once when it stops. */
  constructor(onClose: () => void) {
    this.#onClose = onClose;
  }

  /** True once the stream ended, failed or was returned by the consumer (no event is queued after that). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Queues an event (ignored once ended). */
  push(event: WatchEvent): void {
    if (this.#ended) return;
    if (this.#waiting) {
      const w = this.#waiting;
      this.#waiting = undefined;
      w.resolve({ value: event, done: false });
    } else {
      this.#buffer.push(event);
    }
  }

  /** Ends the stream after the buffered events. */
  end(): void {
    this.#finish(undefined);
  }

  /** Ends the stream with an error, raised after the buffered events. */
  fail(error: unknown): void {
    this.#finish(error ?? new Error('watch failed'));
  }

  #finish(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#close();
    if (this.#waiting && this.#buffer.length === 0) {
      const w = this.#waiting;
      this.#waiting = undefined;
      if (error !== undefined) {
        this.#error = undefined;
        w.reject(error);
      } else {
        w.resolve({ value: undefined, done: true });
      }
    }
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
  }

  /** The next event. */
  next(): Promise<IteratorResult<WatchEvent>> {
    const value = this.#buffer.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.#ended) {
      if (this.#error !== undefined) {
        const e = this.#error;
        this.#error = undefined;
        return Promise.reject(e);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** Stops the stream from the consumer side (`break` in `for await`). */
  return(): Promise<IteratorResult<WatchEvent>> {
    this.#buffer = [];
    this.#error = undefined;
    this.#finish(undefined);
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Itself. */
  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    return this;
  }
}
