import { describe, expect, it } from 'vitest';
import { applyDefaults, prune, pruneNulls } from './defaults.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import { createValidator } from './validator.ts';

const schema: JsonSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        m: { type: 'object', additionalProperties: { type: 'integer', default: 7 } },
        s: { type: 'string' },
        any: { type: 'object', additionalProperties: true },
        d: { type: 'string', default: 'dflt' },
        n: { type: 'string', nullable: true },
        l: {
          type: 'array',
          items: { type: 'object', default: { a: 1 }, properties: { a: { type: 'integer' } } },
        },
        nested: {
          type: 'object',
          default: {},
          properties: {
            inner: { type: 'string', default: 'in' },
            list: { type: 'array', items: { type: 'string' } },
          },
        },
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { k: { type: 'string' } } } },
          'x-kubernetes-validations': [{ rule: 'true' }],
        },
        freeList: {
          type: 'array',
          'x-kubernetes-preserve-unknown-fields': true,
          items: { type: 'object', properties: { k: { type: 'string' } } },
        },
        res: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { k: { type: 'string', default: 'k' } } } },
        },
      },
    },
  },
};

const input = {
  apiVersion: 'v1',
  kind: 'K',
  metadata: { name: 'x', extra: 1 },
  unknown: 1,
  spec: {
    s: null,
    d: null,
    n: null,
    m: { a: null, b: 2 },
    any: { x: { y: 1 }, z: [{ w: 1 }, 2] },
    l: [null, { a: 2, b: 3 }],
    free: { anything: { goes: null }, known: { k: 'k', drop: 1 } },
    freeList: [{ k: 'a', keep: 1 }],
    res: { apiVersion: 'v1', kind: 'R', metadata: { name: 'r' }, spec: { other: 1 }, drop: 1 },
    dropped: { a: 1 },
  },
};

const expected = {
  apiVersion: 'v1',
  kind: 'K',
  metadata: { name: 'x', extra: 1 },
  spec: {
    d: 'dflt',
    n: null,
    m: { a: 7, b: 2 },
    any: { x: {}, z: [{}, 2] },
    l: [{ a: 1 }, { a: 2 }],
    free: { anything: { goes: null }, known: { k: 'k' } },
    freeList: [{ k: 'a', keep: 1 }],
    res: { apiVersion: 'v1', kind: 'R', metadata: { name: 'r' }, spec: { k: 'k' } },
    nested: { inner: 'in' },
  },
};

describe('decoding (prune, null pruning, defaults)', () => {
  it('prune, pruneNulls and applyDefaults in place give what the validator stores', () => {
    const copy = structuredClone(input);
    const out = applyDefaults(pruneNulls(prune(copy, schema), schema), schema);
    expect(out).toBe(copy);
    expect(out).toEqual(expected);
    // #region createValidator
    // The apiserver's validation pipeline for one schema: prune, defaults, schema, CEL, formats.
    const r = createValidator(schema).validate(input);
    expect(r.object).toEqual(expected);
    // #endregion createValidator
    expect(JSON.stringify(r.object)).toBe(JSON.stringify(out));
  });

  it('leaves the input untouched and shares nothing with it', () => {
    const before = structuredClone(input);
    const r = createValidator(schema).validate(input);
    expect(input).toEqual(before);
    const object = r.object as typeof expected;
    expect(object.spec.any).not.toBe(input.spec.any);
    expect(object.spec.freeList[0]).not.toBe(input.spec.freeList[0]);
    expect(object.spec.free.anything).not.toBe(input.spec.free.anything);
  });

  it('prunes unknown fields named like Object.prototype members and defaults declared ones', () => {
    const s: JsonSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { size: { type: 'integer' }, constructor: { type: 'string', default: 'c' } },
        },
      },
    };
    const obj = JSON.parse('{"spec":{"size":1,"toString":"x","valueOf":{"a":1},"__proto__":{"b":2}}}');
    const r = createValidator(s).validate(obj);
    expect(r.errors).toEqual([]);
    expect(JSON.stringify(r.object)).toBe('{"spec":{"size":1,"constructor":"c"}}');
  });

  it('leaves values and arrays without a schema alone, except for pruning', () => {
    expect(pruneNulls({ a: null }, undefined)).toEqual({ a: null });
    expect(applyDefaults([null], undefined)).toEqual([null]);
    expect(prune({ a: [{ b: 1 }] }, { type: 'object', properties: { a: { type: 'array' } } })).toEqual({
      a: [{}],
    });
  });
});
