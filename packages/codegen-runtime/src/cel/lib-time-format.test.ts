// Timestamps, durations, `format`, the lists extension and type values. Every expected value is
// what cel-go v0.29.2 (kube-apiserver 1.37's CEL) returns for the same expression; codegen's
// cel-libraries.integration.test.ts checks the same functions against the apiserver itself.
import { describe, expect, it } from 'vitest';
import { CelEvalError, type CelValue, evaluate } from './evaluator.ts';
import { formatDuration, formatTimestamp } from './lib-time.ts';
import { parseCel } from './parser.ts';
import { CelDuration, CelTimestamp } from './values.ts';

const run = (src: string, self: CelValue = null) => evaluate(parseCel(src), { self });
const asString = (src: string) => {
  const v = run(src);
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  return v;
};
const T = "timestamp('2023-07-14T10:30:45.123Z')";

describe('timestamps and durations', () => {
  it('reads the calendar fields in UTC, 0-based where CEL says so', () => {
    const got = [
      'getFullYear',
      'getMonth',
      'getDayOfYear',
      'getDayOfMonth',
      'getDate',
      'getDayOfWeek',
      'getHours',
      'getMinutes',
      'getSeconds',
      'getMilliseconds',
    ].map((f) => run(`${T}.${f}()`));
    expect(got).toEqual([2023n, 6n, 194n, 13n, 14n, 5n, 10n, 30n, 45n, 123n]);
  });

  it('reads them in an IANA time zone or at a fixed offset', () => {
    expect(run("timestamp('2023-01-01T05:30:00Z').getFullYear('-08:00')")).toBe(2022n);
    expect(run("timestamp('2023-01-01T05:30:00Z').getMonth('America/Los_Angeles')")).toBe(11n);
    expect(run(`${T}.getHours('Asia/Kolkata')`)).toBe(16n);
    expect(run(`${T}.getMinutes('Asia/Kolkata')`)).toBe(0n);
    expect(run(`${T}.getHours('-00:30')`)).toBe(10n);
    expect(run(`${T}.getMinutes('+01:99')`)).toBe(9n);
    expect(run(`${T}.getHours('')`)).toBe(10n);
    expect(run("timestamp('2023-03-12T07:00:00Z').getHours('America/New_York')")).toBe(3n);
  });

  it('fails on time zones Go does not load, with its messages', () => {
    expect(() => run(`${T}.getHours('Nowhere/City')`)).toThrow('unknown time zone Nowhere/City');
    expect(() => run(`${T}.getHours('america/new_york')`)).toThrow('unknown time zone america/new_york');
    expect(() => run(`${T}.getHours('../etc')`)).toThrow('time: invalid location name');
    expect(() => run(`${T}.getHours('x:30')`)).toThrow('strconv.Atoi: parsing "x": invalid syntax');
  });

  it('prints timestamps in their own offset and durations in seconds', () => {
    expect(asString("string(timestamp('2023-01-01T00:00:00+02:00'))")).toBe('2023-01-01T00:00:00+02:00');
    expect(asString("timestamp('2023-01-01T00:00:00+02:00') + duration('1h')")).toBe(
      '2023-01-01T01:00:00+02:00',
    );
    expect(asString("string(timestamp('2023-01-01T00:00:00.000000001Z'))")).toBe(
      '2023-01-01T00:00:00.000000001Z',
    );
    expect(asString("string(duration('1h30m'))")).toBe('5400s');
    expect(asString("string(duration('1.5us'))")).toBe('0.0000015s');
    expect(asString("string(duration('2562047h'))")).toBe('9223369200s');
  });

  it('does the arithmetic with cel-go overflow errors', () => {
    expect(asString("timestamp('2023-01-01T00:00:00Z') - timestamp('2022-01-01T00:00:00Z')")).toBe(
      '31536000s',
    );
    expect(() => run("timestamp('9999-12-31T23:59:59Z') + duration('1s')")).toThrow('timestamp overflow');
    expect(() => run("timestamp('0001-01-01T00:00:00Z') - duration('1ns')")).toThrow('timestamp overflow');
    expect(() => run("duration('2562047h') + duration('2562047h')")).toThrow('integer overflow');
    expect(run("int(timestamp('1969-12-31T23:59:59.5Z'))")).toBe(-1n);
    expect(run("int(duration('1.5s'))")).toBe(1_500_000_000n);
  });

  it('converts durations to whole units and parses RFC 3339 as Go does', () => {
    expect(run("duration('3723.456s').getHours()")).toBe(1n);
    expect(run("duration('-3723.456s').getMinutes()")).toBe(-62n);
    expect(run("duration('3723.456s').getMilliseconds()")).toBe(3723456n);
    expect(run("timestamp(dyn('2023-01-01T1:00:00Z')) == timestamp('2023-01-01T01:00:00Z')")).toBe(true);
    expect(asString("string(timestamp(dyn('2023-01-01T00:00:00+24:00')))")).toBe('2023-01-01T00:00:00+24:00');
    for (const bad of ['x', '2023-02-29T00:00:00Z', '2023-01-01T00:00:00', '2023-01-01t00:00:00Z']) {
      expect(() => run(`timestamp(dyn('${bad}'))`)).toThrow(
        "type conversion error from 'string' to 'google.protobuf.Timestamp'",
      );
    }
    expect(() => run("timestamp(dyn('0000-12-31T23:59:59Z'))")).toThrow('timestamp overflow');
  });
});

describe("the strings extension's format", () => {
  it.each([
    ["'%s and %d%%'.format(['a', 3])", 'a and 3%'],
    ["'%e'.format([-1234.5])", '-1.234500×10⁰³'],
    ["'%e'.format([1e-7])", '1.000000×10⁻⁰⁷'],
    ["'%.20e'.format([1.5])", '       1.500000×10⁰⁰'],
    ["'%e'.format(['-Infinity'])", '    -∞'],
    ["'%f'.format([-1234567.125])", '-1,234,567.125000'],
    ["'%.0f'.format([2.5])", '2'],
    ["'%.1f'.format([0.35])", '0.3'],
    ["'%f'.format([-0.0])", '0.000000'],
    ["'%.2f'.format([-0.0001])", '-0.00'],
    ["'%f'.format([123456789012345680000.0])", '123,456,789,012,345,683,968.000000'],
    ["'%s'.format([1.0e21])", '1e+21'],
    ["'%s'.format([0.00001])", '1e-05'],
    ["'%x %X %b %o'.format([-26, b'\\xff', -5, 8])", '-1a FF -101 10'],
    ["'%x'.format(['héllo'])", '68c3a96c6c6f'],
    ["'%s'.format([[1u, 2.5, -0.0]])", '[1, 2.500000, -0.000000]'],
    ["'%s'.format([{'b': 2, 'a': [1, 'x']}])", '{"a":[1, "x"], "b":2}'],
    [
      "'%s'.format([[1.0/0.0, duration('1h'), timestamp('2023-01-01T00:00:00.5Z')]])",
      '["+Inf", duration("3600s"), timestamp("2023-01-01T00:00:00.5Z")]',
    ],
    ["'%s'.format([dyn(['a\\n\"b', b'c', null, true])])", '["a\\n\\"b", b"c", null, true]'],
    ["'%s'.format([[int, string]])", '[int, string]'],
  ])('%s is %j', (src, want) => {
    expect(run(src)).toBe(want);
  });

  it.each([
    ["'%d %s'.format(dyn([1]))", 'index 1 out of range'],
    ["'%'.format(dyn([1]))", 'unexpected end of string'],
    ["'%z'.format(dyn([1]))", 'could not parse formatting clause: unrecognized formatting clause "z"'],
    [
      "'%.5'.format(dyn([1.5]))",
      'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
    ],
    [
      "'%d'.format(dyn(['x']))",
      'error during formatting: decimal clause can only be used on integers, was given string',
    ],
    [
      "'%f'.format(dyn([1]))",
      'error during formatting: fixed-point clause can only be used on doubles, was given int',
    ],
    [
      "'%s'.format(dyn([optional.of(1)]))",
      'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type',
    ],
    [
      "'%s'.format(dyn([[optional.of(1)]]))",
      'error during formatting: no formatting function for optional_type',
    ],
    [
      "'%s'.format([b'\\xff'])",
      'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string',
    ],
  ])('%s fails with %j', (src, message) => {
    expect(() => run(src)).toThrow(new CelEvalError(message));
  });
});

describe('the lists extension, includes and type values', () => {
  it('sorts, slices, flattens, reverses and deduplicates', () => {
    expect(run('[3, 1, 2].sort()')).toEqual([1n, 2n, 3n]);
    expect(run("[{'n': 'b', 'v': 1}, {'n': 'a', 'v': 2}].sortBy(e, e.n).map(e, e.v)")).toEqual([2n, 1n]);
    expect(run('[1, 2, 3, 4].slice(1, 3)')).toEqual([2n, 3n]);
    expect(run('dyn([1, [2, [3, [4]]]]).flatten(2)')).toEqual([1n, 2n, 3n, [4n]]);
    expect(run('lists.range(3)')).toEqual([0n, 1n, 2n]);
    expect(run("[1, 2, 1, 2.0, 'a', 'a'].distinct()")).toEqual([1n, 2n, 'a']);
    expect(run('[1, 2, 3].reverse()')).toEqual([3n, 2n, 1n]);
    expect(run("[1, 2, 3].includes(2) && 'a'.includes('a') && !'a'.includes('b')")).toBe(true);
  });

  it('fails as cel-go does', () => {
    expect(() => run("[1, 'a'].sort()")).toThrow('list elements must have the same type');
    expect(() => run('[1, 2].slice(2, 1)')).toThrow(
      'cannot slice(2, 1), start index must be less than or equal to end index',
    );
    expect(() => run('[1, 2].slice(0, 3)')).toThrow('cannot slice(0, 3), list is length 2');
    expect(() => run('dyn([1, [2]]).flatten(-1)')).toThrow('level must be non-negative');
    expect(() => run('lists.range(-1)')).toThrow('lists.range: size must be non-negative, got -1');
    expect(() => run("[{'a': 1}, {}].sortBy(e, e.a)")).toThrow(/^internal error: interface conversion/);
  });

  it('has types as values', () => {
    expect(run("type(1) == int && type('a') == string && type([1]) == list && type(null) == null_type")).toBe(
      true,
    );
    expect(run('type(dyn(1)) == string || type(type(1)) != type')).toBe(false);
    expect(
      run(
        "type(timestamp('2023-01-01T00:00:00Z')) == google.protobuf.Timestamp && type(duration('1s')) == google.protobuf.Duration",
      ),
    ).toBe(true);
  });
});
