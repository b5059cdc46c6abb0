import { INTERNAL } from './internal/symbols.ts';

/** An object that decides its own equality (compared before structural equality). */
export interface Equaler<T> {
  /** True when this object is equal to `other`. */
  equals(other: T): boolean;
}

/**
 * The equality krt uses for change detection: the same reference, then an `equals` method, then
 * structural equality (plain objects, arrays, Maps, Sets, Dates; class instances by their own
 * enumerable fields and prototype). krt collections compare by identity.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#equal}
 */
export function equal<T>(a: T, b: T): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return Number.isNaN(a) && Number.isNaN(b);
  }
  const eq = (a as Partial<Equaler<T>>).equals;
  if (typeof eq === 'function') return eq.call(a, b);
  if (INTERNAL in a || INTERNAL in b) return false;
  return deepEqual(a, b);
}

/**
 * Structural equality of JSON-like values (see {@link equal}).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#deepEqual}
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const pa = Object.getPrototypeOf(a);
  if (pa !== Object.getPrototypeOf(b)) return false;
  if (pa !== Object.prototype && pa !== null) {
    if (a instanceof Date) return a.getTime() === (b as Date).getTime();
    if (a instanceof Map) {
      const mb = b as Map<unknown, unknown>;
      if (a.size !== mb.size) return false;
      for (const [k, v] of a) if (!mb.has(k) || !deepEqual(v, mb.get(k))) return false;
      return true;
    }
    if (a instanceof Set) {
      const sb = b as Set<unknown>;
      if (a.size !== sb.size) return false;
      for (const v of a) if (!sb.has(v)) return false;
      return true;
    }
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    if (va === undefined && !Object.hasOwn(b, k)) return false;
    if (!deepEqual(va, vb)) return false;
  }
  return true;
}
