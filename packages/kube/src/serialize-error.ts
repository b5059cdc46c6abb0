import { ApiError, toApiError } from './errors.ts';
import type { SerializedError } from './logger.ts';

const MAX_DEPTH = 6;

/**
 * Turns anything thrown into a {@link SerializedError}: the record kubeloom logs under the `err`
 * field, in the shape pino's `err` serializer produces, as plain data every structured logger can
 * write. An `Error` becomes `{ type, message, stack }` plus its own enumerable fields (e.g. a Node
 * system error's `code` and `syscall`), its `cause` (serialized the same way) and, for an
 * AggregateError, `aggregateErrors`. A Kubernetes API error (an {@link ApiError}, client-node's
 * `ApiException` or a `Status` object) also carries `code`, `reason` and the `Status` the server
 * sent. A thrown non-Error becomes `{ type, message }`.
 *
 * Without this, JSON serializers (winston's, `JSON.stringify`) write an `Error` as `{}`: its
 * `message` and `stack` are not enumerable.
 *
 * The record has no prototype and a hidden `name` equal to `type`, so pino's `err` serializer,
 * which takes the type from the constructor or `name`, keeps it as it is (folding the cause's
 * message and stack into its own, as pino does for every error).
 *
 * @example
 * {@includeCode ./serialize-error.test.ts#serializeError}
 */
export function serializeError(err: unknown): SerializedError {
  return serialize(err, new Set(), 0);
}

function serialize(err: unknown, seen: Set<object>, depth: number): SerializedError {
  const record = Object.create(null) as Record<string, unknown>;
  const type = typeOf(err);
  Object.defineProperty(record, 'name', { value: type, enumerable: false });
  record.type = type;
  if (typeof err !== 'object' || err === null) {
    record.message = String(err);
    return record as unknown as SerializedError;
  }
  seen.add(err);
  const source = err as Record<string, unknown> & { message?: unknown; stack?: unknown };
  record.message = typeof source.message === 'string' ? source.message : describe(err);
  if (typeof source.stack === 'string') record.stack = source.stack;
  for (const [key, value] of Object.entries(source)) {
    if (key in record || key === 'cause' || key === 'name') continue;
    const safe = jsonSafe(value, seen, depth + 1);
    if (safe !== undefined) record[key] = safe;
  }
  const api = err instanceof ApiError ? err : toApiError(err);
  if (api) {
    record.code = api.code;
    record.reason = api.reason;
    if (api.status !== undefined) record.status = jsonSafe(api.status, seen, depth + 1);
  }
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors) && depth < MAX_DEPTH) {
    record.aggregateErrors = errors.map((e) =>
      isObject(e) && seen.has(e) ? '[Circular]' : serialize(e, seen, depth + 1),
    );
  }
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && depth < MAX_DEPTH) {
    record.cause = isObject(cause) && seen.has(cause) ? '[Circular]' : serialize(cause, seen, depth + 1);
  }
  seen.delete(err);
  return record as unknown as SerializedError;
}

function typeOf(err: unknown): string {
  if (err === null) return 'null';
  if (typeof err !== 'object') return typeof err;
  if ((err as { kind?: unknown }).kind === 'Status') return 'Status';
  const ctor = (err as { constructor?: unknown }).constructor;
  if (typeof ctor === 'function' && ctor.name && ctor !== Object) return ctor.name;
  const name = (err as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : 'Object';
}

function describe(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** A copy of `value` that `JSON.stringify` can write: no cycles, functions, symbols or bigints. */
function jsonSafe(value: unknown, seen: Set<object>, depth: number): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (!isObject(value)) return value;
  if (value instanceof Error) return seen.has(value) ? '[Circular]' : serialize(value, seen, depth);
  if (seen.has(value)) return '[Circular]';
  if (depth > MAX_DEPTH) return '[Object]';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    try {
      return jsonSafe((value as { toJSON(): unknown }).toJSON(), seen, depth + 1);
    } catch {
      return String(value);
    }
  }
  seen.add(value);
  let copy: unknown;
  if (Array.isArray(value)) copy = value.map((v) => jsonSafe(v, seen, depth + 1) ?? null);
  else {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = jsonSafe(v, seen, depth + 1);
      if (safe !== undefined) out[k] = safe;
    }
    copy = out;
  }
  seen.delete(value);
  return copy;
}
