/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const PLAIN = Object.prototype;

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

/**
 * True when `Object.prototype` has no enumerable members, so `for…in` over a plain object sees
 * only its own (the fast walks below rely on it; a polluted prototype sends them to the general ones).
 */
function cleanPrototype(): boolean {
  for (const _ in PLAIN) return false;
  return true;
}

function copyTree(value: object): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const c: unknown = value[i];
      out[i] = typeof c === 'object' && c !== null ? copyTree(c) : c;
    }
    return out;
  }
  // Spreading copies every own member as a plain data property (`__proto__` too), in order.
  const out: JsonObject = { ...(value as JsonObject) };
  for (const k in out) {
    const c = out[k];
    if (typeof c === 'object' && c !== null) put(out, k, copyTree(c));
  }
  return out;
}

/**
 * A deep copy of a JSON value without `undefined` members (a stored object, or part of one):
 * unfrozen, sharing nothing with the original. Cheaper than {@link clone}, which also drops
 * `undefined` members.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  return (cleanPrototype() ? copyTree(value) : cloneTree(value)) as T;
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

/** True when {@link jsonTree} keeps `value` (as a member; in an array it would be `null`). */
function kept(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** `Object.prototype.toJSON`, which every plain object would inherit (normally absent). */
function plainToJson(): unknown {
  return (PLAIN as { toJSON?: unknown }).toJSON;
}

/** The members of `value` before `stop` (all without), in order, that {@link jsonTree} keeps, with `base`'s values. */
function sharedPrefix(value: JsonObject, base: JsonObject, stop: string | undefined): JsonObject {
  const out: JsonObject = {};
  for (const k in value) {
    if (k === stop) break;
    if (kept(value[k])) put(out, k, base[k]);
  }
  return out;
}

/**
 * {@link jsonTree} of `value`, sharing with `base` (a frozen JSON value, or `undefined`): where
 * the JSON of a part of `value` equals the part of `base` at the same place, the result holds
 * that part of `base` itself, not a copy (with `base`'s order of members, which may differ);
 * `base` when all of it equals.
 */
function sharedTree(value: unknown, base: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    const c = jsonTree(value, depth);
    return c === base ? base : c;
  }
  if (value === base) return base;
  if (typeof base !== 'object' || base === null || depth > MAX_FAST_DEPTH) return jsonTree(value, depth);
  if (Array.isArray(value)) {
    if (!Array.isArray(base) || typeof (value as { toJSON?: unknown }).toJSON === 'function')
      return jsonTree(value, depth);
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const b: unknown = i < base.length ? base[i] : undefined;
      let c = sharedTree(value[i], b, depth + 1);
      if (c === undefined) c = null;
      if (out === undefined && c !== b) {
        out = new Array(value.length);
        for (let j = 0; j < i; j++) out[j] = base[j];
      }
      if (out !== undefined) out[i] = c;
    }
    return out === undefined && value.length === base.length ? base : (out ?? base.slice(0, value.length));
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (
    Array.isArray(base) ||
    (proto !== PLAIN && proto !== null) ||
    (proto === PLAIN && plainToJson() !== undefined)
  )
    return jsonTree(value, depth);
  const record = value as JsonObject;
  const baseRecord = base as JsonObject;
  let out: JsonObject | undefined;
  let same = 0;
  // for…in: a plain object (its prototype has no enumerable members) without a keys array.
  for (const k in record) {
    const v = record[k];
    // An own toJSON decides the whole object's JSON.
    if (k === 'toJSON' && typeof v === 'function') return jsonTree(value, depth);
    const b = k === '__proto__' ? (Object.hasOwn(baseRecord, k) ? baseRecord[k] : undefined) : baseRecord[k];
    const c = sharedTree(v, b, depth + 1);
    if (c === undefined) continue;
    if (out === undefined && c !== b) out = sharedPrefix(record, baseRecord, k);
    if (out !== undefined) put(out, k, c);
    else same++;
  }
  if (out !== undefined) return out;
  // Every member equals base's; base equals when it has no other members.
  let size = 0;
  for (const _ in baseRecord) size++;
  return size === same ? base : sharedPrefix(record, baseRecord, undefined);
}

/**
 * {@link toJson} of `value`, sharing every part whose JSON equals the part of `base` (a stored,
 * deep-frozen object) at the same place: those parts of the result are frozen and shared with
 * `base`, the rest is new. The top level is always a new object.
 */
export function toJsonSharing<T>(value: T, base: JsonObject | undefined): T {
  if (!cleanPrototype()) return toJson(value);
  const out = sharedTree(value, base, 0);
  return (out === base ? { ...base } : out) as T;
}

/**
 * A copy with JSON round-trip semantics (`undefined` members dropped, `toJSON` called, class
 * instances as their JSON), without printing and parsing plain data.
 */
export function toJson<T>(value: T): T {
  return jsonTree(value, 0) as T;
}
