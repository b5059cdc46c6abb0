// Rules using CEL timestamps and durations (getters with and without a time zone, arithmetic,
// `string()`), the strings extension's `format`, and cel-go's lists extension (`sort`, `sortBy`,
// `slice`, `flatten`, `distinct`, `reverse`, `lists.range`): the arbiter is the apiserver
// (`cel-libraries.integration.test.ts`).
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import type { CelLibraryCase } from './cel-library-cases.ts';

const dateTime: JsonSchemaProps = { type: 'string', format: 'date-time', maxLength: 40 };
const duration: JsonSchemaProps = { type: 'string', format: 'duration', maxLength: 20 };
const str: JsonSchemaProps = { type: 'string', maxLength: 40 };
const num: JsonSchemaProps = { type: 'number' };
const int: JsonSchemaProps = { type: 'integer' };
const ints: JsonSchemaProps = { type: 'array', maxItems: 8, items: int };
const strings: JsonSchemaProps = { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 12 } };
const nested: JsonSchemaProps = { type: 'array', maxItems: 4, items: ints };
const map: JsonSchemaProps = {
  type: 'object',
  maxProperties: 4,
  additionalProperties: { type: 'string', maxLength: 12 },
};
const intOrString: JsonSchemaProps = { 'x-kubernetes-int-or-string': true };
const window: JsonSchemaProps = {
  type: 'object',
  required: ['start', 'end'],
  properties: { start: dateTime, end: dateTime },
};
const pairs: JsonSchemaProps = {
  type: 'array',
  maxItems: 6,
  items: { type: 'object', properties: { a: str, b: int } },
};

const TIMES = [
  '2023-07-16T10:00:00Z',
  '2023-07-14T21:30:00Z',
  '2023-07-14T10:30:45.123Z',
  '2023-07-14T23:30:00-02:00',
  '2024-02-29T00:00:00+14:00',
  '2023-07-14T10:30:45.123456789Z',
  '2023-03-12T06:59:59Z',
  '2023-03-12T07:00:00Z',
  '2023-11-05T05:30:00Z',
  '1999-12-31T23:59:59.999Z',
];

/** The cases. */
export const CEL_TIME_FORMAT_CASES: readonly CelLibraryCase[] = [
  {
    library: 'timestamp',
    schema: dateTime,
    rule: 'self.getDayOfWeek() != 0 && self.getHours() < 20',
    messageExpression:
      "'%s is a Sunday or after 20:00 (day %d, hour %d)'.format([string(self), self.getDayOfWeek(), self.getHours()])",
    values: TIMES,
  },
  {
    library: 'timestamp',
    schema: dateTime,
    rule: "self.getHours('America/New_York') >= 9 && self.getHours('America/New_York') < 17",
    messageExpression:
      "'%d:%d in New York, day %d'.format([self.getHours('America/New_York'), self.getMinutes('America/New_York'), self.getDayOfWeek('America/New_York')])",
    values: TIMES,
  },
  {
    // the zone Local is the evaluating process's (the apiserver's, and the validator's: one host, one TZ)
    library: 'timestamp',
    schema: dateTime,
    rule: "self.getHours('Local') < 12",
    messageExpression:
      "'%d:%d local time, day %d'.format([self.getHours('Local'), self.getMinutes('Local'), self.getDayOfWeek('Local')])",
    values: TIMES,
  },
  {
    library: 'timestamp',
    schema: dateTime,
    rule: "self.getDate('+05:30') == self.getDate('-08:00')",
    messageExpression: "'%d vs %d'.format([self.getDate('+05:30'), self.getDate('-08:00')])",
    values: TIMES,
  },
  {
    library: 'timestamp',
    schema: dateTime,
    rule: 'self.getFullYear() * 1000 + self.getDayOfYear() > 2023180 || self.getMilliseconds() > 500',
    messageExpression:
      "'%d-%d-%d (%d ms)'.format([self.getFullYear(), self.getMonth(), self.getDayOfMonth(), self.getMilliseconds()])",
    values: TIMES,
  },
  {
    library: 'timestamp',
    schema: dateTime,
    rule: "self.getHours('Mars/Olympus_Mons') >= 0",
    values: ['2023-07-14T10:30:45Z'],
  },
  {
    library: 'timestamp',
    schema: dateTime,
    rule: "self.getMinutes('+01:99') == 0 || self.getHours('x:30') >= 0",
    values: ['2023-07-14T10:21:00Z', '2023-07-14T10:30:45Z'],
  },
  {
    library: 'timestamp',
    schema: window,
    rule: "self.end - self.start <= duration('24h') && self.start + duration('1h') <= self.end",
    messageExpression: "'window of %s from %s'.format([self.end - self.start, self.start])",
    values: [
      { start: '2023-07-14T10:00:00Z', end: '2023-07-14T12:00:00Z' },
      { start: '2023-07-14T10:00:00Z', end: '2023-07-14T10:30:00.5Z' },
      { start: '2023-07-14T10:00:00+02:00', end: '2023-07-15T10:00:00Z' },
      { start: '2023-07-14T10:00:00Z', end: '2023-07-13T10:00:00Z' },
    ],
  },
  {
    library: 'timestamp',
    schema: str,
    rule: "timestamp(self) > timestamp('2020-01-01T00:00:00Z')",
    messageExpression: "'%s is early'.format([timestamp(self)])",
    values: [
      '2023-01-01T00:00:00Z',
      '2019-06-01T12:00:00+01:00',
      '2023-01-01T1:00:00Z',
      'yesterday',
      '2023-02-29T00:00:00Z',
      '2023-01-01T00:00:00',
      '0000-01-01T00:00:00Z',
      '2023-01-01T00:00:00.5+24:00',
    ],
  },
  {
    library: 'duration',
    schema: duration,
    rule: "self.getMinutes() <= 90 && self >= duration('0s') && self.getHours() * 3600 <= self.getSeconds() && self.getMilliseconds() % 1000 == 0",
    messageExpression: "'%s is %d minutes'.format([string(self), self.getMinutes()])",
    values: ['1h', '1h31m', '90m', '-5m', '1.5h', '300ms', '2h0m0.5s', '1h30m0.000000001s'],
  },
  {
    library: 'duration',
    schema: str,
    rule: "duration(self) < duration('1h')",
    messageExpression: "duration(self) > duration('1h') ? 'over an hour' : 'an hour'",
    values: ['30m', '61m', '3600s', '1.5h'],
  },
  {
    library: 'strings.format',
    schema: str,
    rule: "'%s-suffix'.format([self]).size() <= 10",
    messageExpression: "'%s is too long: %d characters, %x in hex'.format([self, self.size(), self])",
    values: ['abc', 'abcdefg', 'quote"d\nline', 'ünï'],
  },
  {
    library: 'strings.format',
    schema: num,
    rule: "'%.2f'.format([self]) != '0.00'",
    messageExpression: "'got %f / %.1f / %e / %s / %s'.format([self, self, self, self, [self]])",
    values: [0.001, 1234567.125, -0.004, 2.5, 0.35, 1e21, 12, -0.0001, 1e-7],
  },
  {
    library: 'strings.format',
    schema: int,
    rule: "'%b'.format([self]).size() <= 4",
    messageExpression: "'%d is %x in hex, %o in octal, %X, %b'.format([self, self, self, self, self])",
    values: [5, 16, -3, 255, 4096],
  },
  {
    library: 'strings.format',
    schema: strings,
    rule: "'%s'.format([self]).size() < 16",
    messageExpression: "'%s'.format([self])",
    values: [['a'], ['a"b', 'c\\d'], ['line\nbreak', 'tab\t'], ['ü', 'x', 'y']],
  },
  {
    library: 'strings.format',
    schema: map,
    rule: "'%s'.format([self]).size() < 12",
    messageExpression: "'%s has %d entries'.format([self, self.size()])",
    values: [{ a: 'x' }, { b: 'y', a: 'x' }, { 'k-1': 'v"1', k2: '' }],
  },
  {
    library: 'strings.format',
    schema: intOrString,
    rule: "'%d'.format([self]) != '0'",
    messageExpression: "'%s'.format([self])",
    values: [0, 3, 'x', '0'],
  },
  {
    library: 'strings.format',
    schema: intOrString,
    rule: "'%f|%e|%b|%o|%x'.format([self, self, self, self, self]) != ''",
    values: [1, 'NaN', 'Infinity', 'abc'],
  },
  {
    library: 'lists-ext',
    schema: ints,
    rule: 'self.sort() == self',
    messageExpression:
      "'sorted %s, distinct %s, reversed %s'.format([self.sort(), self.distinct(), self.reverse()])",
    values: [[1, 2, 3], [3, 1, 2], [2, 2, 1, 1], []],
  },
  {
    library: 'lists-ext',
    schema: ints,
    rule: 'self.slice(1, 3).all(x, x > 0) && lists.range(4).all(i, i >= self.size() || self[i] >= i)',
    values: [[1, 2, 3], [0, 1], [1, 0, 5, 9], [5], [0, 0, 2]],
  },
  {
    library: 'lists-ext',
    schema: pairs,
    rule: 'self.sortBy(e, e.b).map(e, e.a) == self.map(e, e.a)',
    messageExpression: "'by b: %s'.format([self.sortBy(e, e.b).map(e, e.a)])",
    values: [
      [
        { a: 'x', b: 1 },
        { a: 'y', b: 2 },
      ],
      [
        { a: 'x', b: 2 },
        { a: 'y', b: 1 },
        { a: 'z', b: 1 },
      ],
      [{ a: 'x', b: 2 }, { a: 'y' }],
    ],
  },
  {
    library: 'lists-ext',
    schema: nested,
    rule: 'self.flatten().size() <= 4 && self.flatten().distinct().size() == self.flatten().size()',
    messageExpression: "'%s'.format([self.flatten()])",
    values: [
      [[1], [2, 3]],
      [
        [1, 2],
        [3, 4, 5],
      ],
      [[1], [1]],
      [[], []],
    ],
  },
];
