/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value (drops functions and undefined, like JSON). */
export function clone<T>(value: T): T {
  if (value === undefined) return value;
  return structuredClone(value);
}

/** Structural equality of two JSON values; `undefined` members equal absent ones. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Removes `undefined` members recursively (JSON round-trip semantics) and returns a copy. */
export function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
