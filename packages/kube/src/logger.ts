/** Structured fields attached to a log record. */
export type LogFields = Record<string, unknown>;

/**
 * The pluggable structured logger every kubeloom component writes to. Adapt pino, winston or
 * console with a few lines; the default ({@link consoleLogger} at `warn`) writes one JSON line per record to stderr.
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
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
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

/** A logger that keeps records in memory, for tests that assert on what was logged. */
export interface RecordingLogger extends Logger {
  /** Every record so far, oldest first. */
  readonly records: Array<{ level: Exclude<LogLevel, 'silent'>; message: string; fields: LogFields }>;
}

/** Creates a {@link RecordingLogger}. */
export function recordingLogger(base: LogFields = {}, sink?: RecordingLogger['records']): RecordingLogger {
  const records: RecordingLogger['records'] = sink ?? [];
  const push = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    records.push({ level, message, fields: { ...base, ...fields } });
  };
  return {
    records,
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    child: (fields) => recordingLogger({ ...base, ...fields }, records),
  };
}
