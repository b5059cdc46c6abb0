import { type WatchEvent, WatchIdleTimeoutError, WatchResetError } from '../api.ts';
import type { KubeObject } from '../object.ts';
import { LineDecoder } from './line-decoder.ts';
import type {
  OpenWatchConnection,
  WatchConnection,
  WatchConnectionEvents,
  WatchResponseHead,
} from './watch-connection.ts';
import { decodeWatchLine } from './watch-events.ts';

/** A watch request, prepared by the transport. */
export interface WatchStreamRequest {
  /** Sends the request: through node:https, or as HTTP/1.1 straight over TLS. */
  readonly open: OpenWatchConnection;
  /** Names the watch in errors, e.g. `watch configmaps in ns`. */
  readonly context: string;
  /** Ends the watch with {@link WatchIdleTimeoutError} after this long without a byte. */
  readonly idleTimeoutMs?: number | undefined;
  /** Aborting ends the watch quietly (the promise resolves). */
  readonly signal?: AbortSignal | undefined;
  /** The error of a response that is not a 2xx, from its status, headers and body. */
  readonly errorFrom: (head: WatchResponseHead, body: string) => Error;
  /** Maps a failure before the stream opened (a connection error, …) to what is thrown. */
  readonly transportError: (err: unknown) => unknown;
}

/** Where a watch stream's events go. */
export interface WatchStreamSink<T extends KubeObject> {
  /** Each event, synchronously as its chunk is decoded; returning true ends the watch. */
  readonly onEvent: (event: WatchEvent<T>) => boolean;
  /** Asked after each chunk: a promise pauses reading until it settles (backpressure). */
  readonly afterChunk?: (() => Promise<void> | undefined) | undefined;
}

/** A failure of the sink itself: rejected as is, never taken for a reset of the stream. */
class SinkFailure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/**
 * Runs one watch request and pushes its events to `sink` from the connection's read callback: no
 * promise, microtask or iterator step per chunk or event. Settles when the watch ends: resolves
 * when the server closed the stream, the sink stopped it or the signal aborted; rejects with an
 * `ApiError` for a refused request, {@link WatchIdleTimeoutError} on silence,
 * {@link WatchResetError} when the open stream broke, or `transportError`'s mapping of a failure
 * to connect. The idle timeout stamps a time per network read; its one timer re-arms itself for
 * the rest of the window instead of being refreshed per read.
 */
export function streamWatch<T extends KubeObject>(
  request: WatchStreamRequest,
  sink: WatchStreamSink<T>,
): Promise<void> {
  const { context, idleTimeoutMs: idleMs, signal } = request;
  signal?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    let connection: WatchConnection | undefined;
    let streaming = false;
    let settled = false;
    let events = 0;
    let idleTimer: NodeJS.Timeout | undefined;
    let lastData = performance.now();
    /** The status and body of a response that is not a 2xx. */
    let refused: { head: WatchResponseHead; body: Buffer[] } | undefined;
    const decoder = new LineDecoder();

    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      if (idleTimer) clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
      connection?.destroy();
      if (err === undefined || signal?.aborted) resolve();
      else if (err instanceof SinkFailure) reject(err.error);
      // Once the stream is open, a transport error is a reset of that stream, not an unreachable server.
      else if (streaming && !(err instanceof WatchIdleTimeoutError) && (err as Error)?.name !== 'AbortError')
        reject(new WatchResetError(context, err, events));
      else reject(request.transportError(err));
    };
    const onAbort = (): void => finish();
    const onIdleTimer = (): void => {
      const idle = performance.now() - lastData;
      if (idleMs !== undefined && idle < idleMs) {
        idleTimer = setTimeout(onIdleTimer, Math.max(1, Math.ceil(idleMs - idle)));
        idleTimer.unref();
        return;
      }
      idleTimer = undefined;
      finish(new WatchIdleTimeoutError(idleMs ?? 0));
    };
    const onLine = (line: string): boolean => {
      if (settled) return true;
      events++;
      let stop: boolean;
      try {
        stop = sink.onEvent(decodeWatchLine<T>(line));
      } catch (err) {
        finish(new SinkFailure(err));
        return true;
      }
      if (stop) finish();
      return stop;
    };
    const handlers: WatchConnectionEvents = {
      head: (head) => {
        lastData = performance.now();
        if (head.statusCode < 200 || head.statusCode >= 300) refused = { head, body: [] };
        else streaming = true;
      },
      body: (bytes) => {
        if (settled) return true;
        if (refused) {
          refused.body.push(bytes);
          return false;
        }
        try {
          return decoder.push(bytes, onLine);
        } catch (err) {
          finish(err);
          return true;
        }
      },
      readEnd: () => {
        lastData = performance.now();
        if (settled || !streaming) return;
        const wait = sink.afterChunk?.();
        if (wait === undefined) return;
        connection?.pause();
        wait.then(
          () => {
            if (!settled) connection?.resume();
          },
          (err: unknown) => finish(new SinkFailure(err)),
        );
      },
      end: () => {
        if (settled) return;
        if (refused) {
          finish(request.errorFrom(refused.head, Buffer.concat(refused.body).toString('utf8')));
          return;
        }
        decoder.end(onLine);
        finish();
      },
      fail: finish,
    };

    connection = request.open(handlers);
    if (idleMs !== undefined) {
      idleTimer = setTimeout(onIdleTimer, idleMs);
      idleTimer.unref();
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
