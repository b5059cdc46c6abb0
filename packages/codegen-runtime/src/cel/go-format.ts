// Go's number and string printing where CEL results depend on it: `%g` (a double's `string()`),
// `strconv.FormatFloat(x, 'f', -1)` (a duration's `string()`), `%.Nf` with exact round-half-even,
// and `%q` quoting.

/** The shortest round-trip digits of a finite, non-zero |x| and its decimal exponent (d.ddd × 10^exp). */
function shortestDigits(x: number): { digits: string; exp: number } {
  const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
  return { digits: mantissa.replace('.', ''), exp: Number(e) };
}

/** Plain decimal notation of digits d1d2… with the point after 10^exp. */
function plain(digits: string, exp: number): string {
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return digits + '0'.repeat(exp + 1 - digits.length);
  return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Go's `fmt.Sprintf("%g", x)`: shortest digits, exponent form below 1e-4 and from 1e6 (`1e+06`). */
export function goFormatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(x);
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  return sign + plain(digits, exp);
}

/** Go's `strconv.FormatFloat(x, 'f', -1, 64)`: shortest digits, never an exponent. */
export function goFormatShortestFixed(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exp } = shortestDigits(x);
  return (x < 0 ? '-' : '') + plain(digits, exp);
}

/** The exact value of a finite double as mantissa × 2^exponent (mantissa an integer, sign dropped). */
function exactBinary(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** round-half-to-even(|x| × 10^k), computed on the exact binary value of x (k may be negative). */
export function roundScaled(x: number, k: number): bigint {
  const { mantissa, exponent } = exactBinary(x);
  let num = mantissa;
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  if (k >= 0) num *= 10n ** BigInt(k);
  else den *= 10n ** BigInt(-k);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  return q;
}

/**
 * |x| with `precision` decimals, rounded half to even on its exact binary value (Go's
 * `strconv.FormatFloat(x, 'f', precision, 64)`, which JavaScript's `toFixed` is not: it rounds
 * ties away from zero and switches to exponent form from 1e21). Returns the integer and
 * fraction digits, without sign.
 */
export function fixedDigits(x: number, precision: number): { int: string; frac: string } {
  const s = roundScaled(x, precision)
    .toString()
    .padStart(precision + 1, '0');
  return { int: s.slice(0, s.length - precision), frac: s.slice(s.length - precision) };
}

/** Go's `fmt.Sprintf("%.<precision>f", x)`. */
export function goFormatFixed(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const { int, frac } = fixedDigits(x, precision);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  return `${sign}${int}${precision > 0 ? `.${frac}` : ''}`;
}

/** The escapes Go's `strconv.Quote` and cel-go's `strings.quote` share. */
export const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's `strconv.Quote` (`%q`): a double-quoted string, non-printable runes escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const esc = QUOTE_ESCAPES[c];
    if (esc) out += esc;
    else if (PRINTABLE.test(c)) out += c;
    else {
      const cp = c.codePointAt(0)!;
      if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
