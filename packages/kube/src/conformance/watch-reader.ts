import type { WatchEvent } from '../api.ts';

/** The default bound of every wait for a watch event. */
export const WATCH_WAIT_MS = 10_000;

/**
 * Reads a watch stream one event at a time with a bounded wait per event, and stops it on
 * {@link WatchReader.close}. Every timer it starts is cleared.
 */
export class WatchReader {
  readonly #iterator: AsyncIterator<WatchEvent>;
  readonly #controller: AbortController;
  #pending: Promise<IteratorResult<WatchEvent>> | undefined;

  /** Wraps a stream; `controller` is the one whose signal the watch was opened with. */
  constructor(stream: AsyncIterable<WatchEvent>, controller: AbortController) {
    this.#iterator = stream[Symbol.asyncIterator]();
    this.#controller = controller;
  }

  /** The next event, or `'end'` when the stream ended. @throws when none arrives within `timeoutMs`, or the stream fails. */
  async next(timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent | 'end'> {
    this.#pending ??= this.#iterator.next();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([this.#pending, timeout]);
      if (result === 'timeout') throw new Error(`no watch event within ${timeoutMs} ms`);
      this.#pending = undefined;
      return result.done ? 'end' : result.value;
    } catch (err) {
      if ((err as Error).message?.startsWith('no watch event')) throw err;
      this.#pending = undefined;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next `n` events (failing if the stream ends first). */
  async take(n: number, timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    while (out.length < n) {
      const e = await this.next(timeoutMs);
      if (e === 'end')
        throw new Error(
          `watch ended after ${out.length} of ${n} events: ${JSON.stringify(out.map((x) => x.type))}`,
        );
      out.push(e);
    }
    return out;
  }

  /** Reads until an event satisfies `predicate`, returning every event read. */
  async until(predicate: (e: WatchEvent) => boolean, timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.next(timeoutMs);
      if (e === 'end')
        throw new Error(
          `watch ended before the expected event; saw ${JSON.stringify(out.map((x) => x.type))}`,
        );
      out.push(e);
      if (predicate(e)) return out;
    }
  }

  /** Stops the watch. */
  close(): void {
    this.#controller.abort();
    void this.#iterator.return?.().catch(() => {});
    void this.#pending?.catch(() => {});
  }
}
