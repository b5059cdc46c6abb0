import { describe, expect, it } from 'vitest';
import { deepFreezeShared } from './freeze-shared.ts';
import { StringPool } from './string-pool.ts';

describe('deepFreezeShared', () => {
  it('freezes every object and array and leaves every value equal', () => {
    const pool = new StringPool();
    const json = JSON.stringify({
      metadata: { name: 'a-long-object-name', uid: '0f0e0d0c-0b0a', labels: { app: 'frontend-application' } },
      spec: { containers: [{ image: 'registry.example.com/app:v1', args: ['--flag=value-one', 'x'] }] },
      data: { n: 1, t: true, z: null, long: 'y'.repeat(300) },
    });
    const a = deepFreezeShared(JSON.parse(json), pool);
    const b = deepFreezeShared(JSON.parse(json), pool);
    for (const obj of [a, b]) {
      expect(obj).toEqual(JSON.parse(json));
      expect(Object.isFrozen(obj)).toBe(true);
      expect(Object.isFrozen(obj.metadata.labels)).toBe(true);
      expect(Object.isFrozen(obj.spec.containers[0].args)).toBe(true);
      expect(Object.isFrozen(obj.data)).toBe(true);
    }
  });

  it("pools no value of the payload (a ConfigMap's or Secret's data, binaryData), but everything else", () => {
    const pool = new StringPool();
    const obj = deepFreezeShared(
      JSON.parse(
        JSON.stringify({
          metadata: { name: 'n', labels: { app: 'frontend-application' } },
          spec: { nested: { data: 'a nested data value' } },
          data: { key: 'a data value of some length', list: ['a data value in a list'] },
          binaryData: { bin: 'YmluYXJ5IGRhdGEgdmFsdWU=' },
        }),
      ),
      pool,
    );
    expect(Object.isFrozen(obj.data)).toBe(true);
    expect(Object.isFrozen(obj.data.list)).toBe(true);
    expect(Object.isFrozen(obj.binaryData)).toBe(true);
    // A string the walk pooled is a hit now; one it left alone is new to the pool.
    expect(pool.share('frontend-application')).toBe('frontend-application');
    expect(pool.share('a nested data value')).toBe('a nested data value');
    expect(pool.share('a data value of some length')).toBeUndefined();
    expect(pool.share('a data value in a list')).toBeUndefined();
    expect(pool.share('YmluYXJ5IGRhdGEgdmFsdWU=')).toBeUndefined();
  });

  it('leaves frozen parts (shared with someone else) as they are', () => {
    const shared = Object.freeze({ image: 'registry.example.com/app:v1', mutable: { x: 'not-frozen-here' } });
    const obj = deepFreezeShared({ metadata: { name: 'n' }, spec: shared }, new StringPool());
    expect(obj.spec).toBe(shared);
    expect(Object.isFrozen(shared.mutable)).toBe(false);
  });

  it('only freezes, adding no own property, when Object.prototype has an enumerable member', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.inheritedValue = 'an inherited string value';
    try {
      const obj = deepFreezeShared(
        JSON.parse('{"metadata":{"name":"n"},"data":{"k":"some value here"}}'),
        new StringPool(),
      );
      expect(Object.isFrozen(obj.data)).toBe(true);
      expect(Object.hasOwn(obj, 'inheritedValue')).toBe(false);
      expect(Object.hasOwn(obj.data, 'inheritedValue')).toBe(false);
    } finally {
      delete proto.inheritedValue;
    }
  });

  it('returns what is not an unfrozen object unchanged', () => {
    const pool = new StringPool();
    expect(deepFreezeShared('a string of some length', pool)).toBe('a string of some length');
    expect(deepFreezeShared(null, pool)).toBe(null);
  });
});

describe('StringPool', () => {
  it('hands out an equal string seen before and nothing for a new one; one-off strings age out', () => {
    const pool = new StringPool();
    for (let i = 0; i < 50_000; i++) expect(pool.share(`one-off-value-${i}`)).toBeUndefined();
    expect(pool.share('one-off-value-0')).toBeUndefined();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3_000; i++) {
        const s = `repeated-value-${i}`;
        expect(pool.share(s)).toBe(round === 0 ? undefined : s);
      }
    }
    expect(pool.share('short')).toBeUndefined();
    expect(pool.share('short')).toBeUndefined();
    expect(pool.share('long'.repeat(100))).toBeUndefined();
    expect(pool.share('long'.repeat(100))).toBeUndefined();
  });
});
