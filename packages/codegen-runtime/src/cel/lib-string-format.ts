// `<string>.format(<list>)` of cel-go's strings extension at the version kube-apiserver uses
// (`ext.Strings(ext.StringsVersion(2))`: the formatter before the cel-spec rewrite), with its
// output and error messages: `%s %d %f %e %b %x %X %o`, `%%`, precision `%.3f`; `%f` and `%e`
// printed as golang.org/x/text's en-US printer does (digit grouping, `×10⁰³`).
import { fixedDigits, goFormatFixed, goFormatG, goQuote, roundScaled } from './go-format.ts';
import { formatDuration, formatTimestamp } from './lib-time.ts';
import {
  bytesToString,
  CelDuration,
  CelEvalError,
  CelTimestamp,
  CelType,
  type CelValue,
  isMap,
  typeName,
} from './values.ts';

type Clause = (arg: CelValue) => string;

class FormatError extends Error {}

const STRING_CLAUSE_TYPES =
  'strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps';

/** `%s`: the value as CEL's `string()` gives it; lists and maps as CEL literals. */
function formatString(arg: CelValue): string {
  if (Array.isArray(arg)) return formatList(arg);
  if (isMap(arg)) return formatMap(arg);
  if (arg === null) return 'null';
  if (typeof arg === 'bigint' || typeof arg === 'boolean' || typeof arg === 'string') return String(arg);
  if (typeof arg === 'number') return goFormatG(arg);
  if (arg instanceof CelTimestamp) return formatTimestamp(arg);
  if (arg instanceof CelDuration) return formatDuration(arg);
  if (arg instanceof CelType) return arg.name;
  if (arg instanceof Uint8Array) {
    try {
      return bytesToString(arg);
    } catch (e) {
      throw new FormatError(`could not convert argument ${goQuote((e as Error).message)} to string`);
    }
  }
  throw new FormatError(
    `string clause can only be used on ${STRING_CLAUSE_TYPES}, was given ${typeName(arg)}`,
  );
}

/** A list member or map value inside `%s`: a CEL literal. */
function formatMember(v: CelValue): string {
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'number') {
    const s = goFormatFixed(v, 6);
    return Number.isFinite(v) ? s : goQuote(s);
  }
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return `b${goQuote(formatString(v))}`;
  if (v instanceof CelTimestamp) return `timestamp(${goQuote(formatTimestamp(v))})`;
  if (v instanceof CelDuration) return `duration(${goQuote(formatDuration(v))})`;
  if (v === null || typeof v === 'boolean' || v instanceof CelType || Array.isArray(v) || isMap(v))
    return formatString(v);
  throw new FormatError(`no formatting function for ${typeName(v)}`);
}

function formatList(items: readonly CelValue[]): string {
  return `[${items.map(formatMember).join(', ')}]`;
}

function formatMap(m: { readonly [key: string]: CelValue }): string {
  const pairs = Object.entries(m).map(([k, v]) => [goQuote(k), formatMember(v)] as const);
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function decimal(arg: CelValue): string {
  if (typeof arg !== 'bigint')
    throw new FormatError(`decimal clause can only be used on integers, was given ${typeName(arg)}`);
  return String(arg);
}

/** The double of a `%f`/`%e` argument: a double, or the strings `NaN`, `Infinity`, `-Infinity`. */
function doubleArg(arg: CelValue, clause: string): number {
  if (typeof arg === 'number') return arg;
  if (arg === 'NaN' || arg === 'Infinity' || arg === '-Infinity') return Number(arg);
  throw new FormatError(`${clause} clause can only be used on doubles, was given ${typeName(arg)}`);
}

/** x/text's special values: `NaN`, `∞`, `-∞`. */
function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  return undefined;
}

/** `%.Nf` through x/text's en-US printer: grouped thousands, round half to even, no `-0`. */
function fixed(precision: number): Clause {
  return (arg) => {
    const x = doubleArg(arg, 'fixed-point');
    const s = special(x);
    if (s) return s;
    const { int, frac } = fixedDigits(x, precision);
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return `${x < 0 ? '-' : ''}${grouped}${precision > 0 ? `.${frac}` : ''}`;
  };
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * `%e` through x/text's printer. cel-go passes the precision as a width (`%6e`), so the mantissa
 * always has six decimals and the precision only pads the result on the left.
 */
function scientific(width: number): Clause {
  return (arg) => {
    const x = doubleArg(arg, 'scientific');
    let out = special(x);
    if (out === undefined) {
      let exp = x === 0 ? 0 : Number(Math.abs(x).toExponential().split('e')[1]);
      let m = scaledDigits(x, 6 - exp);
      if (m.length > 7) {
        exp++;
        m = scaledDigits(x, 6 - exp);
      }
      const e = String(Math.abs(exp))
        .padStart(2, '0')
        .replace(/\d/g, (d) => SUPERSCRIPT[Number(d)]!);
      out = `${x < 0 ? '-' : ''}${m[0]}.${m.slice(1)}×10${exp < 0 ? '⁻' : ''}${e}`;
    }
    return ' '.repeat(Math.max(0, width - [...out].length)) + out;
  };
}

/** The digits of round(|x| × 10^k), at least 7 of them. */
function scaledDigits(x: number, k: number): string {
  return roundScaled(x, k).toString().padStart(7, '0');
}

function binary(arg: CelValue): string {
  if (typeof arg === 'bigint') return arg.toString(2);
  if (typeof arg === 'boolean') return arg ? '1' : '0';
  throw new FormatError(`only integers and bools can be formatted as binary, was given ${typeName(arg)}`);
}

function hex(upper: boolean): Clause {
  return (arg) => {
    let s: string;
    if (typeof arg === 'bigint') s = arg.toString(16);
    else if (typeof arg === 'string' || arg instanceof Uint8Array) {
      const bytes = typeof arg === 'string' ? new TextEncoder().encode(arg) : arg;
      s = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
    } else
      throw new FormatError(
        `only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(arg)}`,
      );
    return upper ? s.toUpperCase() : s;
  };
}

function octal(arg: CelValue): string {
  if (typeof arg !== 'bigint')
    throw new FormatError(`octal clause can only be used on integers, was given ${typeName(arg)}`);
  return arg.toString(8);
}

/** Parses the clause after `%` (precision, then the verb): its length and how it formats. */
function parseClause(s: string): [number, Clause] {
  let i = 0;
  let precision: number | undefined;
  if (s[0] === '.') {
    i = 1;
    while (i < s.length && /[0-9]/.test(s[i]!)) i++;
    if (i >= s.length)
      throw new FormatError('error while parsing precision: could not find end of precision specifier');
    const digits = s.slice(1, i);
    if (digits === '')
      throw new FormatError(
        'error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
      );
    precision = Number(digits);
  }
  const verb = s[i]!;
  const clauses: Record<string, Clause> = {
    s: formatString,
    d: decimal,
    f: fixed(precision ?? 6),
    e: scientific(precision ?? 6),
    b: binary,
    x: hex(false),
    X: hex(true),
    o: octal,
  };
  const clause = clauses[verb];
  if (!clause) throw new FormatError(`unrecognized formatting clause "${verb}"`);
  return [i + 1, clause];
}

/** `format` applied to a format string and its argument list. */
function formatCelString(format: string, args: readonly CelValue[]): string {
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < format.length; ) {
    if (format[i] !== '%') {
      out += format[i++];
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new CelEvalError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new CelEvalError('unexpected end of string');
    let read: number;
    let clause: Clause;
    try {
      [read, clause] = parseClause(format.slice(i + 1));
    } catch (e) {
      if (e instanceof FormatError) throw new CelEvalError(`could not parse formatting clause: ${e.message}`);
      throw e;
    }
    try {
      out += clause(args[argIndex]!);
    } catch (e) {
      if (e instanceof FormatError) throw new CelEvalError(`error during formatting: ${e.message}`);
      throw e;
    }
    i += 1 + read;
    argIndex++;
  }
  return out;
}

/** The strings extension's `format`; undefined when `fn` with these arguments is not it. */
export function stringFormatFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (fn !== 'format' || typeof target !== 'string' || args.length !== 1 || !Array.isArray(args[0]))
    return undefined;
  return formatCelString(target, args[0]);
}
