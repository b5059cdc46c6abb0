import type { IncomingMessage } from 'node:http';
import { WatchIdleTimeoutError, WatchResetError } from '../api.ts';
import { ConnectionError } from '../connection-error.ts';
import { ApiError, apiErrorFromStatus, type Status } from '../errors.ts';

/** The typed error of a refused request: its Status body (or text) and `Retry-After`, via {@link apiErrorFromStatus}. */
export function apiErrorFromResponse(
  res: Pick<IncomingMessage, 'statusCode'> & { readonly headers: Readonly<IncomingMessage['headers']> },
  text: string,
  context: string,
): ApiError {
  const status = res.statusCode ?? 0;
  let parsed: Status | undefined;
  try {
    const json = JSON.parse(text) as Status;
    if (json && typeof json === 'object') parsed = json;
  } catch {
    parsed = text ? { message: text.slice(0, 500) } : undefined;
  }
  const retry = res.headers['retry-after'];
  return apiErrorFromStatus(status, parsed, {
    context,
    retryAfterHeader: Array.isArray(retry) ? retry[0] : retry,
  });
}

/**
 * What a transport failure is thrown as: typed errors and aborts as they are, anything else (a
 * refused connection, a reset, a TLS failure) as a {@link ConnectionError} naming the server.
 */
export function wrapTransport(err: unknown, server: string, context: string): unknown {
  if (
    err instanceof ApiError ||
    err instanceof WatchIdleTimeoutError ||
    err instanceof WatchResetError ||
    err instanceof ConnectionError
  )
    return err;
  const name = (err as Error)?.name;
  if (name === 'AbortError') return err;
  return new ConnectionError(server, context, err);
}
