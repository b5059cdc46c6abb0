import type { Status } from './errors.ts';
import { serializeError } from './serialize-error.ts';

/** Structured fields attached to a log record. */
export type LogFields = Record<string, unknown>;

/**
 * An error as kubeloom logs it, under the field `err` (pino's convention): plain data that every
 * structured logger writes in full, made by {@link serializeError}. Other own fields of the error
 * (e.g. a Node system error's `syscall`) are kept too.
 */
export interface SerializedError {
  /** The error's class, e.g. `TypeError` or `NotFoundError`; for a thrown non-Error, its type. */
  readonly type: string;
  /** The error's message. */
  readonly message: string;
  /** The stack trace, when the error has one. */
  readonly stack?: string;
  /** The HTTP status code of a Kubernetes API error, or a Node system error's code (`ECONNRESET`). */
  readonly code?: number | string;
  /** The reason of a Kubernetes API error, e.g. `NotFound`, `Conflict`. */
  readonly reason?: string;
  /** The `Status` the apiserver sent with a Kubernetes API error. */
  readonly status?: Status;
  /** The error's `cause`, serialized the same way. */
  readonly cause?: SerializedError | string;
  /** The errors of an `AggregateError`. */
  readonly aggregateErrors?: ReadonlyArray<SerializedError | string>;
  /** Any other own field of the error. */
  readonly [field: string]: unknown;
}

/**
 * The pluggable structured logger every kubeloom component writes to. Adapt pino, winston or
 * console with a few lines; the default ({@link consoleLogger} at `warn`) writes one JSON line per record to stderr.
 *
 * kubeloom logs an error under the field `err` as a {@link SerializedError} (type, message,
 * stack, cause, and for a Kubernetes API error its code, reason and `Status`), so it survives any
 * JSON serializer. Adapters, compiled and tested:
 *
 * @example pino, from src/structured-logging.test.ts (which logs an informer's errors through it)
 * {@includeCode ./structured-logging.test.ts#pino}
 *
 * @example winston
 * {@includeCode ./structured-logging.test.ts#winston}
 */
export interface Logger {
  /** Verbose diagnostics. */
  debug(message: string, fields?: LogFields): void;
  /** Normal operation worth recording. */
  info(message: string, fields?: LogFields): void;
  /** Something went wrong and was recovered from. */
  warn(message: string, fields?: LogFields): void;
  /** Something went wrong and needs attention. */
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every record. */
  child(fields: LogFields): Logger;
}

/** Log levels in increasing severity. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

function serialize(value: unknown): unknown {
  return value instanceof Error ? serializeError(value) : value;
}

/**
 * A logger writing JSON lines (`{"level","msg",...fields}`) through `write` (default: stderr),
 * dropping records below `level`.
 */
export function consoleLogger(
  level: LogLevel = 'warn',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const min = order[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields): void => {
    if (order[lvl] < min) return;
    const record: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg: message };
    for (const [k, v] of Object.entries({ ...base, ...fields })) record[k] = serialize(v);
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => consoleLogger(level, { ...base, ...fields }, write),
  };
}

/** A logger that drops everything. */
export const noopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return noopLogger;
  },
};
