import { Writable } from 'node:stream';
import { apiErrorFromStatus, type Logger } from '@kubeloom/kube';
import { createFakeApiClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import winston from 'winston';
import { createLeaderElector } from './create-leader-elector.ts';
import { createQueue } from './create-queue.ts';

// Issue 10, item 8: reconcile errors logged through pino or winston appeared as `"error":{}`.
// Both loggers are real, writing JSON lines to memory, behind the few-line adapters the Logger
// docs show.

function fromPino(p: pino.Logger): Logger {
  return {
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
    child: (f) => fromPino(p.child(f)),
  };
}

function fromWinston(w: winston.Logger): Logger {
  return {
    debug: (m, f) => void w.debug(m, f),
    info: (m, f) => void w.info(m, f),
    warn: (m, f) => void w.warn(m, f),
    error: (m, f) => void w.error(m, f),
    child: (f) => fromWinston(w.child(f)),
  };
}

/** A parsed JSON log line, with the fields these tests read. */
interface LogRecord {
  readonly key?: string;
  readonly err?: { readonly stack?: string; readonly cause?: unknown; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

interface Sink {
  readonly logger: Logger;
  /** The first record whose message is `msg`, parsed; undefined until it was written. */
  record(msg: string): LogRecord | undefined;
}

function memory(wrap: (stream: Writable) => Logger): Sink {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: wrap(stream),
    record: (msg) => lines.map((l) => JSON.parse(l)).find((r) => r.msg === msg || r.message === msg),
  };
}

const sinks: Array<[string, () => Sink]> = [
  ['pino', () => memory((stream) => fromPino(pino({ level: 'debug' }, stream)))],
  [
    'winston',
    () =>
      memory((stream) =>
        fromWinston(
          winston.createLogger({
            level: 'debug',
            format: winston.format.json(),
            transports: [new winston.transports.Stream({ stream })],
          }),
        ),
      ),
  ],
];

const DROPPED = 'reconcile failed; dropping the key (retries are off: set maxAttempts to retry)';

/** Runs a one-attempt queue whose reconciler throws `err` for key `a`, until the failure is logged. */
async function reconcileFailure(sink: Sink, err: unknown): Promise<LogRecord> {
  const q = createQueue<string>({
    name: 'widgets',
    maxAttempts: 1,
    logger: sink.logger,
    reconciler: () => {
      throw err;
    },
  });
  q.add('a');
  const stop = new AbortController();
  const run = q.run(stop.signal);
  try {
    return await waitFor('the reconcile failure to be logged', () => sink.record(DROPPED), {
      timeoutMs: 10_000,
    });
  } finally {
    stop.abort();
    await run;
  }
}

describe('reconcile errors through structured loggers', () => {
  for (const [name, make] of sinks) {
    it(`${name}: an Error keeps its type, message, stack and cause`, async () => {
      const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
      const record = await reconcileFailure(make(), new RangeError('widget a is out of range', { cause }));
      expect(record.key).toBe('a');
      expect(record).not.toHaveProperty('error');
      expect(record.err).toMatchObject({
        type: 'RangeError',
        message: expect.stringContaining('widget a is out of range'),
        stack: expect.stringMatching(/^RangeError: widget a is out of range\n\s+at /),
      });
      // pino folds a cause into the message and stack; other loggers keep it as a nested record.
      const causeText = JSON.stringify(record.err);
      expect(causeText).toContain('connect ECONNREFUSED 10.0.0.1:443');
      if (name === 'pino') expect(record.err?.stack).toContain('caused by: Error: connect ECONNREFUSED');
      else
        expect(record.err?.cause).toMatchObject({
          type: 'Error',
          code: 'ECONNREFUSED',
          stack: expect.any(String),
        });
    });

    it(`${name}: a Kubernetes API error keeps its code, reason and Status`, async () => {
      const conflict = apiErrorFromStatus(409, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'Operation cannot be fulfilled on widgets "a": the object has been modified',
        details: { name: 'a', kind: 'widgets' },
      });
      const record = await reconcileFailure(make(), conflict);
      expect(record.err).toMatchObject({
        type: 'ConflictError',
        message: expect.stringContaining('the object has been modified'),
        stack: expect.stringContaining('ConflictError'),
        code: 409,
        reason: 'Conflict',
        status: { kind: 'Status', code: 409, reason: 'Conflict', details: { name: 'a' } },
      });
    });

    it(`${name}: leader election failures keep the API error too`, async () => {
      const sink = make();
      const api = createFakeApiClient();
      api.cluster.failAlways('get', { code: 403, message: 'leases.coordination.k8s.io is forbidden' });
      const elector = createLeaderElector({
        api,
        lease: { namespace: 'kube-system', name: 'logging' },
        logger: sink.logger,
        onStartedLeading: () => {},
      });
      const stop = new AbortController();
      const run = elector.run(stop.signal);
      try {
        const record = await waitFor(
          'the failed read to be logged',
          () => sink.record('reading the Lease failed; still campaigning'),
          { timeoutMs: 10_000 },
        );
        expect(record.err).toMatchObject({
          type: 'ForbiddenError',
          message: expect.stringContaining('forbidden'),
          stack: expect.any(String),
          code: 403,
          reason: 'Forbidden',
        });
      } finally {
        stop.abort();
        await run;
        api.close();
      }
    });
  }
});
