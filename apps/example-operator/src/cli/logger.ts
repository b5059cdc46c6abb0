/**
 * The operator's logger: JSON lines (one object per line, what log pipelines ingest in a
 * cluster) or human-readable text for local runs, both with a level threshold.
 *
 * @module
 */

import { consoleLogger, type LogFields, type Logger, serializeError } from '@kubeloom/kube';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly format: 'json' | 'text';
  /** Where lines go. Default: stderr. */
  readonly write?: ((line: string) => void) | undefined;
}

const ORDER = { debug: 0, info: 1, warn: 2, error: 3 } as const;

function text(value: unknown): string {
  const v = value instanceof Error ? serializeError(value) : value;
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

function textLogger(options: LoggerOptions, base: LogFields): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (level: keyof typeof ORDER, message: string, fields?: LogFields) => {
    if (ORDER[level] < ORDER[options.level]) return;
    const extra = Object.entries({ ...base, ...fields })
      .map(([k, v]) => ` ${k}=${text(v)}`)
      .join('');
    write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}${extra}`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => textLogger(options, { ...base, ...fields }),
  };
}

/** A logger in the chosen format, dropping records below `level`. */
export function createLogger(options: LoggerOptions): Logger {
  if (options.format === 'text') return textLogger(options, {});
  return options.write ? consoleLogger(options.level, {}, options.write) : consoleLogger(options.level);
}
