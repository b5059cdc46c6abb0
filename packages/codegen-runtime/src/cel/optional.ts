import {
  CelDuration,
  CelEvalError,
  CelObject,
  CelTimestamp,
  type CelValue,
  celEquals,
  isMap,
} from './values.ts';

/** A CEL `optional_type` value: `optional.of(x)` or `optional.none()`. */
export class CelOptional extends CelObject {
  /** The CEL type name. */
  readonly celType = 'optional_type';
  /** The value, undefined for `optional.none()`. */
  readonly value: CelValue | undefined;
  /** Creates an optional; `value` undefined is `optional.none()`. */
  constructor(value: CelValue | undefined) {
    super();
    this.value = value;
  }
  /** Whether it holds a value. */
  hasValue(): boolean {
    return this.value !== undefined;
  }
  /** Equal when both are empty or both hold equal values. */
  equals(other: CelValue): boolean {
    if (!(other instanceof CelOptional)) return false;
    if (this.value === undefined || other.value === undefined) return this.value === other.value;
    return celEquals(this.value, other.value);
  }
}

/** `optional.none()`. */
export const OPTIONAL_NONE = new CelOptional(undefined);

/** Whether a value is its type's zero value (`optional.ofNonZeroValue`). */
export function isZeroValue(v: CelValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === '') return true;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof CelDuration || v instanceof CelTimestamp) return v.nanos === 0n;
  if (v instanceof CelOptional) return !v.hasValue();
  if (isMap(v)) return Object.keys(v).length === 0;
  return false;
}

/** Functions of the optional library, called on an optional: undefined when `fn` is not one of them. */
export function optionalMethod(o: CelOptional, fn: string, args: CelValue[]): CelValue | undefined {
  switch (fn) {
    case 'hasValue':
      return o.hasValue();
    case 'value':
      if (o.value === undefined) throw new CelEvalError('optional.none() dereference');
      return o.value;
    case 'orValue':
      return o.value ?? args[0]!;
    case 'or': {
      if (o.hasValue()) return o;
      const alt = args[0];
      if (!(alt instanceof CelOptional)) throw new CelEvalError('no such overload: optional.or');
      return alt;
    }
    default:
      return undefined;
  }
}
