import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import { type WatchEvent, WatchIdleTimeoutError, WatchResetError } from '../api.ts';
import type { KubeObject } from '../object.ts';
import { LineDecoder } from './line-decoder.ts';
import { decodeWatchLine } from './watch-events.ts';

/** An HTTPS watch request, prepared (URL, headers, agent) by the transport. */
export interface WatchStreamRequest {
  readonly url: URL;
  readonly options: https.RequestOptions;
  /** Names the watch in errors, e.g. `watch configmaps in ns`. */
  readonly context: string;
  /** Ends the watch with {@link WatchIdleTimeoutError} after this long without a byte. */
  readonly idleTimeoutMs?: number | undefined;
  /** Aborting ends the watch quietly (the promise resolves). */
  readonly signal?: AbortSignal | undefined;
  /** The error of a response that is not a 2xx, from the response and its body. */
  readonly errorFrom: (res: IncomingMessage, body: string) => Error;
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
 * Runs one watch request and pushes its events to `sink` from the socket's data callback: no
 * promise, microtask or iterator step per chunk or event. Settles when the watch ends: resolves
 * when the server closed the stream, the sink stopped it or the signal aborted; rejects with an
 * `ApiError` for a refused request, {@link WatchIdleTimeoutError} on silence,
 * {@link WatchResetError} when the open stream broke, or `transportError`'s mapping of a failure
 * to connect. The idle timeout stamps a time per chunk; its one timer re-arms itself for the rest
 * of the window instead of being refreshed per chunk.
 */
export function streamWatch<T extends KubeObject>(
  request: WatchStreamRequest,
  sink: WatchStreamSink<T>,
): Promise<void> {
  const { url, options, context, idleTimeoutMs: idleMs, signal } = request;
  signal?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let res: IncomingMessage | undefined;
    let streaming = false;
    let settled = false;
    let events = 0;
    let idleTimer: NodeJS.Timeout | undefined;
    let lastData = performance.now();
    const req: ClientRequest = https.request(url, { ...options, signal: controller.signal });

    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      if (idleTimer) clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
      if (!controller.signal.aborted && !res?.complete) controller.abort();
      if (err === undefined || signal?.aborted) resolve();
      else if (err instanceof SinkFailure) reject(err.error);
      // Once the stream is open, a transport error is a reset of that stream, not an unreachable server.
      else if (streaming && !(err instanceof WatchIdleTimeoutError) && (err as Error)?.name !== 'AbortError')
        reject(new WatchResetError(context, err, events));
      else reject(request.transportError(err));
    };
    const onIdleTimer = (): void => {
      const idle = performance.now() - lastData;
      if (idleMs !== undefined && idle < idleMs) {
        idleTimer = setTimeout(onIdleTimer, Math.max(1, Math.ceil(idleMs - idle)));
        idleTimer.unref();
        return;
      }
      idleTimer = undefined;
      const err = new WatchIdleTimeoutError(idleMs ?? 0);
      finish(err);
      res?.destroy(err);
      req.destroy(err);
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
    const onResponse = (r: IncomingMessage): void => {
      res = r;
      lastData = performance.now();
      r.on('error', finish);
      const status = r.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => finish(request.errorFrom(r, Buffer.concat(chunks).toString('utf8'))));
        return;
      }
      streaming = true;
      const decoder = new LineDecoder();
      r.on('data', (chunk: Buffer) => {
        lastData = performance.now();
        try {
          if (decoder.push(chunk, onLine)) return;
        } catch (err) {
          finish(err);
          return;
        }
        const wait = sink.afterChunk?.();
        if (wait === undefined) return;
        r.pause();
        wait.then(
          () => {
            if (!settled) r.resume();
          },
          (err: unknown) => finish(new SinkFailure(err)),
        );
      });
      r.on('end', () => {
        decoder.end(onLine);
        finish();
      });
      r.on('close', () => {
        if (!r.complete) finish(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
    };

    if (idleMs !== undefined) {
      idleTimer = setTimeout(onIdleTimer, idleMs);
      idleTimer.unref();
    }
    req.once('response', onResponse);
    req.on('error', finish);
    req.end();
  });
}
