import { describe, expect, it } from 'vitest';
import { CelSyntaxError } from './ast.ts';
import { CelEvalError, CelUnsupportedError, type CelValue, evaluate } from './evaluator.ts';
import { parseCel } from './parser.ts';
import { compileRe2, Re2UnsupportedError, re2ToJs } from './re2.ts';

const run = (src: string, self: CelValue = null, oldSelf?: CelValue) =>
  evaluate(parseCel(src), oldSelf === undefined ? { self } : { self, oldSelf });

describe('CEL', () => {
  it('evaluates comparisons, logic, arithmetic and ternaries', () => {
    expect(run('1 + 2 * 3 == 7 && !(2 > 3) || false')).toBe(true);
    expect(run('7 / 2')).toBe(3n);
    expect(run('7.0 / 2.0')).toBe(3.5);
    expect(run("self.a > 1 ? 'big' : 'small'", { a: 2n })).toBe('big');
    expect(run('1 == 1.0')).toBe(true);
  });

  it('does int and double arithmetic apart: integer division, % on ints only, no mixed operands', () => {
    expect(run('-7 / 2')).toBe(-3n);
    expect(run('7 % 3 - 2 * 4 + 1')).toBe(-6n);
    expect(run('1.5 * 2.0 - 0.5 + 1.0 / 4.0')).toBe(2.75);
    expect(run('1.0 / 0.0')).toBe(Number.POSITIVE_INFINITY);
    expect(() => run('1 / 0')).toThrow(/division by zero/);
    expect(() => run('1 % 0')).toThrow(/modulus by zero/);
    expect(() => run('7.0 % 2.0')).toThrow(/no such overload: double % double/);
    expect(() => run('1 + 1.0')).toThrow(/no such overload: int \+ double/);
  });

  it('has(), size(), in, field access and indexing', () => {
    const self = { a: 'x', list: ['p', 'q'], m: { k: 1n } };
    expect(run('has(self.a) && !has(self.b)', self)).toBe(true);
    expect(run('size(self.list) == 2 && self.list.size() == 2 && self.a.size() == 1', self)).toBe(true);
    expect(run("'p' in self.list && 'k' in self.m && self.m['k'] == 1", self)).toBe(true);
    expect(() => run('self.b == 1', self)).toThrow(CelEvalError);
  });

  it('string functions and macros', () => {
    expect(run("self.startsWith('ab') && self.endsWith('yz') && self.contains('m')", 'abmyz')).toBe(true);
    expect(run("self.matches('^[a-z]+$')", 'abc')).toBe(true);
    expect(run("self.split('/')[0].size() < 3 && self.substring(1) == 'b/c'", 'ab/c')).toBe(true);
    expect(
      run('self.all(x, x > 0) && self.exists(x, x == 2) && self.exists_one(x, x == 3)', [1n, 2n, 3n]),
    ).toBe(true);
    expect(run('self.filter(x, x > 1).size() == 2 && self.map(x, x * 2)[0] == 2', [1n, 2n, 3n])).toBe(true);
    expect(run("duration(self) > duration('1s')", '1m30s')).toBe(true);
    expect(run('isIP(self)', '10.0.0.1')).toBe(true);
  });

  it('absorbs errors like CEL: false && error is false', () => {
    expect(run('has(self.a) && self.a.b == 1', {})).toBe(false);
    expect(run('self.missing == 1 || true', {})).toBe(true);
  });

  it('transition rules see oldSelf', () => {
    expect(run('self == oldSelf', { a: 1n }, { a: 1n })).toBe(true);
    expect(run('self == oldSelf', ['a'], ['b'])).toBe(false);
  });

  it('reports unsupported functions and syntax errors with the column', () => {
    expect(() => run("isURL('http://x')")).toThrow(CelUnsupportedError);
    expect(() => parseCel('self.a >')).toThrow(CelSyntaxError);
    expect(() => parseCel('self.a )')).toThrow(/column 8/);
  });

  it('translates RE2 to JavaScript: inline flags anywhere, \\z, \\Q…\\E, POSIX classes, one-letter classes', () => {
    expect(compileRe2('^(?i)abc$').test('ABC')).toBe(true);
    expect(compileRe2('^a(?i)b|c$').test('C')).toBe(true);
    expect(compileRe2('^a(?i)b|c$').test('AB')).toBe(false);
    expect(compileRe2('^[[:alpha:]]+\\z').test('abc')).toBe(true);
    expect(compileRe2('^[[:alpha:]]+\\z').test('ab1')).toBe(false);
    expect(compileRe2('^\\Qa.b\\E$').test('a.b')).toBe(true);
    expect(compileRe2('^\\Qa.b\\E$').test('axb')).toBe(false);
    expect(compileRe2('^\\pL+$').test('é')).toBe(true);
    expect(compileRe2('^(?P<n>a)\\-{$').test('a-{')).toBe(true);
    expect(() => compileRe2('(?U)a+')).toThrow(Re2UnsupportedError);
  });

  // Node 22 has no RegExp modifiers (`(?i:…)`, V8 12.5+): scoped flags are emulated there. The
  // emulation is checked on every Node, against what RE2 matches.
  it.each([
    ['^a(?i)b|c$', ['aB', 'C', 'xc'], ['AB', 'Ab', 'x']],
    ['^(?i)[a-z_][a-z_0-9]*$', ['Foo_1', 'foo', 'K', '\u212A'], ['1foo', 'foo-']],
    ['^x(?i:[[:lower:]]+|k)y$', ['xABcy', 'x\u212Ay', 'xky'], ['XAy', 'x1y']],
    ['^(a(?i)b)c$', ['aBc', 'abc'], ['aBC', 'ABc']],
    ['^a(?s).b$', ['a\nb', 'axb'], []],
    ['^a.b$', ['axb'], ['a\nb']],
    ['^a(?m)$\\n^b$', ['a\nb'], ['a\nbx']],
    ['^(?i)\\Qa.B\\E$', ['A.b'], ['AxB']],
    ['^[^a-c](?i)[^x]$', ['dy', 'Dy'], ['aY', 'dX', 'dx']],
  ])('emulates scoped flags without RegExp modifiers: %s', (pattern, matching, failing) => {
    const { source, flags } = re2ToJs(pattern, { modifiers: false });
    expect(source).not.toMatch(/\(\?[a-z-]+:/);
    const re = new RegExp(source, flags);
    expect(matching.filter((t) => !re.test(t))).toEqual([]);
    expect(failing.filter((t) => re.test(t))).toEqual([]);
  });

  it('says when a scoped flag cannot be emulated without RegExp modifiers', () => {
    expect(() => re2ToJs('^(?i)a(?-i)b', { modifiers: false })).not.toThrow();
    expect(() => re2ToJs('(?i)a(?-i)b', { modifiers: false })).toThrow(/turning off \(\?i\).*Node 23/);
    expect(() => re2ToJs('^a(?i)\\pL', { modifiers: false })).toThrow(/\\p in a case-insensitive scope/);
    expect(() => re2ToJs('^a(?i)[à-ÿ]', { modifiers: false })).toThrow(/range à-ÿ/);
  });
});
