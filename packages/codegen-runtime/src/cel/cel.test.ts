import { describe, expect, it } from 'vitest';
import { CelSyntaxError } from './ast.ts';
import { CelEvalError, CelUnsupportedError, type CelValue, evaluate } from './evaluator.ts';
import { parseCel } from './parser.ts';

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
    // cel-go's strings.quote: the control escapes, backslash and quote; other runes stay as they are.
    expect(run('strings.quote(self)', 'a\tb\n"c\\ é')).toBe('"a\\tb\\n\\"c\\\\ é"');
  });

  it('absorbs errors like CEL: false && error is false', () => {
    expect(run('has(self.a) && self.a.b == 1', {})).toBe(false);
    expect(run('self.missing == 1 || true', {})).toBe(true);
  });

  it('evaluates the Kubernetes libraries (the differential test against the apiserver has the full cases)', () => {
    expect(run("url(self).getHostname() == 'example.com'", 'https://example.com:8080/x')).toBe(true);
    expect(run("cidr('10.0.0.0/8').containsIP(self)", '10.1.2.3')).toBe(true);
    expect(run('string(ip(self))', '2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(run("quantity(self).isGreaterThan(quantity('1Gi'))", '1.5Gi')).toBe(true);
    expect(run('quantity(self).isInteger()', '1000m')).toBe(false);
    expect(run("semver(self, true).compareTo(semver('1.2.0-rc.1'))", 'v1.2')).toBe(1n);
    expect(run('self.isSorted() && self.sum() == 6 && self.max() == 3', [1n, 2n, 3n])).toBe(true);
    expect(run("sets.equivalent(self, ['b', 'a'])", ['a', 'b', 'a'])).toBe(true);
    expect(run("self.findAll('[0-9]+')", 'a1b22')).toEqual(['1', '22']);
    expect(run("self.?a.orValue('none')", {})).toBe('none');
    expect(run("[?self.?a, ?optional.of('b')]", {})).toEqual(['b']);
    expect(run('self.transformMapEntry(k, v, {v: k})', { a: 'b' })).toEqual({ b: 'a' });
    expect(run('format.dns1123Label().validate(self).hasValue()', 'Not_A_Label')).toBe(true);
    expect(() => run('self.?a.value()', {})).toThrow(/optional.none\(\) dereference/);
  });

  it('transition rules see oldSelf', () => {
    expect(run('self == oldSelf', { a: 1n }, { a: 1n })).toBe(true);
    expect(run('self == oldSelf', ['a'], ['b'])).toBe(false);
  });

  it('reports unsupported functions and syntax errors with the column', () => {
    expect(run("isURL('http://x')")).toBe(true);
    expect(() => run("unknownFunction('x')")).toThrow(CelUnsupportedError);
    expect(() => parseCel('self.a >')).toThrow(CelSyntaxError);
    expect(() => parseCel('self.a )')).toThrow(/column 8/);
  });
});
