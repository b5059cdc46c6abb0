import { describe, expect, it } from 'vitest';
import { compileRe2, Re2SyntaxError } from './re2.ts';

// RE2 as Go's `regexp` (kube-apiserver's engine) reads it. The same patterns are compared with the
// real apiserver in codegen's `re2.integration.test.ts`.
describe('RE2', () => {
  // Syntax JavaScript lacks or reads differently: accepted, with RE2's matches.
  it.each([
    ['^(?i)(abort|warn)?$', ['ABORT', 'Warn', ''], ['abortx', 'stop']],
    ['^a(?i)b|c$', ['aB', 'C', 'xc'], ['AB', 'x']],
    ['^(?i:ab)c$', ['ABc', 'abc'], ['ABC']],
    ['^x(?i:[[:lower:]]+|k)y$', ['xABcy', 'xky'], ['XAy', 'x1y']],
    ['^(?U)a+$', ['a', 'aaa'], ['b']],
    ['^a(?s).b$', ['a\nb', 'axb'], []],
    ['^a.b$', ['axb'], ['a\nb']],
    ['(?m)^b$', ['a\nb\nc'], ['ab']],
    ['^a\\z', ['a'], ['a\n', 'ab']],
    ['\\Aa', ['ab'], ['ba']],
    ['^\\Qa.b\\E$', ['a.b'], ['axb']],
    ['^(?i)\\Qa.B\\E$', ['A.b'], ['AxB']],
    ['^[[:alpha:]]+$', ['abc'], ['ab1']],
    ['^[[:^digit:]]+$', ['ab'], ['a1']],
    ['^\\pL+$', ['é', '日本', 'abc'], ['1', 'a1']],
    ['^\\p{Greek}+$', ['αβ'], ['a']],
    ['^\\PL$', ['1'], ['a']],
    ['^(?P<name>x)(?<other>y)$', ['xy'], ['x']],
    ['^.$', ['😀', 'é'], ['ab', '']],
    ['^\\x{1F600}$', ['😀'], ['x']],
    ['^a{,3}$', ['a{,3}'], ['aaa']],
    ['^[a-]+$', ['a-'], ['b']],
  ])('accepts %s with RE2 matches', (pattern, matching, failing) => {
    const re = compileRe2(pattern);
    expect(matching.filter((t) => !re.test(t))).toEqual([]);
    expect(failing.filter((t) => re.test(t))).toEqual([]);
  });

  // Syntax JavaScript has and RE2 lacks: rejected with Go's message.
  it.each([
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['a(?!b)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=a)b', 'error parsing regexp: invalid named capture: `(?<=a)b`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['(?<n>a)\\k<n>', 'error parsing regexp: invalid escape sequence: `\\k`'],
    ['a++', 'error parsing regexp: invalid nested repetition operator: `++`'],
    ['\\C', 'error parsing regexp: invalid escape sequence: `\\C`'],
    ['x{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['[a', 'error parsing regexp: missing closing ]: `[a`'],
  ])('rejects %s as RE2 does', (pattern, message) => {
    expect(() => compileRe2(pattern)).toThrow(Re2SyntaxError);
    expect(() => compileRe2(pattern)).toThrow(message);
  });

  it('matches unanchored, like Go MatchString, and caches compiled patterns', () => {
    expect(compileRe2('b').test('abc')).toBe(true);
    expect(compileRe2('^b').test('abc')).toBe(false);
    expect(compileRe2('b')).toBe(compileRe2('b'));
    expect(compileRe2('b').source).toBe('b');
    expect(String(compileRe2('(?i)b'))).toBe('/(?i)b/');
  });
});
