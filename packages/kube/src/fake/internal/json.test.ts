import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../object.ts';
import { copyJson, type JsonObject, toJson, toJsonSharing } from './json.ts';

/** A stored object: JSON, deep-frozen. */
function stored(): JsonObject {
  return deepFreeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      labels: { a: '1', b: '2' },
      managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }],
    },
    spec: { containers: [{ name: 'c', env: [{ name: 'X', value: 'y' }] }], n: 1 },
    status: { phase: 'Running', podIP: '10.0.0.1' },
  });
}

describe('toJsonSharing', () => {
  it('shares the parts equal to the stored object and copies the rest', () => {
    const base = stored();
    const input = structuredClone(base) as JsonObject;
    (input.status as JsonObject).podIP = '10.0.0.2';
    const out = toJsonSharing(input, base);
    expect(out).toEqual(input);
    expect(out).not.toBe(base);
    expect(Object.isFrozen(out)).toBe(false);
    expect(out.spec).toBe(base.spec);
    expect(out.metadata).toBe(base.metadata);
    expect(out.status).not.toBe(base.status);
    expect(out.status).not.toBe(input.status);
    expect(Object.isFrozen(out.status)).toBe(false);
  });

  it('shares nothing of the input itself', () => {
    const base = stored();
    const input = { ...structuredClone(base), extra: { deep: { x: 1 } } } as JsonObject;
    const out = toJsonSharing(input, base);
    expect(out.extra).toEqual({ deep: { x: 1 } });
    expect(out.extra).not.toBe(input.extra);
    expect((out.extra as JsonObject).deep).not.toBe((input.extra as JsonObject).deep);
  });

  it('is toJson of the input whatever the stored object holds', () => {
    const base = stored();
    const cases: unknown[] = [
      // undefined members left out, arrays' undefined as null, -0, NaN, toJSON, Dates
      { ...structuredClone(base), spec: { containers: undefined, n: 1, f: () => 1 } },
      { ...structuredClone(base), spec: { containers: [undefined, { name: 'c' }], n: -0 } },
      { ...structuredClone(base), spec: { n: Number.NaN, containers: [] }, status: new Date(0) },
      { ...structuredClone(base), status: { toJSON: () => ({ phase: 'Running', podIP: '10.0.0.1' }) } },
      // a member fewer, a member more, a shorter and a longer list, the same members in another order
      { ...structuredClone(base), metadata: { name: 'p', labels: { a: '1' } } },
      { ...structuredClone(base), metadata: { name: 'p', labels: { a: '1', b: '2', c: '3' } } },
      { ...structuredClone(base), spec: { containers: [], n: 1 } },
      { ...structuredClone(base), spec: { containers: [{ name: 'c' }, { name: 'd' }], n: 1 } },
      { ...structuredClone(base), status: { podIP: '10.0.0.1', phase: 'Running' } },
      // a scalar where an object was, an object where a list was
      { ...structuredClone(base), spec: 'x', status: { phase: { a: 1 } } },
      { ...structuredClone(base), spec: { containers: { 0: { name: 'c' } } } },
      // __proto__ as a member, as JSON.parse makes it
      JSON.parse('{"kind":"Pod","metadata":{"name":"p","__proto__":{"x":1}}}') as unknown,
    ];
    for (const input of cases) {
      const out = toJsonSharing(input, base);
      expect(out).toStrictEqual(toJson(input));
    }
  });

  it('keeps the stored order of members it shares (the apiserver does not keep a client order either)', () => {
    const base = stored();
    const out = toJsonSharing(
      { ...structuredClone(base), status: { podIP: '10.0.0.1', phase: 'Running' } },
      base,
    );
    expect(out.status).toBe(base.status);
  });

  it('shares an own __proto__ member only when the stored object has one', () => {
    const base = deepFreeze(JSON.parse('{"metadata":{"__proto__":{"x":1}}}') as JsonObject);
    const same = toJsonSharing(JSON.parse('{"metadata":{"__proto__":{"x":1}}}') as JsonObject, base);
    expect(same.metadata).toBe(base.metadata);
    const plain = deepFreeze({ metadata: {} }) as JsonObject;
    const out = toJsonSharing(JSON.parse('{"metadata":{"__proto__":{"x":1}}}') as JsonObject, plain);
    expect(Object.getPrototypeOf(out.metadata)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"metadata":{"__proto__":{"x":1}}}');
  });

  it('copies everything without a stored object', () => {
    const input = structuredClone(stored()) as JsonObject;
    const out = toJsonSharing(input, undefined);
    expect(out).toStrictEqual(input);
    expect(out.spec).not.toBe(input.spec);
  });
});

describe('with enumerable members on Object.prototype', () => {
  it('copies and shares only own members, as JSON does', () => {
    const base = stored();
    const input = structuredClone(base) as JsonObject;
    // The assertions run after the prototype is clean again (the test framework walks objects with for…in).
    let shared: JsonObject;
    let copy: JsonObject;
    Object.defineProperty(Object.prototype, 'polluted', {
      value: { x: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    try {
      shared = toJsonSharing(input, base);
      copy = copyJson(base);
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted;
    }
    expect(Object.keys(shared.spec as JsonObject)).not.toContain('polluted');
    expect(JSON.stringify(shared)).toBe(JSON.stringify(input));
    expect(Object.keys(copy.metadata as JsonObject)).not.toContain('polluted');
    expect(JSON.stringify(copy)).toBe(JSON.stringify(base));
  });
});

describe('copyJson', () => {
  it('copies a frozen JSON value deeply, unfrozen, own __proto__ members included', () => {
    const base = deepFreeze(JSON.parse('{"a":{"b":[1,{"c":2}]},"__proto__":{"d":3}}') as JsonObject);
    const out = copyJson(base);
    expect(JSON.stringify(out)).toBe(JSON.stringify(base));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.isFrozen(out)).toBe(false);
    expect(Object.isFrozen((out.a as { b: unknown[] }).b[1])).toBe(false);
    expect((out.a as JsonObject).b).not.toBe((base.a as JsonObject).b);
  });
});
