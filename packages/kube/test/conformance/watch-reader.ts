import type { WatchEvent } from '../../src/api.ts';

/**
 * The default bound of every wait for a watch event: waitFor's 30 s, since the real target is the
 * apiserver a whole loaded run shares (no wait here expects silence, so a long bound costs nothing).
 */
const WATCH_WAIT_MS = 30_000;

/**
 * Reads a watch stream with bounded waits: {@link WatchReader.next} bounds one read, the
 * multi-event reads bound their total. Stops the stream on {@link WatchReader.close}; every timer
 * it starts is cleared.
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

  /** The next `n` events, all within `timeoutMs` in total (failing if the stream ends first). */
  async take(n: number, timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const out: WatchEvent[] = [];
    while (out.length < n) {
      const e = await this.#nextBefore(deadline, timeoutMs, out);
      if (e === 'end')
        throw new Error(
          `watch ended after ${out.length} of ${n} events: ${JSON.stringify(out.map((x) => x.type))}`,
        );
      out.push(e);
    }
    return out;
  }

  /** Reads until an event satisfies `predicate`, within `timeoutMs` in total, returning every event read. */
  async until(predicate: (e: WatchEvent) => boolean, timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.#nextBefore(deadline, timeoutMs, out);
      if (e === 'end')
        throw new Error(
          `watch ended before the expected event; saw ${JSON.stringify(out.map((x) => x.type))}`,
        );
      out.push(e);
      if (predicate(e)) return out;
    }
  }

  /** Reads every event until the stream ends, within `timeoutMs` in total. */
  async rest(timeoutMs = WATCH_WAIT_MS): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.#nextBefore(deadline, timeoutMs, out);
      if (e === 'end') return out;
      out.push(e);
    }
  }

  async #nextBefore(
    deadline: number,
    total: number,
    seen: readonly WatchEvent[],
  ): Promise<WatchEvent | 'end'> {
    try {
      return await this.next(Math.max(0, deadline - Date.now()));
    } catch (err) {
      if ((err as Error).message?.startsWith('no watch event'))
        throw new Error(
          `no watch event within ${total} ms in total; saw ${JSON.stringify(seen.map((x) => x.type))}`,
        );
      throw err;
    }
  }

  /** Stops the watch. */
  close(): void {
    this.#controller.abort();
    void this.#iterator.return?.().catch(() => {});
    void this.#pending?.catch(() => {});
  }
}
