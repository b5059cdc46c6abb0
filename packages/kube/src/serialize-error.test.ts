import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { ApiError, apiErrorFromStatus, NotFoundError } from './errors.ts';
import { createFakeKubeClient } from './fake/create-fake-kube-client.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { consoleLogger } from './logger.ts';
import { serializeError } from './serialize-error.ts';

// Issue 10, item 8: errors survive structured logging. An Error's message and stack are not
// enumerable, so JSON serializers wrote `"error":{}`.

const notFound = () =>
  apiErrorFromStatus(404, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: 'configmaps "a" not found',
    reason: 'NotFound',
    details: { name: 'a', kind: 'configmaps' },
    code: 404,
  });

describe('serializeError', () => {
  it('keeps type, message and stack of an Error, as plain JSON data', () => {
    const json = JSON.parse(JSON.stringify(serializeError(new TypeError('bad input'))));
    expect(json).toEqual({
      type: 'TypeError',
      message: 'bad input',
      stack: expect.stringContaining('bad input'),
    });
    expect(json.stack).toMatch(/serialize-error\.test\.ts/);
  });

  it('carries the code, reason and Status of a Kubernetes API error', () => {
    const err = notFound();
    expect(err).toBeInstanceOf(NotFoundError);
    const json = JSON.parse(JSON.stringify(serializeError(err)));
    expect(json).toMatchObject({
      type: 'NotFoundError',
      message: 'configmaps "a" not found',
      code: 404,
      reason: 'NotFound',
      status: { kind: 'Status', reason: 'NotFound', code: 404, details: { name: 'a' } },
    });
    expect(json.stack).toEqual(expect.any(String));
  });

  it("recognizes client-node's ApiException and a bare Status", () => {
    class ApiException extends Error {
      readonly code: number;
      readonly body: string;
      constructor(code: number, body: string) {
        super(`HTTP-Code: ${code}`);
        this.code = code;
        this.body = body;
      }
    }
    const body = JSON.stringify({
      kind: 'Status',
      code: 409,
      reason: 'Conflict',
      message: 'the object has been modified',
    });
    expect(serializeError(new ApiException(409, body))).toMatchObject({
      type: 'ApiException',
      code: 409,
      reason: 'Conflict',
      status: { reason: 'Conflict', message: 'the object has been modified' },
    });
    expect(
      serializeError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }),
    ).toMatchObject({
      type: 'Status',
      message: 'too old',
      code: 410,
      reason: 'Expired',
    });
  });

  it('serializes causes, aggregate errors and other own fields; survives cycles and bigints', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      size: 10n,
      fn: () => {},
    });
    const wrapped = new Error('reconcile failed', { cause: root });
    const cyclic = new Error('cyclic') as Error & { self?: unknown };
    cyclic.self = cyclic;
    const aggregate = new AggregateError([wrapped, cyclic], 'two failures');
    const json = JSON.parse(JSON.stringify(serializeError(aggregate)));
    expect(json).toMatchObject({
      type: 'AggregateError',
      message: 'two failures',
      aggregateErrors: [
        {
          type: 'Error',
          message: 'reconcile failed',
          cause: {
            type: 'Error',
            message: root.message,
            code: 'ECONNREFUSED',
            syscall: 'connect',
            size: '10',
          },
        },
        { type: 'Error', message: 'cyclic', self: '[Circular]' },
      ],
    });
    expect(json.aggregateErrors[0].cause).not.toHaveProperty('fn');
  });

  it('describes a thrown non-Error', () => {
    expect({ ...serializeError('plain string') }).toEqual({ type: 'string', message: 'plain string' });
    expect({ ...serializeError(undefined) }).toEqual({ type: 'undefined', message: 'undefined' });
    expect(serializeError({ oops: 1 })).toMatchObject({ type: 'Object', message: '{"oops":1}', oops: 1 });
  });

  it('names the error in a hidden name equal to its type, so pino keeps the type', () => {
    const record = serializeError(new ApiError('boom', { code: 500, reason: 'InternalError' }));
    expect(record.type).toBe('ApiError');
    expect((record as unknown as { name: string }).name).toBe('ApiError');
    expect(Object.keys(record)).not.toContain('name');
  });
});

describe('consoleLogger', () => {
  it('writes an Error field in full: type, message, stack and Status', () => {
    const lines: string[] = [];
    const log = consoleLogger('debug', {}, (line) => lines.push(line));
    log.error('reconcile failed', { err: serializeError(notFound()), raw: new Error('raw error') });
    const record = JSON.parse(lines[0]!);
    expect(record.err).toMatchObject({
      type: 'NotFoundError',
      code: 404,
      reason: 'NotFound',
      stack: expect.any(String),
    });
    expect(record.raw).toMatchObject({ type: 'Error', message: 'raw error', stack: expect.any(String) });
  });

  it('the doc example: an API error logged under `err`, with its Status', async () => {
    await using kube = createFakeKubeClient({ logger: recordingLogger() });
    const logger = recordingLogger();
    // #region serializeError
    try {
      await kube.api.get({ resource: builtins.ConfigMap, name: 'missing', namespace: 'shop' });
    } catch (err) {
      // { type: 'NotFoundError', message, stack, code: 404, reason: 'NotFound', status: { … } }
      logger.error('reconcile failed', { key: 'shop/missing', err: serializeError(err) });
    }
    // #endregion serializeError
    expect(JSON.parse(JSON.stringify(logger.records))).toEqual([
      {
        level: 'error',
        message: 'reconcile failed',
        fields: {
          key: 'shop/missing',
          err: expect.objectContaining({ type: 'NotFoundError', code: 404, reason: 'NotFound' }),
        },
      },
    ]);
  });
});
