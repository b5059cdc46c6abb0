import { describe, expect, it } from 'vitest';
import type { JsonSchemaProps } from './json-schema.ts';
import { createValidator } from './validator.ts';

const schema: JsonSchemaProps = {
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['size'],
      'x-kubernetes-validations': [
        { rule: '!has(self.min) || self.min <= self.size', message: 'min must not exceed size' },
        { rule: '!has(self.url) || isURL(self.url)', message: 'url must be a URL' },
      ],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        min: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        at: { type: 'string', format: 'date-time' },
        url: { type: 'string' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        id: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'id is immutable' }],
        },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    },
  },
};
const v = createValidator<{ spec: { size: number } }>(schema);

describe('createValidator', () => {
  it('accepts a valid object, applying defaults and pruning unknown fields', () => {
    const r = v.validate({ spec: { size: 3, unknown: 1, port: 'http' } });
    expect(r.errors).toEqual([]);
    expect(r.object).toEqual({ spec: { size: 3, mode: 'a', port: 'http' } });
    expect(v.is({ spec: { size: 3 } })).toBe(true);
  });

  it('reports schema errors with paths', () => {
    const r = v.validate({ spec: { size: 11, min: 0, mode: 'c', at: 'yesterday', name: 'ABC' } });
    const paths = r.errors.map((e) => e.path).sort();
    expect(paths).toEqual(['spec.at', 'spec.min', 'spec.mode', 'spec.name', 'spec.size']);
    expect(v.validate({ spec: {} }).errors[0]).toMatchObject({
      path: 'spec.size',
      message: 'Required value',
    });
  });

  it('evaluates CEL rules, transition rules only on update', () => {
    expect(v.validate({ spec: { size: 2, min: 3 } }).errors).toEqual([
      expect.objectContaining({
        source: 'cel',
        message: 'Invalid value: min must not exceed size',
        path: 'spec',
      }),
    ]);
    expect(v.validate({ spec: { size: 2, id: 'a' } }).valid).toBe(true);
    expect(
      v.validate({ spec: { size: 2, id: 'b' } }, { oldObject: { spec: { size: 2, id: 'a' } } }).errors[0]
        ?.message,
    ).toBe('Invalid value: id is immutable');
  });

  it('says when a rule is not evaluated client-side instead of passing it silently', () => {
    const r = v.validate({ spec: { size: 2, url: 'http://x' } });
    expect(r.valid).toBe(true);
    expect(r.notEvaluated).toEqual([
      expect.objectContaining({
        rule: '!has(self.url) || isURL(self.url)',
        reason: expect.stringMatching(/^not evaluated client-side/),
      }),
    ]);
  });
});
