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
        // a function this evaluator does not implement (as one a later Kubernetes adds would be)
        {
          rule: '!has(self.url) || self.url.functionOfALaterKubernetes()',
          message: 'unknown function',
        },
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

/** A validator of one field `x` under `spec`. */
function field(x: JsonSchemaProps, extra: Partial<JsonSchemaProps> = {}) {
  return createValidator({
    type: 'object',
    properties: { spec: { type: 'object', properties: { x }, ...extra } },
  });
}

describe('createValidator', () => {
  it('accepts a valid object, applying defaults and pruning unknown fields', () => {
    const r = v.validate({ spec: { size: 3, unknown: 1, port: 'http' } });
    expect(r.errors).toEqual([]);
    expect(r.object).toEqual({ spec: { size: 3, mode: 'a', port: 'http' } });
    expect(v.is({ spec: { size: 3 } })).toBe(true);
  });

  it('reports schema errors with paths, and skips CEL when the apiserver would (enum errors)', () => {
    const r = v.validate({ spec: { size: 11, min: 0, mode: 'c', at: 'yesterday', name: 'ABC' } });
    const paths = r.errors.map((e) => e.path).sort();
    expect(paths).toEqual(['<nil>', 'spec.at', 'spec.min', 'spec.mode', 'spec.name', 'spec.size']);
    expect(r.errors.at(-1)?.message).toMatch(/some validation rules were not checked/);
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
    ).toBe('Invalid value: "b": id is immutable');
  });

  it('says when a rule is not evaluated client-side instead of passing it silently, and is() does not narrow then', () => {
    const r = v.validate({ spec: { size: 2, url: 'http://x' } });
    expect(r.valid).toBe(true);
    expect(r.complete).toBe(false);
    expect(r.notEvaluated).toEqual([
      expect.objectContaining({
        rule: '!has(self.url) || self.url.functionOfALaterKubernetes()',
        reason: expect.stringMatching(/^not evaluated client-side/),
      }),
    ]);
    expect(v.is({ spec: { size: 2, url: 'http://x' } })).toBe(false);
    expect(v.is({ spec: { size: 2 } })).toBe(true);
  });
});

describe('fields set to undefined', () => {
  it('are absent, as on the wire (JSON drops them): required, minProperties and defaults see no field', () => {
    const u = createValidator({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          minProperties: 2,
          required: ['a'],
          properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
        },
        status: { type: 'object', properties: { phase: { type: 'string', default: 'New' } } },
      },
    });
    const r = u.validate({ spec: { a: undefined, b: 'y' }, status: { phase: undefined } });
    expect(r.errors.map((e) => `${e.path}: ${e.message}`).sort()).toEqual([
      'spec.a: Required value',
      'spec: Invalid value: 1: spec in body should have at least 2 properties',
    ]);
    expect(r.object).toEqual({ spec: { b: 'y' }, status: { phase: 'New' } });
  });
});

describe('messages in kube-apiserver v1.37 words', () => {
  // Each message as kube-apiserver v1.37.2 wrote it for the same schema and value (dryRun=All).
  const skipped =
    '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
  const messages = (x: JsonSchemaProps, value: unknown) =>
    field(x, { 'x-kubernetes-validations': [{ rule: 'true' }] })
      .validate({ spec: { x: value } })
      .errors.map((e) => `${e.path}: ${e.message}`)
      .sort();

  it.each([
    [
      'minimum',
      { type: 'integer', minimum: 1 },
      0,
      'Invalid value: 0: spec.x in body should be greater than or equal to 1',
    ],
    [
      'exclusiveMinimum',
      { type: 'integer', minimum: 1, exclusiveMinimum: true },
      1,
      'Invalid value: 1: spec.x in body should be greater than 1',
    ],
    [
      'maximum',
      { type: 'integer', maximum: 4 },
      5,
      'Invalid value: 5: spec.x in body should be less than or equal to 4',
    ],
    [
      'exclusiveMaximum',
      { type: 'number', maximum: 4, exclusiveMaximum: true },
      4.5,
      'Invalid value: 4.5: spec.x in body should be less than 4',
    ],
    [
      'minLength',
      { type: 'string', minLength: 2 },
      'a',
      'Invalid value: "a": spec.x in body should be at least 2 chars long',
    ],
    [
      'pattern',
      { type: 'string', pattern: '^a+$' },
      'b',
      'Invalid value: "b": spec.x in body should match \'^a+$\'',
    ],
    [
      'minItems',
      { type: 'array', minItems: 3, items: { type: 'string' } },
      ['a'],
      'Invalid value: 1: spec.x in body should have at least 3 items',
    ],
    [
      'minProperties',
      { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
      {},
      'Invalid value: 0: spec.x in body should have at least 1 properties',
    ],
    [
      'multipleOf',
      { type: 'number', multipleOf: 0.5 },
      1.3,
      'Invalid value: 1.3: spec.x in body should be a multiple of 0.5',
    ],
  ] as const)(
    '%s: an Invalid error with go-openapi\'s "<path> in body" prefix',
    (...[, x, value, message]) => {
      expect(messages(x as JsonSchemaProps, value)).toEqual([`spec.x: ${message}`]);
    },
  );

  it.each([
    ['maxLength', { type: 'string', maxLength: 3 }, 'abcd', 'Too long: may not be more than 3 bytes'],
    [
      'maxItems',
      { type: 'array', maxItems: 2, items: { type: 'integer' } },
      [1, 2, 3],
      'Too many: 3: must have at most 2 items',
    ],
    [
      'maxItems 1',
      { type: 'array', maxItems: 1, items: { type: 'integer' } },
      [1, 2],
      'Too many: 2: must have at most 1 item',
    ],
    [
      'maxProperties',
      { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
      { a: 'a', b: 'b' },
      'Too many: 2: must have at most 1 item',
    ],
    ['enum', { type: 'string', enum: ['A', 'B'] }, 'C', 'Unsupported value: "C": supported values: "A", "B"'],
    [
      'integer enum',
      { type: 'integer', enum: [1, 2] },
      3,
      'Unsupported value: 3: supported values: "1", "2"',
    ],
    [
      'type',
      { type: 'integer' },
      'x',
      'Invalid value: "string": spec.x in body must be of type integer: "string"',
    ],
    [
      'type of an object',
      { type: 'string' },
      { a: 1 },
      'Invalid value: "object": spec.x in body must be of type string: "object"',
    ],
    [
      'format',
      { type: 'string', format: 'date-time' },
      'x',
      'Invalid value: "x": spec.x in body must be of type date-time: "x"',
    ],
  ] as const)('%s: a field error without the prefix, skipping CEL', (...[, x, value, message]) => {
    expect(messages(x as JsonSchemaProps, value)).toEqual([skipped, `spec.x: ${message}`]);
  });

  it('checks a field with a format against the format first, and a string against its first failing check only', () => {
    expect(messages({ type: 'integer', format: 'int32' }, 1.5)).toContain(
      'spec.x: Invalid value: "float64": spec.x in body must be of type int32: "float64"',
    );
    expect(messages({ type: 'string', format: 'date-time' }, 5)).toContain(
      'spec.x: Invalid value: "int64": spec.x in body must be of type date-time: "int64"',
    );
    expect(messages({ type: 'string', format: 'date-time' }, {})).toContain(
      'spec.x: Invalid value: "": spec.x in body must be of type date-time: ""',
    );
    expect(messages({ type: 'string', minLength: 1, pattern: '^a+$' }, '')).toEqual([
      'spec.x: Invalid value: "": spec.x in body should be at least 1 chars long',
    ]);
    expect(messages({ type: 'string', maxLength: 1, pattern: '^a+$' }, 'bb')).toEqual([
      skipped,
      'spec.x: Too long: may not be more than 1 bytes',
    ]);
    expect(messages({ 'x-kubernetes-int-or-string': true }, 1.5)).toContain(
      'spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"',
    );
  });

  it('says when an integer meets a multipleOf factor below 1 (truncated to 0), as the apiserver does', () => {
    expect(messages({ type: 'number', multipleOf: 0.25 }, 1)).toEqual([
      'spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0',
    ]);
  });

  it('words a rule that fails to evaluate as the apiserver does, with the left error of a failed ||', () => {
    const x: JsonSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.a.size() > 0 || self.b.size() > 0', message: 'a or b' }],
    };
    expect(
      field(x)
        .validate({ spec: { x: {} } })
        .errors.map((e) => `${e.path}: ${e.message}`),
    ).toEqual(['spec.x: Invalid value: "object": no such key: a evaluating rule: a or b']);
  });

  it('reports range and composition errors at the root, naming the field in the message', () => {
    expect(messages({ type: 'integer', format: 'int32' }, 2 ** 31)).toEqual([
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x',
    ]);
    const ab = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } as const;
    const oneOf = { ...ab, oneOf: [{ required: ['a'] }, { required: ['b'] }] };
    expect(messages(oneOf, {})).toEqual([
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
      skipped,
      'spec.x.a: Required value',
    ]);
    expect(messages(oneOf, { a: 'x', b: 'y' })).toEqual([
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
    expect(messages({ ...ab, anyOf: [{ required: ['a'] }, { required: ['b'] }] }, {})).toEqual([
      '<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
      skipped,
      'spec.x.a: Required value',
    ]);
    expect(messages({ ...ab, not: { required: ['a'] } }, { a: 'x' })).toEqual([
      '<nil>: Invalid value: "": "spec.x" must not validate the schema (not)',
    ]);
  });
});

describe('the status subresource', () => {
  it('names fields relative to status, which the apiserver checks alone there (messages as it wrote them)', () => {
    const s = createValidator({
      type: 'object',
      properties: {
        status: { type: 'object', properties: { n: { type: 'integer', minimum: 0, format: 'int32' } } },
      },
    });
    const messages = (obj: unknown, subresource?: 'status') =>
      s
        .validate(obj, { oldObject: { status: {} }, subresource })
        .errors.map((e) => `${e.path}: ${e.message}`);
    expect(messages({ status: { n: -1 } }, 'status')).toEqual([
      'status.n: Invalid value: -1: n in body should be greater than or equal to 0',
    ]);
    expect(messages({ status: { n: 2 ** 31 } }, 'status')).toEqual([
      'status: Invalid value: "": Checked value must be of type integer with format int32 in n',
    ]);
    expect(messages({ status: 'x' }, 'status')).toEqual([
      'status: Invalid value: "string":  in body must be of type object: "string"',
    ]);
    expect(messages({ status: { n: -1 } })).toEqual([
      'status.n: Invalid value: -1: status.n in body should be greater than or equal to 0',
    ]);
  });
});

describe('list types', () => {
  it('rejects duplicate items in a set, once per repeated value at its second appearance', () => {
    const s = field({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } });
    expect(s.validate({ spec: { x: ['a', 'b'] } }).valid).toBe(true);
    expect(s.validate({ spec: { x: ['a', 'b', 'a', 'a'] } }).errors).toEqual([
      { path: 'spec.x[2]', message: 'Duplicate value: "a"', source: 'list' },
    ]);
    const objects = field({
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string' } } },
    });
    expect(objects.validate({ spec: { x: [{ a: 'x' }, { a: 'x' }] } }).errors[0]).toMatchObject({
      path: 'spec.x[1]',
      message: 'Duplicate value: {"a":"x"}',
    });
    expect(s.validate({ spec: { x: ['1', 1] } }).errors.filter((e) => e.source === 'list')).toEqual([]);
  });

  it('rejects duplicate keys in a map list, with defaulted keys and missing keys', () => {
    const m = field({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'port'],
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          port: { type: 'integer', default: 80 },
          v: { type: 'string' },
        },
      },
    });
    expect(m.validate({ spec: { x: [{ name: 'a' }, { name: 'a', port: 81 }] } }).valid).toBe(true);
    expect(m.validate({ spec: { x: [{ name: 'a' }, { name: 'a', port: 80, v: 'x' }] } }).errors).toEqual([
      { path: 'spec.x[1]', message: 'Duplicate value: {"name":"a","port":80}', source: 'list' },
    ]);
    const one = field({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } } },
    });
    expect(one.validate({ spec: { x: [{ v: '1' }, { v: '2' }] } }).errors).toEqual([
      { path: 'spec.x[1]', message: 'Duplicate value: {}', source: 'list' },
    ]);
    expect(one.validate({ spec: { x: [{ name: 'a' }, 'b'] } }).valid).toBe(false);
  });
});

describe('embedded resources', () => {
  const e = field({
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  });
  const errs = (x: unknown) => e.validate({ spec: { x } }).errors.map((er) => `${er.path}: ${er.message}`);

  it('requires apiVersion and kind', () => {
    expect(errs({})).toEqual(['spec.x.apiVersion: Required value', 'spec.x.kind: Required value']);
    expect(errs({ apiVersion: 'v1', kind: '' })).toEqual([
      'spec.x.kind: Invalid value: "": must not be empty',
    ]);
    expect(errs({ apiVersion: 'a/b/c', kind: 'X' })).toEqual([
      'spec.x.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    ]);
    expect(errs({ apiVersion: 'v1', kind: 'Bad_Kind' })[0]).toMatch(
      /spec\.x\.kind: .*should otherwise match/,
    );
    expect(errs({ apiVersion: 'apps/v1', kind: 'Deployment', other: 1 })).toEqual([]);
  });

  it('decodes metadata as ObjectMeta: unknown fields dropped, labels and names checked', () => {
    const r = e.validate({
      spec: { x: { apiVersion: 'v1', kind: 'X', metadata: { name: 'UPPER', foo: 1 } } },
    });
    expect(r.errors).toEqual([]);
    expect(r.object).toEqual({ spec: { x: { apiVersion: 'v1', kind: 'X', metadata: { name: 'UPPER' } } } });
    expect(errs({ apiVersion: 'v1', kind: 'X', metadata: { labels: { 'bad key!': 'x' } } })[0]).toMatch(
      /^spec\.x\.metadata\.labels: Invalid value: "bad key!"/,
    );
    expect(errs({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a/b' } })[0]).toMatch(
      /may not contain '\/'/,
    );
    expect(errs({ apiVersion: 'v1', kind: 'X', metadata: { labels: 'x' } })[0]).toMatch(
      /must be a map of strings/,
    );
    expect(errs({ apiVersion: 'v1', kind: 'X', metadata: { finalizers: ['a/b/c'] } })[0]).toMatch(
      /^spec\.x\.metadata\.finalizers: Invalid value: "a\/b\/c": a valid label key must consist/,
    );
    expect(
      errs({ apiVersion: 'v1', kind: 'X', metadata: { ownerReferences: [{ kind: 'A', name: 'a' }] } }),
    ).toEqual([
      'spec.x.metadata.ownerReferences[0].apiVersion: Required value: must not be empty',
      'spec.x.metadata.ownerReferences[0].uid: Required value: must not be empty',
    ]);
    expect(errs({ apiVersion: 'v1', kind: 'X', metadata: { namespace: 'Bad_NS' } })[0]).toMatch(
      /^spec\.x\.metadata\.namespace: /,
    );
  });
});

describe('nulls, numbers, enums and formats as the apiserver treats them', () => {
  it('drops nulls of non-nullable fields and map values, keeps nullable ones, rejects null items', () => {
    const n = createValidator({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            s: { type: 'string' },
            d: { type: 'string', default: 'dflt' },
            n: { type: 'string', nullable: true },
            m: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
            l: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    });
    const r = n.validate({ spec: { s: null, d: null, n: null } });
    expect(r.errors).toEqual([]);
    expect(r.object).toEqual({ spec: { d: 'dflt', n: null } });
    expect(n.validate({ spec: { m: { a: null } } }).errors[0]?.path).toBe('spec.m');
    expect(n.validate({ spec: { l: ['a', null] } }).errors[0]?.path).toBe('spec.l[1]');
  });

  it('rejects null for an enum even when it is nullable and lists null', () => {
    const en = field({ type: 'string', nullable: true, enum: ['a', null] });
    expect(en.validate({ spec: { x: null } }).errors[0]?.message).toMatch(/^Unsupported value: null/);
    expect(en.validate({ spec: { x: 'a' } }).valid).toBe(true);
  });

  it('checks multipleOf with a tolerance for floats and integer arithmetic for integers', () => {
    const tenth = field({ type: 'number', multipleOf: 0.1 });
    expect(tenth.validate({ spec: { x: 0.3 } }).valid).toBe(true);
    expect(tenth.validate({ spec: { x: 0.35 } }).valid).toBe(false);
    expect(tenth.validate({ spec: { x: 3 } }).valid).toBe(false);
    const three = field({ type: 'integer', multipleOf: 3 });
    expect(three.validate({ spec: { x: 9 } }).valid).toBe(true);
    expect(three.validate({ spec: { x: 4 } }).errors[0]?.message).toMatch(/should be a multiple of 3/);
  });

  it('checks the range of int32, int64 and float values', () => {
    expect(field({ type: 'integer', format: 'int32' }).validate({ spec: { x: 2 ** 31 } }).valid).toBe(false);
    expect(field({ type: 'integer', format: 'int32' }).validate({ spec: { x: 2 ** 31 - 1 } }).valid).toBe(
      true,
    );
    expect(field({ type: 'integer', format: 'uint32' }).validate({ spec: { x: -1 } }).valid).toBe(true);
    expect(field({ type: 'number', format: 'float' }).validate({ spec: { x: 1e39 } }).valid).toBe(false);
    expect(field({ type: 'number', format: 'double' }).validate({ spec: { x: 1e39 } }).valid).toBe(true);
  });

  it('checks formats like go-openapi (request URIs, sloppy IPv4, RFC 3339 date-times)', () => {
    const ok = (format: string, x: string) =>
      field({ type: 'string', format }).validate({ spec: { x } }).valid;
    expect(ok('uri', '/x')).toBe(true);
    expect(ok('uri', 'not a uri')).toBe(false);
    expect(ok('ipv4', '010.0.0.1')).toBe(true);
    expect(ok('ipv6', 'fe80::1%eth0')).toBe(false);
    expect(ok('date-time', '2024-01-01t00:00:00z')).toBe(true);
    expect(ok('date-time', '2024-01-01 00:00:00Z')).toBe(false);
    expect(ok('date-time', '2023-02-29T00:00:00Z')).toBe(false);
    expect(ok('byte', '')).toBe(false);
    expect(ok('duration', '5 seconds')).toBe(true);
    expect(ok('hexcolor', 'fff')).toBe(true);
    expect(ok('IPv4', 'not checked: formats are case-sensitive')).toBe(true);
  });
});

describe('CEL as Kubernetes binds it', () => {
  it('escapes property names that are CEL keywords or contain dashes', () => {
    const c = field(
      { type: 'string' },
      {
        properties: { namespace: { type: 'string' }, 'a-b': { type: 'string' } },
        'x-kubernetes-validations': [
          { rule: '!has(self.__namespace__) || self.__namespace__ == self.a__dash__b' },
        ],
      },
    );
    expect(c.validate({ spec: { namespace: 'x', 'a-b': 'x' } }).errors).toEqual([]);
    expect(c.validate({ spec: { namespace: 'x', 'a-b': 'y' } }).errors[0]?.source).toBe('cel');
  });

  it('binds the fields the rules and message expressions read, and the whole value when a rule uses it', () => {
    const c = field(
      { type: 'string' },
      {
        properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'string' } },
        'x-kubernetes-validations': [
          { rule: 'self.a == 1', messageExpression: "'b is ' + self.b" },
          { rule: 'size(self) < 3', message: 'too many fields' },
        ],
      },
    );
    const messages = (spec: unknown) => c.validate({ spec }).errors.map((e) => e.message);
    expect(messages({ a: 2, b: 'x' })).toEqual(['Invalid value: b is x']);
    expect(messages({ a: 1, b: 'x', c: 'y' })).toEqual(['Invalid value: too many fields']);
  });

  it('translates RE2 inline flags anywhere in the pattern', () => {
    const c = field({
      type: 'string',
      'x-kubernetes-validations': [{ rule: "self.matches(r'^(?i)\\.?[a-z_][a-z_0-9]*$')" }],
    });
    expect(c.validate({ spec: { x: 'Foo_1' } }).errors).toEqual([]);
    expect(c.validate({ spec: { x: '1foo' } }).errors[0]?.source).toBe('cel');
  });

  it('types date-time strings as timestamps and compares set lists without order', () => {
    const t = field({
      type: 'string',
      format: 'date-time',
      'x-kubernetes-validations': [{ rule: "self > timestamp('2020-01-01T00:00:00Z')" }],
    });
    expect(t.validate({ spec: { x: '2024-01-01T00:00:00Z' } }).errors).toEqual([]);
    expect(t.validate({ spec: { x: '2019-01-01T00:00:00Z' } }).errors[0]?.source).toBe('cel');
    const set = field({
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'string' },
      'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
    });
    expect(
      set.validate({ spec: { x: ['a', 'b'] } }, { oldObject: { spec: { x: ['b', 'a'] } } }).errors,
    ).toEqual([]);
    expect(set.validate({ spec: { x: ['a', 'c'] } }, { oldObject: { spec: { x: ['b', 'a'] } } }).valid).toBe(
      false,
    );
  });

  it('binds byte strings as bytes and duration strings as durations', () => {
    const b = field({
      type: 'string',
      format: 'byte',
      'x-kubernetes-validations': [{ rule: 'size(self) == 3' }],
    });
    expect(b.validate({ spec: { x: 'YWJj' } }).errors).toEqual([]);
    expect(b.validate({ spec: { x: 'YWJjZA==' } }).errors[0]?.source).toBe('cel');
    const d = field({
      type: 'string',
      format: 'duration',
      'x-kubernetes-validations': [{ rule: "self > duration('1m')" }],
    });
    expect(d.validate({ spec: { x: '2m' } }).errors).toEqual([]);
    expect(d.validate({ spec: { x: '30s' } }).errors[0]?.source).toBe('cel');
  });

  it('evaluates the Kubernetes CEL libraries, optional types and optionalOldSelf', () => {
    for (const [rule, valid] of [
      ['ip(self).family() == 4', true],
      ["cidr(self + '/8').prefixLength() > 8", false],
      ["self.?x.orValue('') == ''", true],
    ] as const) {
      const r = field({ type: 'string', 'x-kubernetes-validations': [{ rule }] }).validate({
        spec: { x: '10.0.0.1' },
      });
      expect({ rule, valid: r.valid, complete: r.complete }).toEqual({ rule, valid, complete: true });
    }
    const o = field({
      type: 'string',
      'x-kubernetes-validations': [
        { rule: "oldSelf.orValue('') != 'b' || self == 'b'", optionalOldSelf: true },
      ],
    });
    expect(o.validate({ spec: { x: 'a' } })).toMatchObject({ valid: true, complete: true });
    expect(o.validate({ spec: { x: 'a' } }, { oldObject: { spec: { x: 'b' } } }).valid).toBe(false);
    expect(o.validate({ spec: { x: 'b' } }, { oldObject: { spec: { x: 'b' } } }).valid).toBe(true);
  });

  it('checks RE2 patterns JavaScript cannot compile (inline flags anywhere, \\z, ungreedy)', () => {
    const p = field({ type: 'string', pattern: '^(?U)a+(?i)b\\z' });
    expect(p.validate({ spec: { x: 'aaB' } })).toMatchObject({ valid: true, complete: true });
    expect(p.validate({ spec: { x: 'Ab' } }).errors[0]).toMatchObject({ path: 'spec.x' });
    // Several patterns in one schema: each checked with its own expression.
    const two = createValidator({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(?i)x$' }, b: { type: 'string', pattern: '^a(?i)b|c$' } },
    });
    expect(two.validate({ a: 'X', b: 'aB' }).valid).toBe(true);
    expect(two.validate({ a: 'y', b: 'AB' }).errors.map((e) => e.path)).toEqual(['a', 'b']);
  });

  it('reports a pattern RE2 rejects (the apiserver would refuse the CRD) as not evaluated', () => {
    const p = field({ type: 'string', pattern: '(?=a)' });
    const r = p.validate({ spec: { x: 'aaa' } });
    expect(r.valid).toBe(true);
    expect(r.notEvaluated[0]).toMatchObject({
      path: 'spec.x',
      reason: expect.stringContaining('invalid or unsupported Perl syntax'),
    });
  });
});

describe('scale subresource', () => {
  const s = createValidator(
    {
      type: 'object',
      properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
    },
    { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  );
  it('checks the replica counts as non-negative int32 values', () => {
    expect(s.validate({ spec: { replicas: 3 } }).valid).toBe(true);
    expect(s.validate({ spec: { replicas: -1 } }).errors[0]).toMatchObject({
      path: '.spec.replicas',
      message: 'Invalid value: -1: should be a non-negative integer',
    });
    expect(s.validate({ spec: { replicas: 2 ** 31 } }).valid).toBe(false);
  });
});
