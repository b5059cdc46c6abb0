import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ApiError,
  apiErrorFromStatus,
  ConflictError,
  ForbiddenError,
  GoneError,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  TimeoutError,
  toApiError,
  UnauthorizedError,
} from './errors.ts';

describe('typed API errors', () => {
  it('classifies by Status reason first, then by HTTP code', () => {
    expect(apiErrorFromStatus(409, { reason: 'AlreadyExists' })).toBeInstanceOf(AlreadyExistsError);
    expect(apiErrorFromStatus(409, { reason: 'Conflict' })).toBeInstanceOf(ConflictError);
    expect(apiErrorFromStatus(409, undefined)).toBeInstanceOf(ConflictError);
    expect(apiErrorFromStatus(410, { reason: 'Expired' })).toBeInstanceOf(GoneError);
    expect(apiErrorFromStatus(403, undefined)).toBeInstanceOf(ForbiddenError);
    expect(apiErrorFromStatus(401, undefined)).toBeInstanceOf(UnauthorizedError);
    expect(apiErrorFromStatus(504, undefined)).toBeInstanceOf(TimeoutError);
    expect(apiErrorFromStatus(500, { reason: 'ServerTimeout' })).toBeInstanceOf(TimeoutError);
    const odd = apiErrorFromStatus(418, { reason: 'Teapot' });
    expect(odd).toBeInstanceOf(ApiError);
    expect(odd.reason).toBe('Unknown');
  });

  it('answers every predicate for the matching error only', () => {
    const cases: Array<[(e: unknown) => boolean, number, string]> = [
      [isNotFound, 404, 'NotFound'],
      [isAlreadyExists, 409, 'AlreadyExists'],
      [isConflict, 409, 'Conflict'],
      [isGone, 410, 'Gone'],
      [isForbidden, 403, 'Forbidden'],
      [isUnauthorized, 401, 'Unauthorized'],
      [isInvalid, 422, 'Invalid'],
      [isTooManyRequests, 429, 'TooManyRequests'],
      [isTimeout, 504, 'Timeout'],
    ];
    for (const [pred, code, reason] of cases) {
      for (const [, otherCode, otherReason] of cases) {
        const err = apiErrorFromStatus(otherCode, { reason: otherReason, code: otherCode });
        expect(pred(err), `${pred.name}(${otherReason})`).toBe(otherReason === reason && otherCode === code);
      }
    }
    expect(isNotFound(new Error('plain'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it("recognizes client-node's ApiException, with a JSON string body and Retry-After", () => {
    const body = JSON.stringify({
      kind: 'Status',
      reason: 'TooManyRequests',
      code: 429,
      message: 'slow down',
    });
    const ex = new ApiException(429, 'Too Many Requests', body, { 'retry-after': '12' });
    const err = toApiError(ex);
    expect(err?.reason).toBe('TooManyRequests');
    expect(err?.retryAfterSeconds).toBe(12);
    expect(isTooManyRequests(ex)).toBe(true);
    expect(
      isNotFound(new ApiException(404, 'nf', { kind: 'Status', reason: 'NotFound', code: 404 }, {})),
    ).toBe(true);
  });

  it('builds a readable message from Invalid causes when the Status has none', () => {
    const err = apiErrorFromStatus(422, {
      reason: 'Invalid',
      details: {
        causes: [
          { field: 'spec.size', message: 'must be <= 10' },
          { field: 'spec.color', message: 'unsupported value' },
        ],
      },
    });
    expect(err.message).toBe('spec.size: must be <= 10; spec.color: unsupported value');
    expect(err.causes).toHaveLength(2);
  });

  it('ignoreNotFound swallows only NotFound', async () => {
    await expect(ignoreNotFound(Promise.reject(apiErrorFromStatus(404, undefined)))).resolves.toBeUndefined();
    await expect(ignoreNotFound(Promise.resolve(3))).resolves.toBe(3);
    await expect(ignoreNotFound(Promise.reject(apiErrorFromStatus(409, undefined)))).rejects.toBeInstanceOf(
      ConflictError,
    );
  });
});
