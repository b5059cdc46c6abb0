import { apiErrorFromStatus } from '../errors.ts';
import type { BodyPeek } from './list-continue.ts';
import { ResponseBody, responseValue } from './response-body.ts';
import { wrapTransport } from './transport-errors.ts';
import {
  closedEarly,
  type OpenWatchConnection,
  type WatchConnection,
  type WatchResponseHead,
} from './watch-connection.ts';

/** A request sent over a connection of its own and read whole ({@link requestOverConnection}). */
export interface ConnectionRequest {
  /** Sends the request (e.g. {@link PageConnections.open}) and reports its response. */
  readonly open: OpenWatchConnection;
  /** What is asked, e.g. `list configmaps in ns`, for errors. */
  readonly context: string;
  /** The server's origin, for transport errors. */
  readonly server: string;
  /** The request fails with a 504 Timeout once this long passes with no byte arriving, in ms. */
  readonly idleTimeoutMs: number;
  /** Cancels the request: it rejects with an `AbortError` and its connection closes. */
  readonly signal?: AbortSignal | undefined;
  /** Shown a successful response's body as it arrives and whole. */
  readonly peek?: BodyPeek | undefined;
}

/**
 * Sends a request over a connection outside node:https, reads the response whole and resolves its
 * JSON, settling as the client's node:https requests do: the status's typed error, a 504 after
 * `idleTimeoutMs` without a byte, an `AbortError` on `signal`, a transport failure wrapped with
 * the server and request named, and {@link ResponseTooLargeError} for a body longer than a string.
 * A connection not read to the end of its response is closed when the request settles.
 */
export function requestOverConnection(request: ConnectionRequest): Promise<unknown> {
  const { open, context, server, idleTimeoutMs, signal, peek } = request;
  return new Promise<unknown>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    let connection: WatchConnection | undefined;
    let head: WatchResponseHead | undefined;
    let body: ResponseBody | undefined;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (err: unknown): void => {
      if (!settle()) return;
      connection?.destroy();
      reject(err);
    };
    // The idle timeout: each read stamps the time, and the one timer re-arms itself for what is
    // left (a timer refreshed per read cost more than the reads' own work).
    let lastRead = performance.now();
    const expire = (): void => {
      const idle = performance.now() - lastRead;
      if (idle < idleTimeoutMs) {
        timer = setTimeout(expire, idleTimeoutMs - idle);
        return;
      }
      fail(
        apiErrorFromStatus(
          504,
          { reason: 'Timeout', message: `no response within ${idleTimeoutMs} ms` },
          { context },
        ),
      );
    };
    let timer = setTimeout(expire, idleTimeoutMs);
    const onAbort = (): void => fail(abortError(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      connection = open({
        head: (h) => {
          lastRead = performance.now();
          head = h;
          body = new ResponseBody(h.statusCode >= 200 && h.statusCode < 300 ? peek : undefined);
        },
        body: (bytes) => {
          lastRead = performance.now();
          body?.push(bytes);
          return false;
        },
        readEnd: () => {},
        end: () => {
          if (settled) return;
          if (!head || !body) return fail(wrapTransport(closedEarly(), server, context));
          let value: unknown;
          try {
            value = responseValue(head, body.text(context), { context, peek });
          } catch (err) {
            fail(err);
            return;
          }
          if (settle()) resolve(value);
        },
        fail: (err) => fail(wrapTransport(err, server, context)),
      });
    } catch (err) {
      fail(err);
    }
    if (settled) connection?.destroy();
  });
}

/** The error of a request cancelled by its signal, as node's own (`AbortError`, `ABORT_ERR`). */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });
}
