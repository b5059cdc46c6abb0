/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets `out[key]`, as an own property even for `__proto__` (which JSON.parse creates as one). */
function put(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function cloneTree(value: object): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const c: unknown = value[i];
      out[i] = typeof c === 'object' && c !== null ? cloneTree(c) : c;
    }
    return out;
  }
  const out: JsonObject = {};
  const record = value as JsonObject;
  for (const k of Object.keys(record)) {
    const c = record[k];
    if (c === undefined) continue;
    put(out, k, typeof c === 'object' && c !== null ? cloneTree(c) : c);
  }
  return out;
}

/**
 * A deep copy of a JSON value (stored objects, and values already through {@link toJson}):
 * unfrozen, sharing nothing with the original; `undefined` members are dropped.
 */
export function clone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  return cloneTree(value) as T;
}

/** Structural equality of two JSON values; `undefined` members equal absent ones. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as JsonObject;
  const rb = b as JsonObject;
  let na = 0;
  for (const k of Object.keys(ra)) {
    const va = ra[k];
    if (va === undefined) continue;
    na++;
    if (!Object.hasOwn(rb, k) || !deepEqual(va, rb[k])) return false;
  }
  let nb = 0;
  for (const k of Object.keys(rb)) if (rb[k] !== undefined) nb++;
  return na === nb;
}

const PLAIN = Object.prototype;
/** Deeper than this, {@link toJson} hands the value to JSON (which reports a cycle as JSON does). */
const MAX_FAST_DEPTH = 200;

/** The JSON value of `value` as JSON.stringify sees it, or `undefined` for what it leaves out. */
function jsonTree(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON has no -0, NaN or Infinity.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object':
      break;
    default:
      // undefined, functions and symbols are left out; bigint goes to JSON, which throws.
      if (typeof value === 'bigint') return JSON.parse(JSON.stringify(value)) as unknown;
      return undefined;
  }
  if (value === null) return null;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (depth > MAX_FAST_DEPTH || (proto !== PLAIN && proto !== null && !Array.isArray(value))) {
    // Class instances (Dates, client-node models, boxed values): JSON decides.
    return JSON.parse(JSON.stringify(value)) as unknown;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.parse(JSON.stringify(value)) as unknown;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const c = jsonTree(value[i], depth + 1);
      out[i] = c === undefined ? null : c;
    }
    return out;
  }
  const out: JsonObject = {};
  const record = value as JsonObject;
  for (const k of Object.keys(record)) {
    const c = jsonTree(record[k], depth + 1);
    if (c !== undefined) put(out, k, c);
  }
  return out;
}

/**
 * A copy with JSON round-trip semantics (`undefined` members dropped, `toJSON` called, class
 * instances as their JSON), without printing and parsing plain data.
 */
export function toJson<T>(value: T): T {
  return jsonTree(value, 0) as T;
}
