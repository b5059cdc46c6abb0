// The Kubernetes CEL quantity library, after apimachinery's `resource.ParseQuantity`.
import { CelEvalError, CelObject, type CelValue, noOverload } from './values.ts';

const FORMAT_WRONG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const MAX_INT64 = (1n << 63n) - 1n;
const NANO = 1_000_000_000n;

/**
 * apimachinery's `int64Amount` (`value × 10^scale`), the representation a quantity keeps while it
 * fits; only then is it an integer to `AsInt64` (`1000m` is not).
 */
interface Int64Amount {
  readonly value: bigint;
  readonly scale: number;
}

const fitsInt64 = (v: bigint) => v <= MAX_INT64 && v >= -MAX_INT64 - 1n;

/** `positiveScaleInt64`: value × 10^scale when it fits. */
function scaled(a: Int64Amount, scale: number): bigint | undefined {
  const v = a.value * 10n ** BigInt(a.scale - scale);
  return fitsInt64(v) ? v : undefined;
}

/** `int64Amount.Add`: undefined when it overflows (the quantity then becomes an `inf.Dec`). */
function addAmounts(a: Int64Amount, b: Int64Amount): Int64Amount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  const scale = Math.min(a.scale, b.scale);
  const x = scaled(a, scale);
  const y = scaled(b, scale);
  if (x === undefined || y === undefined || !fitsInt64(x + y)) return undefined;
  return { value: x + y, scale };
}

/** A quantity (`kubernetes.Quantity`): its value in nano units, rounded away from zero as the apiserver does. */
class CelQuantity extends CelObject {
  /** The CEL type name. */
  readonly celType = 'kubernetes.Quantity';
  /** The value times 10^9. */
  readonly nanos: bigint;
  /** The `int64Amount`, undefined when apimachinery holds the value as an `inf.Dec`. */
  readonly amount: Int64Amount | undefined;
  /** Creates a quantity. */
  constructor(nanos: bigint, amount?: Int64Amount) {
    super();
    this.nanos = nanos;
    this.amount = amount;
  }
  /** `Quantity.AsInt64`: the integer value, undefined unless an `int64Amount` of scale ≥ 0 that fits. */
  asInt64(): bigint | undefined {
    const a = this.amount;
    if (!a || a.scale < 0) return undefined;
    return scaled(a, 0);
  }
  /** `Quantity.Add` (`Sub` adds the negation). */
  plus(other: CelQuantity, sign: 1n | -1n): CelQuantity {
    const b = other.amount && { value: sign * other.amount.value, scale: other.amount.scale };
    const amount = this.amount && b ? addAmounts(this.amount, b) : undefined;
    return new CelQuantity(this.nanos + sign * other.nanos, amount);
  }
  /** Equal values (`1k == 1000`). */
  equals(other: CelValue): boolean {
    return other instanceof CelQuantity && other.nanos === this.nanos;
  }
}

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** Splits as apimachinery's `parseQuantityString` does. */
function split(s: string): { positive: boolean; num: string; denom: string; suffix: string } {
  let pos = 0;
  let positive = true;
  if (s[0] === '-' || s[0] === '+') {
    positive = s[0] === '+';
    pos++;
  }
  while (pos < s.length && s[pos] === '0') pos++;
  if (pos >= s.length) return { positive, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < s.length && s[i]! >= '0' && s[i]! <= '9') i++;
  const num = s.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (s[pos] === '.') {
    pos++;
    i = pos;
    while (i < s.length && s[i]! >= '0' && s[i]! <= '9') i++;
    denom = s.slice(pos, i);
    pos = i;
  }
  const suffixStart = pos;
  while (pos < s.length && 'eEinumkKMGTP'.includes(s[pos]!)) pos++;
  if (s[pos] === '-' || s[pos] === '+') pos++;
  while (pos < s.length && s[pos]! >= '0' && s[pos]! <= '9') pos++;
  if (pos < s.length) throw new Error(FORMAT_WRONG);
  return { positive, num, denom, suffix: s.slice(suffixStart) };
}

/** apimachinery's `resource.ParseQuantity`. */
function parseQuantity(s: string): CelQuantity {
  if (s === '') throw new Error(FORMAT_WRONG);
  const { positive, num, denom, suffix } = split(s);
  let base = 10;
  let exponent: number;
  if (suffix in DECIMAL_SUFFIXES) exponent = DECIMAL_SUFFIXES[suffix]!;
  else if (suffix in BINARY_SUFFIXES) {
    base = 2;
    exponent = BINARY_SUFFIXES[suffix]!;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix) && Math.abs(Number(suffix.slice(1))) < 2 ** 31) {
    exponent = Number(suffix.slice(1));
  } else throw new Error("unable to parse quantity's suffix");
  // The exact value is mantissa / 10^denom.length × base^exponent.
  const mantissa = BigInt(num + denom);
  let numer = mantissa * NANO;
  let denomValue = 10n ** BigInt(denom.length);
  if (base === 2) numer *= 1n << BigInt(exponent);
  else if (exponent >= 0) numer *= 10n ** BigInt(exponent);
  else denomValue *= 10n ** BigInt(-exponent);
  let nanos = numer / denomValue;
  if (numer % denomValue !== 0n) nanos += 1n; // rounded up to the nearest 1n
  const fast =
    base === 10
      ? num.length + denom.length <= 18 && exponent - denom.length >= -9
      : denom.length === 0 && num.length + Math.trunc((exponent * 3) / 10) + 1 <= 15;
  if (!fast && nanos > MAX_INT64 * NANO) nanos = MAX_INT64 * NANO;
  let amount: Int64Amount | undefined;
  if (fast) {
    const sign = positive ? 1n : -1n;
    amount =
      base === 2
        ? { value: sign * mantissa * (1n << BigInt(exponent)), scale: 0 }
        : { value: sign * mantissa, scale: exponent - denom.length };
    if (!fitsInt64(amount.value)) amount = undefined;
  }
  return new CelQuantity(positive ? nanos : -nanos, amount);
}

function operand(v: CelValue | undefined, fn: string, self: CelQuantity): CelQuantity {
  if (v instanceof CelQuantity) return v;
  if (typeof v === 'bigint') return new CelQuantity(v * NANO, { value: v, scale: 0 });
  throw noOverload(fn, self, v);
}

/** The quantity library; undefined when `fn` with these arguments is not one of them. */
export function quantityFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target === undefined) {
    const s = args[0];
    if (typeof s !== 'string' || args.length !== 1) return undefined;
    if (fn === 'quantity') {
      try {
        return parseQuantity(s);
      } catch (e) {
        throw new CelEvalError((e as Error).message);
      }
    }
    if (fn === 'isQuantity') {
      try {
        parseQuantity(s);
        return true;
      } catch {
        return false;
      }
    }
    return undefined;
  }
  if (!(target instanceof CelQuantity)) return undefined;
  const n = target.nanos;
  switch (fn) {
    case 'isInteger':
      return target.asInt64() !== undefined;
    case 'asInteger': {
      const v = target.asInt64();
      if (v === undefined) throw new CelEvalError('cannot convert value to integer');
      return v;
    }
    case 'asApproximateFloat':
      return Number(n) / 1e9;
    case 'add':
      return target.plus(operand(args[0], fn, target), 1n);
    case 'sub':
      return target.plus(operand(args[0], fn, target), -1n);
    case 'isGreaterThan':
      return n > operand(args[0], fn, target).nanos;
    case 'isLessThan':
      return n < operand(args[0], fn, target).nanos;
    case 'compareTo': {
      const m = operand(args[0], fn, target).nanos;
      return n > m ? 1n : n < m ? -1n : 0n;
    }
    default:
      return undefined;
  }
}
