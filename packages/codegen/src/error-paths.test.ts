import { createValidator } from '@kubeloom/codegen-runtime';
import { describe, expect, it } from 'vitest';
import { ERROR_PATH_SCHEMA } from '../test/error-path-samples.ts';

// The validator's error paths for the shapes the apiserver writes in its own way; the same
// schema is compared with kube-apiserver in error-paths.integration.test.ts.
describe('error paths in the apiserver notation', () => {
  const paths = createValidator(ERROR_PATH_SCHEMA);
  const errors = (spec: unknown) =>
    paths
      .validate({ spec })
      .errors.map((e) => `${e.path}: ${e.message}`)
      .sort();

  it('schema errors in map entries: .key, written raw even when the key has dots or brackets', () => {
    expect(errors({ resources: { cpu: { value: 11 }, 'foo.bar': {}, 'a[0]': { value: 12 } } })).toEqual([
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      'spec.resources.a[0].value: Invalid value: 12: spec.resources.a[0].value in body should be less than or equal to 10',
      'spec.resources.cpu.value: Invalid value: 11: spec.resources.cpu.value in body should be less than or equal to 10',
      'spec.resources.foo.bar.value: Required value',
    ]);
    // a map key that looks like an index is still a key
    expect(errors({ byIndex: { '0': [0, 2] } })).toEqual([
      'spec.byIndex.0[1]: Invalid value: 2: spec.byIndex.0[1] in body should be less than or equal to 1',
    ]);
  });

  it('CEL, list-type and embedded-resource errors in map entries: [key], as the apiserver writes them', () => {
    expect(errors({ resources: { cpu: { value: 7 } }, tags: { 'x.y': ['a', 'a'] } })).toEqual([
      'spec.resources[cpu]: Invalid value: not 7',
      'spec.tags[x.y][1]: Duplicate value: "a"',
    ]);
    expect(
      errors({ embedded: { 'e.1': { kind: 'Thing' } }, nested: { 'k.1': [{ 'long.key': 'abcd' }] } }),
    ).toEqual([
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      'spec.embedded[e.1].apiVersion: Required value',
      'spec.nested.k.1[0].long.key: Too long: may not be more than 3 bytes',
    ]);
  });

  it('says rules were not checked only when the schema has rules, as the apiserver does', () => {
    const plain = createValidator({
      type: 'object',
      properties: { spec: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
    });
    expect(plain.validate({ spec: {} }).errors.map((e) => e.path)).toEqual(['spec.a']);
    expect(errors({ ports: [{}] })).toEqual([
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      'spec.ports[0].name: Required value',
    ]);
  });

  it('list items by index and list-map entries', () => {
    expect(
      errors({
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 101 },
          { name: 'a', port: 2 },
        ],
      }),
    ).toEqual([
      'spec.ports[1].port: Invalid value: 101: spec.ports[1].port in body should be less than or equal to 100',
      'spec.ports[2]: Duplicate value: {"name":"a"}',
    ]);
  });
});
