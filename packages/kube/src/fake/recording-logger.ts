import type { LogFields, Logger, LogLevel } from '../logger.ts';

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
