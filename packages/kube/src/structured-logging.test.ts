import { Writable } from 'node:stream';
import { waitFor } from '@kubeloom/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import winston from 'winston';
import { builtins } from './builtins.ts';
import { createFakeKubeClient } from './fake/index.ts';
import type { Logger } from './logger.ts';

// Issue 10, item 8: an informer's list error logged through real pino and winston loggers (the
// few-line adapters the Logger docs show) keeps its type, message, stack and Kubernetes Status.

// #region pino
function fromPino(p: pino.Logger): Logger {
  return {
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
    child: (f) => fromPino(p.child(f)),
  };
}
// #endregion pino

// #region winston
function fromWinston(w: winston.Logger): Logger {
  return {
    debug: (m, f) => void w.debug(m, f),
    info: (m, f) => void w.info(m, f),
    warn: (m, f) => void w.warn(m, f),
    error: (m, f) => void w.error(m, f),
    child: (f) => fromWinston(w.child(f)),
  };
}
// #endregion winston

/** A writable that keeps every line written to it. */
function memoryStream(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

const loggers: Array<[string, () => { logger: Logger; lines: string[] }]> = [
  [
    'pino',
    () => {
      const { stream, lines } = memoryStream();
      return { logger: fromPino(pino({ level: 'debug' }, stream)), lines };
    },
  ],
  [
    'winston',
    () => {
      const { stream, lines } = memoryStream();
      const w = winston.createLogger({
        level: 'debug',
        format: winston.format.json(),
        transports: [new winston.transports.Stream({ stream })],
      });
      return { logger: fromWinston(w), lines };
    },
  ],
];

describe('informer errors through structured loggers', () => {
  for (const [name, make] of loggers) {
    it(`${name}: a failed list is logged with type, message, stack and the Status`, async () => {
      const { logger, lines } = make();
      const kube = createFakeKubeClient({ logger, tuning: { initialBackoffMs: 1, maxBackoffMs: 4 } });
      kube.cluster.failNext('list', 1, {
        code: 403,
        message: 'configmaps is forbidden: User "x" cannot list resource "configmaps"',
      });
      const stop = new AbortController();
      try {
        kube.informer(builtins.ConfigMap, { namespace: 'ns' });
        expect(await kube.runAndWait(stop.signal)).toBe(true);
        const record = await waitFor('the list failure to be logged', () =>
          lines
            .map((l) => JSON.parse(l))
            .find(
              (r) => r.msg === 'list/watch failed; retrying' || r.message === 'list/watch failed; retrying',
            ),
        );
        expect(record.err).toMatchObject({
          type: 'ForbiddenError',
          message: expect.stringContaining('configmaps is forbidden'),
          stack: expect.stringContaining('ForbiddenError'),
          code: 403,
          reason: 'Forbidden',
          status: { kind: 'Status', code: 403, reason: 'Forbidden' },
        });
        expect(record).not.toHaveProperty('error');
      } finally {
        stop.abort();
        kube.shutdown();
      }
    });
  }
});
