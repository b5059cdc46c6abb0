// CEL timestamps and durations as cel-go (Go's `time`) has them: RFC 3339 parsing with Go's error
// messages, `string()` in the offset the timestamp was written with, the getters (`getFullYear`,
// `getMonth`, … UTC unless a time zone is given) and the arithmetic with its overflow checks.
import { goFormatShortestFixed } from './go-format.ts';
import {
  CelDuration,
  CelEvalError,
  CelTimestamp,
  CelUnsupportedError,
  type CelValue,
  noOverload,
  str,
} from './values.ts';

const NS = 1_000_000_000n;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds: CEL's timestamp range. */
const MIN_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const RFC3339 = '2006-01-02T15:04:05Z07:00';

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Go's `time` package quoting of a value in a parse error. */
function q(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (any year). */
function daysFromCivil(year: number, month: number, day: number): bigint {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return BigInt(Math.round(d.getTime() / 86_400_000));
}

/** Go's `getnum`: one or two digits (two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!/^[0-9]/.test(s)) return undefined;
  if (!/^[0-9]{2}/.test(s)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/**
 * Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, s)` and cel-go's range check
 * do, with their error messages. `zoneOptional` accepts a missing zone as UTC (strfmt's
 * date-time layouts, used for `format: date-time` fields).
 */
export function parseTimestamp(s: string, zoneOptional = false): CelTimestamp {
  let v = s;
  const bad = (elem: string) =>
    new CelEvalError(`parsing time ${q(s)} as ${q(RFC3339)}: cannot parse ${q(v)} as ${q(elem)}`);
  const range = (what: string) => new CelEvalError(`parsing time ${q(s)}: ${what} out of range`);
  const lit = (c: string) => {
    if (v[0] !== c) throw bad(c);
    v = v.slice(1);
  };
  if (!/^[0-9]{4}/.test(v)) throw bad('2006');
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  const fields: number[] = [];
  const steps: Array<[string, string, boolean, number]> = [
    ['-', '01', true, 12],
    ['-', '02', true, 99],
    ['T', '15', false, 23],
    [':', '04', true, 59],
    [':', '05', true, 59],
  ];
  const names = ['month', 'day', 'hour', 'minute', 'second'];
  for (const [i, [sep, elem, fixed, max]] of steps.entries()) {
    lit(sep);
    const n = getnum(v, fixed);
    if (!n) throw bad(elem);
    [, v] = n;
    if (n[0] > max || (i === 0 && n[0] === 0)) throw range(names[i]!);
    fields.push(n[0]);
  }
  let nanos = 0n;
  const frac = /^[.,]([0-9]+)/.exec(v);
  if (frac) {
    nanos = BigInt(frac[1]!.slice(0, 9).padEnd(9, '0'));
    v = v.slice(frac[0].length);
  }
  let offset = 0;
  if (v[0] === 'Z') v = v.slice(1);
  else if (v === '' && zoneOptional) offset = 0;
  else {
    if (v.length < 6 || v[3] !== ':') throw bad('Z07:00');
    const sign = v[0]!;
    const hh = getnum(v.slice(1, 3), true);
    const mm = getnum(v.slice(4, 6), true);
    v = v.slice(6);
    if (!hh || !mm) throw bad('Z07:00');
    if (hh[0] > 24) throw range('time zone offset hour');
    if (mm[0] > 60) throw range('time zone offset minute');
    offset = (hh[0] * 60 + mm[0]) * 60;
    if (sign === '-') offset = -offset;
    else if (sign !== '+') throw bad('Z07:00');
  }
  if (v !== '') throw new CelEvalError(`parsing time ${q(s)}: extra text: ${q(v)}`);
  const [month, day, hour, minute, second] = fields as [number, number, number, number, number];
  if (day < 1 || day > daysIn(month, year)) throw new CelEvalError(`parsing time ${q(s)}: day out of range`);
  const secs = daysFromCivil(year, month, day) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  if (secs < MIN_UNIX || secs > MAX_UNIX) throw new CelEvalError('timestamp overflow');
  return new CelTimestamp(secs * NS + nanos, offset);
}

/** The calendar fields of an instant at a UTC offset. */
interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: bigint;
  weekday: number;
  yearDay: number;
}

function civil(nanos: bigint, offsetSeconds: number): Civil {
  const secs = floorDiv(nanos, NS);
  const local = secs + BigInt(offsetSeconds);
  const days = floorDiv(local, 86400n);
  const sod = Number(local - days * 86400n);
  const d = new Date(Number(days) * 86_400_000);
  const year = d.getUTCFullYear();
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: Math.floor(sod / 3600),
    minute: Math.floor(sod / 60) % 60,
    second: sod % 60,
    nanos: nanos - secs * NS,
    weekday: d.getUTCDay(),
    yearDay: Number(days - daysFromCivil(year, 1, 1)) + 1,
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's `t.Format(time.RFC3339Nano)` in the timestamp's own offset (what CEL's `string()` gives). */
export function formatTimestamp(t: CelTimestamp): string {
  const c = civil(t.nanos, t.offsetSeconds);
  const frac = c.nanos === 0n ? '' : `.${c.nanos.toString().padStart(9, '0').replace(/0+$/, '')}`;
  const off = Math.trunc(t.offsetSeconds / 60);
  const zone =
    off === 0
      ? 'Z'
      : `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${frac}${zone}`;
}

/** CEL's `string(duration)`: seconds with the shortest decimals, then `s` (`90s`, `-1.5s`). */
export function formatDuration(d: CelDuration): string {
  const sec = d.nanos / NS;
  const nsec = d.nanos % NS;
  return `${goFormatShortestFixed(Number(sec) + Number(nsec) / 1e9)}s`;
}

let zoneNames: Set<string> | undefined;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone Go's `time.Local` is for a process with this environment: `TZ` unset is the system's
 * zone (`/etc/localtime`, which is also what the JavaScript runtime uses then), `TZ=""` is UTC,
 * `TZ=[:]name` is that zone, or UTC when there is no such zone. cel-go evaluates the zone `Local`
 * as `time.Local`: the evaluating process's own, which is the apiserver's when the apiserver
 * evaluates, and this process's here (the same when both run with one `TZ` on one host).
 */
export function localZoneName(
  env: Readonly<Record<string, string | undefined>> = globalThis.process?.env ?? {},
): string {
  const tz = env.TZ;
  if (tz === undefined) return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  const name = tz.startsWith(':') ? tz.slice(1) : tz;
  if (name === '' || name === 'UTC') return 'UTC';
  try {
    zoneFormat(name);
    return name;
  } catch {
    return 'UTC';
  }
}

function zoneFormat(name: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(name);
  if (f) return f;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) {
    throw new CelEvalError('time: invalid location name');
  }
  zoneNames ??= new Set(Intl.supportedValuesOf('timeZone'));
  const lower = name.toLowerCase();
  // Go reads zoneinfo files by name: a canonical name written in another case is unknown there.
  const miscased = !zoneNames.has(name) && [...zoneNames].some((z) => z.toLowerCase() === lower);
  try {
    if (miscased) throw new RangeError(name);
    f = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  } catch {
    throw new CelEvalError(`unknown time zone ${name}`);
  }
  zoneFormats.set(name, f);
  return f;
}

/** Seconds east of UTC of the zone `name` at the instant, as Go's `time.LoadLocation` + `t.In`. */
function zoneOffset(nanos: bigint, zone: string): number {
  const name = zone === 'Local' ? localZoneName() : zone;
  if (name === '' || name === 'UTC') return 0;
  const part = zoneFormat(name)
    .formatToParts(new Date(Number(floorDiv(nanos, 1_000_000n))))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(part ?? '');
  if (!m) throw new CelUnsupportedError(`the offset of time zone ${name} could not be read`);
  if (!m[1]) return 0;
  const secs = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -secs : secs;
}

/** Go's `strconv.Atoi` with its error message. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new CelEvalError(`strconv.Atoi: parsing ${q(s)}: invalid syntax`);
  return Number(s);
}

/** cel-go's time zone argument: an IANA name, or an offset `±HH:MM`. */
function offsetIn(nanos: bigint, tz: string): number {
  const i = tz.indexOf(':');
  if (i < 0) return zoneOffset(nanos, tz);
  const hr = atoi(tz.slice(0, i));
  const min = atoi(tz.slice(i + 1));
  const offset = tz[0] === '-' ? hr * 60 - min : hr * 60 + min;
  return offset * 60;
}

const TIMESTAMP_GETTERS: Record<string, (c: Civil) => number | bigint> = {
  getFullYear: (c) => c.year,
  getMonth: (c) => c.month - 1,
  getDayOfYear: (c) => c.yearDay - 1,
  getDayOfMonth: (c) => c.day - 1,
  getDate: (c) => c.day,
  getDayOfWeek: (c) => c.weekday,
  getHours: (c) => c.hour,
  getMinutes: (c) => c.minute,
  getSeconds: (c) => c.second,
  getMilliseconds: (c) => c.nanos / 1_000_000n,
};

/** A duration in a unit as Go's `Hours()`/`Minutes()`/`Seconds()` (float) truncated to an int. */
function durationIn(d: bigint, unit: bigint): bigint {
  const whole = d / unit;
  const rest = d % unit;
  return BigInt(Math.trunc(Number(whole) + Number(rest) / Number(unit)));
}

const DURATION_GETTERS: Record<string, (d: bigint) => bigint> = {
  getHours: (d) => durationIn(d, 3600n * NS),
  getMinutes: (d) => durationIn(d, 60n * NS),
  getSeconds: (d) => durationIn(d, NS),
  getMilliseconds: (d) => d / 1_000_000n,
};

function checkedInt64(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError('integer overflow');
  return v;
}

function checkedTimestamp(nanos: bigint, offsetSeconds: number): CelTimestamp {
  const secs = floorDiv(nanos, NS);
  if (secs < MIN_UNIX || secs > MAX_UNIX) throw new CelEvalError('timestamp overflow');
  return new CelTimestamp(nanos, offsetSeconds);
}

/**
 * `+` and `-` on timestamps and durations (timestamp ± duration, duration + timestamp,
 * timestamp − timestamp, duration ± duration) with cel-go's overflow errors; undefined when the
 * operands are not of these types.
 */
export function timeArithmetic(op: string, a: CelValue, b: CelValue): CelValue | undefined {
  if (op !== '+' && op !== '-') return undefined;
  if (a instanceof CelDuration && b instanceof CelDuration) {
    return new CelDuration(checkedInt64(op === '+' ? a.nanos + b.nanos : a.nanos - b.nanos));
  }
  if (a instanceof CelTimestamp && b instanceof CelDuration) {
    const d = op === '+' ? b.nanos : checkedInt64(-b.nanos);
    return checkedTimestamp(a.nanos + d, a.offsetSeconds);
  }
  if (op === '+' && a instanceof CelDuration && b instanceof CelTimestamp) {
    return checkedTimestamp(b.nanos + a.nanos, b.offsetSeconds);
  }
  if (op === '-' && a instanceof CelTimestamp && b instanceof CelTimestamp) {
    return new CelDuration(checkedInt64(a.nanos - b.nanos));
  }
  return undefined;
}

/**
 * The timestamp and duration getters (`t.getHours()`, `t.getHours('Europe/Berlin')`,
 * `t.getMonth('-08:00')`, `d.getMinutes()`); undefined when `fn` with these arguments is not one.
 */
export function timeFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target instanceof CelTimestamp) {
    const get = TIMESTAMP_GETTERS[fn];
    if (!get || args.length > 1) return undefined;
    const offset = args.length === 0 ? 0 : offsetIn(target.nanos, str(args[0], fn));
    return BigInt(get(civil(target.nanos, offset)));
  }
  if (target instanceof CelDuration) {
    const get = DURATION_GETTERS[fn];
    if (!get) return undefined;
    if (args.length > 0) throw noOverload(fn, target, ...args);
    return get(target.nanos);
  }
  return undefined;
}
