import type { WatchEvent } from '../api.ts';
import type { KubeObject } from '../object.ts';
import type { WatchStreamSink } from './watch-stream.ts';

/** Starts a push watch with `sink`, cancelled by `signal`; settles when the watch ends. */
export type StartWatch<T extends KubeObject> = (
  sink: WatchStreamSink<T>,
  signal: AbortSignal,
) => Promise<void>;

/**
 * A push watch as an async iterable of events. The watch starts at the first `next()`; reading
 * pauses while a chunk's events wait to be consumed (backpressure), and breaking out of the loop
 * (or `return()`) closes it. Events that arrived before the end or a failure are delivered
 * first; then the iteration ends, or throws what the watch rejected with.
 */
export function watchIterable<T extends KubeObject>(start: StartWatch<T>): AsyncIterable<WatchEvent<T>> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
      const cancel = new AbortController();
      let queue: WatchEvent<T>[] = [];
      let head = 0;
      let started = false;
      let ended = false;
      let failed = false;
      let failure: unknown;
      let wake: (() => void) | undefined;
      let drained: (() => void) | undefined;
      const notify = (): void => {
        const w = wake;
        wake = undefined;
        w?.();
      };
      const sink: WatchStreamSink<T> = {
        onEvent: (event) => {
          queue.push(event);
          notify();
          return false;
        },
        afterChunk: () =>
          head < queue.length
            ? new Promise<void>((resolve) => {
                drained = resolve;
              })
            : undefined,
      };
      const run = (): void => {
        started = true;
        start(sink, cancel.signal).then(
          () => {
            ended = true;
            notify();
          },
          (err: unknown) => {
            failed = true;
            failure = err;
            notify();
          },
        );
      };
      return {
        async next(): Promise<IteratorResult<WatchEvent<T>>> {
          if (!started) run();
          for (;;) {
            if (head < queue.length) {
              const value = queue[head++]!;
              if (head === queue.length) {
                queue = [];
                head = 0;
                const d = drained;
                drained = undefined;
                d?.();
              }
              return { value, done: false };
            }
            if (failed) {
              failed = false;
              ended = true;
              throw failure;
            }
            if (ended) return { value: undefined, done: true };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<WatchEvent<T>>> {
          ended = true;
          failed = false;
          queue = [];
          head = 0;
          cancel.abort();
          notify();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
