// The estimator against the costs kube-apiserver's own tests expect (apiextensions-apiserver
// pkg/apiserver/schema/cel TestCostEstimation, v0.37): the same schemas and rules, without and
// with a maxItems / maxProperties / maxLength bound.
import { type JsonSchemaProps, parseCel } from '@kubeloom/codegen-runtime';
import { describe, expect, it } from 'vitest';
import { estimateCost } from './coster.ts';
import { schemaDeclType } from './decl-type.ts';

type Gen = (max: number | undefined) => JsonSchemaProps;
const item = (t: string): JsonSchemaProps =>
  t === 'int-or-string' ? { 'x-kubernetes-int-or-string': true } : { type: t };
const array =
  (t: string): Gen =>
  (max) => ({ type: 'array', items: item(t), ...(max === undefined ? {} : { maxItems: max }) });
const arrayOfArrays =
  (t: string): Gen =>
  (max) => ({
    type: 'array',
    items: { type: 'array', items: item(t) },
    ...(max === undefined ? {} : { maxItems: max }),
  });
const objectArray: Gen = (max) => ({
  type: 'array',
  items: {
    type: 'object',
    properties: { required: { type: 'string' }, optional: { type: 'string' } },
    required: ['required'],
  },
  ...(max === undefined ? {} : { maxItems: max }),
});
const map =
  (t: string): Gen =>
  (max) => ({
    type: 'object',
    additionalProperties: item(t),
    ...(max === undefined ? {} : { maxProperties: max }),
  });
const string: Gen = (max) => ({ type: 'string', ...(max === undefined ? {} : { maxLength: max }) });
const bytes: Gen = (max) => ({
  type: 'string',
  format: 'byte',
  ...(max === undefined ? {} : { maxLength: max }),
});

function cost(gen: Gen, rule: string, max?: number): number {
  const decl = schemaDeclType(gen(max), false);
  if (!decl) throw new Error('no CEL type');
  return estimateCost(parseCel(rule), { root: decl }).max;
}

// [name, schema, rule, cost unbounded, bound, cost bounded]
const CASES: ReadonlyArray<readonly [string, Gen, string, number, number, number]> = [
  ['number array with all', array('number'), 'self.all(x, true)', 4718591, 10, 32],
  ['string array with all', array('string'), 'self.all(x, true)', 3145727, 20, 62],
  ['boolean array with all', array('boolean'), 'self.all(x, true)', 1887437, 5, 17],
  ['array of number arrays with all', arrayOfArrays('number'), 'self.all(x, true)', 3145727, 100, 302],
  ['array of objects with all', objectArray, 'self.all(x, true)', 555128, 50, 152],
  ['map of numbers with all', map('number'), 'self.all(x, true)', 1348169, 10, 32],
  ['map of strings with all', map('string'), 'self.all(x, true)', 1179647, 3, 11],
  ['map of booleans with all', map('boolean'), 'self.all(x, true)', 943718, 100, 302],
  ['string with contains', string, "self.contains('test')", 314574, 10, 5],
  ['string with startsWith', string, "self.startsWith('test')", 2, 15, 2],
  ['concat string', string, 'size(self + "hello") > size("hello")', 314578, 4, 7],
  ['index of array with numbers', array('number'), 'self[1] == 0.0', 2, 5000, 2],
  ['index of array with strings', array('string'), 'self[1] == self[1]', 314577, 8, 314577],
  ['O(n^2) loop with numbers', array('number'), 'self.all(x, self.all(y, true))', 0, 10, 352],
  ['O(n^3) loop with numbers', array('number'), 'self.all(x, self.all(y, self.all(z, true)))', 0, 10, 3552],
  ['regex matches simple', string, 'self.matches("x")', 314574, 50, 22],
  ['regex matches empty string', string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
  ['regex matches empty regex', string, 'self.matches("")', 1, 100, 1],
  ['set array maxLength to zero', array('number'), 'self[3] == 0.0', 2, 0, 2],
  ['set map maxLength to zero', map('number'), 'self["x"] == 0.0', 2, 0, 2],
  ['set string maxLength to zero', string, 'self == "x"', 2, 0, 1],
  ['set bytes maxLength to zero', bytes, 'self == b"x"', 2, 0, 1],
  ['set maxLength greater than estimated', string, 'self == "x"', 2, 3 * 1024 * 2048, 2],
  ['int-or-string array with all', array('int-or-string'), 'self.all(x, true)', 4718591, 10, 32],
];

describe('estimateCost', () => {
  it.each(CASES)('%s', (...[, gen, rule, unbounded, bound, bounded]) => {
    if (unbounded > 0) expect(cost(gen, rule)).toBe(unbounded);
    expect(cost(gen, rule, bound)).toBe(bounded);
  });
});
