/**
 * Kubernetes `Status` objects (`metav1.Status`) as the apiserver writes them for failures, so
 * that clients parse injected errors exactly like real ones.
 */

import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange.ts';

const REASONS: Readonly<Record<number, readonly [reason: string, message: string]>> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'Unauthorized'],
  403: ['Forbidden', 'forbidden'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  409: [
    'Conflict',
    'the object has been modified; please apply your changes to the latest version and try again',
  ],
  410: ['Expired', 'too old resource version'],
  422: ['Invalid', 'the object is invalid'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected by the fault proxy'],
  502: ['InternalError', 'the fault proxy could not reach the apiserver'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted'],
};

/** Options for {@link statusObject}. */
export interface StatusFields {
  readonly reason?: string;
  readonly message?: string;
  readonly retryAfterSeconds?: number;
}

/** A failure `Status` for `code`, with the apiserver's usual reason and message unless given. */
export function statusObject(code: number, fields: StatusFields = {}): Record<string, unknown> {
  const [reason, message] = REASONS[code] ?? ['', `injected HTTP ${code}`];
  const details: Record<string, unknown> = {};
  if (fields.retryAfterSeconds !== undefined) details.retryAfterSeconds = fields.retryAfterSeconds;
  const text = fields.message ?? message;
  if (code === 500) details.causes = [{ message: text }];
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: text,
    reason: fields.reason ?? reason,
    ...(Object.keys(details).length > 0 ? { details } : {}),
    code,
  };
}

/** Answers `exchange` locally with a failure `Status` for `status` (and `Retry-After` when given). */
export async function sendStatus(exchange: Exchange, status: number, fields: StatusFields): Promise<void> {
  const headers: OutgoingHttpHeaders = {
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
  };
  if (fields.retryAfterSeconds !== undefined) headers['retry-after'] = String(fields.retryAfterSeconds);
  await exchange.respond(status, headers, JSON.stringify(statusObject(status, fields)));
}
