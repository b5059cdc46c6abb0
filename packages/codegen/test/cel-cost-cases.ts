// CRD schemas whose CEL rules sit below, at and above kube-apiserver's cost limits, for the
// differential test of the static cost estimator. A family is a schema with one size parameter
// (maxItems, maxLength, maxProperties or a rule count); its cases are the largest parameter our
// estimator accepts and the next one, so a disagreement by a single cost unit shows.
import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';

/** One CRD to create: the schema of its `spec`. */
export interface CostCase {
  readonly name: string;
  readonly spec: JsonSchemaProps;
}

/** A schema with one size parameter. */
export interface CostFamily {
  readonly name: string;
  readonly spec: (n: number) => JsonSchemaProps;
}

type Rule = { rule: string; messageExpression?: string; message?: string; optionalOldSelf?: boolean };
const rules = (...r: Array<string | Rule>) => ({
  'x-kubernetes-validations': r.map((x) => (typeof x === 'string' ? { rule: x } : x)),
});
const ints = (maxItems?: number): JsonSchemaProps => ({
  type: 'array',
  items: { type: 'integer' },
  ...(maxItems === undefined ? {} : { maxItems }),
});
const strings = (maxItems: number | undefined, maxLength?: number): JsonSchemaProps => ({
  type: 'array',
  items: { type: 'string', ...(maxLength === undefined ? {} : { maxLength }) },
  ...(maxItems === undefined ? {} : { maxItems }),
});
const obj = (properties: Record<string, JsonSchemaProps>): JsonSchemaProps => ({
  type: 'object',
  properties,
});

/** A list of strings (maxLength 64, maxItems n) with one rule on the list. */
const onStrings = (name: string, rule: string): CostFamily => ({
  name,
  spec: (n) => obj({ xs: { ...strings(n, 64), ...rules(rule) } }),
});

/** Families whose boundary the differential test locates and checks from both sides. */
export const COST_FAMILIES: readonly CostFamily[] = [
  {
    name: 'nested all/exists over a maxItems list of ints',
    spec: (n) => obj({ xs: { ...ints(n), ...rules('self.all(x, self.exists(y, x == y))') } }),
  },
  {
    name: 'three nested comprehensions',
    spec: (n) =>
      obj({ xs: { ...ints(n), ...rules('self.all(x, self.all(y, self.all(z, x + y != z || z == 0)))') } }),
  },
  {
    name: 'contains on each item of a maxItems list of strings',
    spec: (n) =>
      obj({
        xs: {
          ...strings(n, 1000),
          items: { type: 'string', maxLength: 1000, ...rules("self.contains('abc')") },
        },
      }),
  },
  {
    name: 'regex on each item (cardinality from maxItems)',
    spec: (n) =>
      obj({
        xs: {
          type: 'array',
          maxItems: n,
          items: {
            type: 'string',
            maxLength: 253,
            ...rules("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"),
          },
        },
      }),
  },
  {
    name: 'string functions over a maxLength string',
    spec: (n) =>
      obj({
        s: {
          type: 'string',
          maxLength: n,
          ...rules("self.matches('^(a|b)*c$') && self.lowerAscii().contains('xyz')"),
        },
      }),
  },
  {
    name: 'list of lists: the inner items rule times both maxItems',
    spec: (n) =>
      obj({
        xss: {
          type: 'array',
          maxItems: n,
          items: {
            type: 'array',
            maxItems: 50,
            items: {
              type: 'string',
              maxLength: 64,
              ...rules("self.startsWith('x') || self.upperAscii() == self"),
            },
          },
        },
      }),
  },
  {
    name: 'map values by key',
    spec: (n) =>
      obj({
        m: {
          type: 'object',
          maxProperties: n,
          additionalProperties: { type: 'string', maxLength: 100 },
          ...rules("self.all(k, self[k].matches('^v[0-9]+$') && k.size() < 10)"),
        },
      }),
  },
  onStrings('url', "self.all(s, isURL(s) && url(s).getHost() != '')"),
  onStrings('ip', 'self.all(s, isIP(s) && ip(s).family() == 4)'),
  onStrings('cidr', "self.all(s, isCIDR(s) && cidr(s).containsIP('10.0.0.1'))"),
  onStrings('quantity', "self.all(s, isQuantity(s) && quantity(s).isGreaterThan(quantity('1')))"),
  onStrings('semver', 'self.all(s, isSemver(s) && semver(s).major() == 1)'),
  onStrings('split', "self.all(s, s.split(',').size() < 5)"),
  onStrings('replace', "self.all(s, s.replace('a', 'bb').size() < 100)"),
  onStrings('join', "self.join(', ').size() < 1000"),
  onStrings('indexOf', "self.all(s, s.indexOf('x') >= 0)"),
  onStrings('list indexOf', "self.indexOf('x') < 3"),
  onStrings('find', "self.all(s, s.find('[0-9]+') != '')"),
  onStrings('format', 'self.all(s, !format.dns1123Label().validate(s).hasValue())'),
  onStrings('sets', "sets.contains(self, ['a', 'b'])"),
  onStrings('sort', 'self.sort() == self'),
  onStrings('distinct', 'self.distinct().size() == self.size()'),
  onStrings('map then all', 'self.map(s, s.upperAscii()).all(s, s.size() > 0)'),
  onStrings('filter', "self.filter(s, s.startsWith('a')).size() < 3"),
  onStrings('exists_one', "self.exists_one(s, s == 'x')"),
  onStrings('two-variable all', 'self.all(i, s, i < 10 || s.size() < 5)'),
  onStrings('transformList', "self.transformList(i, s, s + 'x').all(t, t.size() > 1)"),
  onStrings('in', "self.all(s, s in ['a', 'b'] || s in self)"),
  onStrings('string concat and compare', "self.all(s, s + s > 'm')"),
  {
    name: 'messageExpression cost',
    spec: (n) =>
      obj({
        xs: {
          ...strings(n, 64),
          ...rules({ rule: 'self.size() < 5', messageExpression: "'bad: ' + self.join(', ')" }),
        },
      }),
  },
  {
    name: 'optionalOldSelf',
    spec: (n) =>
      obj({
        xs: {
          ...strings(n, 64),
          ...rules({
            rule: 'oldSelf.hasValue() ? self.all(x, x in oldSelf.value()) : self.size() < 3',
            optionalOldSelf: true,
          }),
        },
      }),
  },
  {
    // distinct costs: the apiserver names the 4 most expensive rules and picks among equal ones
    // in Go's map order
    name: 'CRD-wide total over n rules',
    spec: (n) => {
      const properties: Record<string, JsonSchemaProps> = {};
      for (let i = 0; i < n; i++)
        properties[`f${i}`] = { ...ints(1000 - i), ...rules('self.all(x, self.exists(y, x <= y))') };
      return obj(properties);
    },
  },
  {
    name: 'CRD-wide total of many rules under 1% each',
    spec: (n) => {
      const properties: Record<string, JsonSchemaProps> = {};
      for (let i = 0; i < n; i++)
        properties[`f${i}`] = { ...strings(3000, 200), ...rules("self.all(s, s.matches('^[a-z]+$'))") };
      return obj(properties);
    },
  },
];

/** Cases without a parameter: unbounded sizes, escaped names, nesting, several issues at once. */
export const COST_CASES: readonly CostCase[] = [
  {
    name: 'nested all over an unbounded list',
    spec: obj({ xs: { ...ints(), ...rules('self.all(x, self.all(y, x == y))') } }),
  },
  {
    name: 'one all over an unbounded list',
    spec: obj({ xs: { ...ints(), ...rules('self.all(x, x > 0)') } }),
  },
  {
    name: 'unbounded string in an unbounded list',
    spec: obj({ xs: { ...strings(undefined), items: { type: 'string', ...rules("self.contains('a')") } } }),
  },
  { name: 'unbounded string alone', spec: obj({ s: { type: 'string', ...rules("self.matches('^a+$')") } }) },
  {
    name: 'unbounded string, two regexes',
    spec: obj({
      s: { type: 'string', ...rules("self.matches('^a+$') && self.matches('^(ab|cd|ef)+[0-9]{3}$')") },
    }),
  },
  {
    name: 'enum bounds the string',
    spec: obj({
      xs: {
        ...strings(undefined),
        items: { type: 'string', enum: ['alpha', 'beta'], ...rules("self.contains('a')") },
      },
    }),
  },
  {
    name: 'unbounded map of objects, rule on the values',
    spec: obj({
      m: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 20 }, n: { type: 'integer' } },
          ...rules("self.name.startsWith('a') || self.n > 0"),
        },
      },
    }),
  },
  {
    name: 'escaped and reserved field names',
    spec: obj({
      'x-y': { ...strings(20, 10), ...rules('self.all(s, s.size() > 1)') },
      namespace: { type: 'string', maxLength: 10 },
      holder: {
        type: 'object',
        properties: { 'a.b': strings(undefined), namespace: strings(undefined, 8) },
        ...rules('self.__namespace__.all(x, self.a__dot__b.exists(y, x == y))'),
      },
    }),
  },
  {
    name: 'embedded resource root fields',
    spec: obj({
      res: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        ...rules("self.kind.matches('^[A-Z][a-z]+$') && self.metadata.name.contains('x')"),
      },
    }),
  },
  {
    name: 'int-or-string in an unbounded list',
    spec: obj({
      xs: {
        type: 'array',
        items: {
          'x-kubernetes-int-or-string': true,
          ...rules("type(self) == int || self.matches('^[0-9]+%$')"),
        },
      },
    }),
  },
  {
    name: 'several rules over the limit at once',
    spec: obj({
      a: { ...ints(), ...rules('self.all(x, self.all(y, x == y))', 'self.size() < 10') },
      b: { ...strings(undefined), ...rules('self.all(x, self.exists(y, x == y))') },
    }),
  },
  {
    name: 'durations and timestamps',
    spec: obj({
      xs: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            d: { type: 'string', format: 'duration' },
            t: { type: 'string', format: 'date-time' },
          },
          ...rules(
            "duration(self.d) < duration('1h') && timestamp(self.t) > timestamp('2020-01-01T00:00:00Z')",
          ),
        },
      },
    }),
  },
  {
    name: 'ternary and optional field',
    spec: obj({
      xs: {
        ...strings(5000, 200),
        ...rules("self.size() > 2 ? self.all(s, s.endsWith('z')) : self.exists(s, s.matches('^q'))"),
      },
      o: { type: 'object', properties: { v: { type: 'string' } }, ...rules("self.?v.orValue('') != 'x'") },
    }),
  },
  {
    name: 'bytes',
    spec: obj({
      b: {
        type: 'array',
        items: { type: 'string', format: 'byte', ...rules("self.size() < 10 || string(self).contains('a')") },
      },
    }),
  },
];
