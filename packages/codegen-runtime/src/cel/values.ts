/** A CEL duration (nanoseconds). */
export class CelDuration {
  /** Nanoseconds. */
  readonly nanos: bigint;
  /** Creates a duration. */
  constructor(nanos: bigint) {
    this.nanos = nanos;
  }
}

/**
 * A CEL timestamp (nanoseconds since the Unix epoch) and the UTC offset it was written with
 * (`string()` and `format` print it in that offset, as Go's `time.Time` keeps its location).
 */
export class CelTimestamp {
  /** Nanoseconds since the epoch. */
  readonly nanos: bigint;
  /** Seconds east of UTC of the offset the timestamp was written with (0 for `Z`). */
  readonly offsetSeconds: number;
  /** Creates a timestamp. */
  constructor(nanos: bigint, offsetSeconds = 0) {
    this.nanos = nanos;
    this.offsetSeconds = offsetSeconds;
  }
}

/**
 * A value of a type a CEL library adds (`optional_type`, `net.URL`, `net.IP`, `net.CIDR`,
 * `kubernetes.Quantity`, `kubernetes.Semver`, `kubernetes.NamedFormat`): it names its type and
 * says when it equals another value.
 */
export abstract class CelObject {
  /** The CEL type name, as the apiserver writes it in errors. */
  abstract readonly celType: string;
  /** CEL equality with `other`. */
  abstract equals(other: CelValue): boolean;
}

/** A CEL type as a value (`type(x)`, the identifiers `int`, `string`, `list`, …). */
export class CelType extends CelObject {
  /** The CEL type name. */
  readonly celType = 'type';
  /** The name of the type it denotes (`int`, `string`, `list`, `google.protobuf.Duration`, …). */
  readonly name: string;
  /** Creates a type value. */
  constructor(name: string) {
    super();
    this.name = name;
  }
  /** Equal to the same type. */
  equals(other: CelValue): boolean {
    return other instanceof CelType && other.name === this.name;
  }
}

/** The type identifiers an expression may name (`type(self) == string`). */
export const TYPE_IDENTIFIERS: ReadonlySet<string> = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
]);

/**
 * A CEL value: `null`, boolean, int/uint (bigint), double (number), string, bytes, list (array),
 * map (plain object with string keys), duration, timestamp, or a library type ({@link CelObject}).
 */
export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | CelValue[]
  | { [key: string]: CelValue }
  | CelDuration
  | CelTimestamp
  | CelObject;

/** A runtime error of a CEL expression: the rule counts as failed, as on the apiserver. */
export class CelEvalError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'CelEvalError';
  }
}

/**
 * The expression uses something this evaluator does not implement: the validator reports the
 * rule as not evaluated client-side instead of guessing.
 */
export class CelUnsupportedError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'CelUnsupportedError';
  }
}

/** The CEL type name of a value. */
export function typeName(v: CelValue): string {
  if (v === null) return 'null_type';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelDuration) return 'google.protobuf.Duration';
  if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
  if (v instanceof CelObject) return v.celType;
  return 'map';
}

/** Whether the value is a CEL map. */
export function isMap(v: CelValue | undefined): v is { [key: string]: CelValue } {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof CelDuration) &&
    !(v instanceof CelTimestamp) &&
    !(v instanceof CelObject)
  );
}

/** Whether the value is an int or a double. */
export function isNum(v: CelValue | undefined): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

function compareNum(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const UNORDERED = new WeakSet<object>();

/**
 * Marks a list as unordered (a Kubernetes `x-kubernetes-list-type` `set` or `map`): CEL equality
 * with it ignores the order of the items. Returns the list.
 */
export function unorderedList(items: CelValue[]): CelValue[] {
  UNORDERED.add(items);
  return items;
}

function sameItems(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  const left = [...b];
  for (const x of a) {
    const i = left.findIndex((y) => celEquals(x, y));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

/** CEL equality (heterogeneous numeric equality, deep lists and maps; set and map lists unordered). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (isNum(a) && isNum(b)) return compareNum(a, b) === 0;
  if (a === null || b === null) return a === b;
  if (a instanceof CelObject) return a.equals(b);
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object') return a === b;
  if (a instanceof CelDuration || a instanceof CelTimestamp) {
    return b instanceof a.constructor && (b as CelDuration).nanos === a.nanos;
  }
  if (a instanceof Uint8Array)
    return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (UNORDERED.has(a) || UNORDERED.has(b)) return sameItems(a, b);
    return a.every((x, i) => celEquals(x, b[i]!));
  }
  if (!isMap(b) || !isMap(a)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && celEquals(a[k]!, b[k]!));
}

/** CEL ordering of two values of comparable types (`<`, `<=`, …). */
export function celCompare(a: CelValue, b: CelValue, op: string): number {
  if (isNum(a) && isNum(b)) return compareNum(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }
  if (
    (a instanceof CelDuration && b instanceof CelDuration) ||
    (a instanceof CelTimestamp && b instanceof CelTimestamp)
  ) {
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  }
  throw new CelEvalError(`no such overload: ${typeName(a)} ${op} ${typeName(b)}`);
}

/** The argument as a string, or a `no such overload` error naming the function. */
export function str(v: CelValue | undefined, fn: string): string {
  if (typeof v !== 'string') throw noOverload(fn, v);
  return v;
}

/** The argument as an int, or a `no such overload` error naming the function. */
export function int(v: CelValue | undefined, fn: string): number {
  if (typeof v !== 'bigint') throw noOverload(fn, v);
  return Number(v);
}

/** cel-go's error for a call no overload of the function accepts. */
export function noOverload(fn: string, ...args: Array<CelValue | undefined>): CelEvalError {
  const types = args.filter((a) => a !== undefined).map((a) => typeName(a as CelValue));
  return new CelEvalError(`no such overload: ${fn}(${types.join(', ')})`);
}

/** Go's `string(bytes)` conversion in CEL: an error for bytes that are not UTF-8. */
export function bytesToString(v: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(v);
  } catch {
    throw new CelEvalError('invalid UTF-8 in bytes, cannot convert to string');
  }
}
