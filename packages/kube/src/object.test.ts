import { describe, expect, it } from 'vitest';
import { deepFreeze, keyOf, objectKey, objectKeyOf, parseKey, resourceVersionNumber } from './object.ts';

describe('object keys', () => {
  it('are namespace/name, or name for cluster-scoped objects, and parse back', () => {
    const cm = { metadata: { name: 'a', namespace: 'ns' } };
    expect(objectKey(cm)).toBe('ns/a');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(objectKeyOf(cm)).toEqual({ namespace: 'ns', name: 'a' });
    expect(keyOf(objectKeyOf(cm))).toBe('ns/a');
    expect(parseKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(parseKey('node-1')).toEqual({ name: 'node-1' });
  });

  it('an object without a name has no key, and the error says why', () => {
    expect(() => objectKey({ kind: 'Pod', metadata: { generateName: 'web-' } })).toThrow(
      /object of kind Pod has no metadata\.name.*generateName/,
    );
  });
});

describe('resourceVersionNumber', () => {
  it('is the resourceVersion as a bigint when it is a decimal number, else undefined', () => {
    expect(resourceVersionNumber({ metadata: { resourceVersion: '18446744073709551615' } })).toBe(
      18446744073709551615n,
    );
    expect(resourceVersionNumber({ metadata: { resourceVersion: 'abc' } })).toBeUndefined();
    expect(resourceVersionNumber({ metadata: {} })).toBeUndefined();
  });
});

describe('deepFreeze', () => {
  it('freezes nested objects and arrays in place', () => {
    const obj = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(obj.a.b[1])).toBe(true);
    expect(() => {
      (obj.a.b as unknown[]).push(3);
    }).toThrow(TypeError);
  });
});
