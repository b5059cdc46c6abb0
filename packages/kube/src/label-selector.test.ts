import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from './label-selector.ts';
import { SelectorError } from './selector-error.ts';

/** The apiserver's message for a selector, or `true` when it parses. */
function outcome(selector: Parameters<typeof parseLabelSelector>[0]): string | true {
  try {
    parseLabelSelector(selector);
    return true;
  } catch (err) {
    if (err instanceof SelectorError) return err.detail;
    throw err;
  }
}

const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const EXPECTED_OPERATOR = 'expected: in, notin, =, ==, !=, gt, lt';

describe('parseLabelSelector: the apiserver grammar', () => {
  // Messages as kube-apiserver 1.37 answers them (selector-conformance.integration.test.ts checks
  // the same table against the real one).
  const cases: Array<[string, string | true]> = [
    ['', true],
    ['  ', true],
    ['a', true],
    ['a=b', true],
    ['a==b', true],
    ['a!=b', true],
    ['a=', true],
    ['a in (b,c)', true],
    ['a in(b)', true],
    ['a notin (b)', true],
    ['a in ()', true],
    ['a in (,)', true],
    ['a in (b,,c)', true],
    ['!a', true],
    ['! a', true],
    [' a = b ', true],
    ['a=\tb', true],
    ['a>1', true],
    ['a<007', true],
    ['in=b', true],
    ['notin in (in, notin)', true],
    ['example.com/a=b', true],
    ['a'.repeat(63), true],
    [`${'a.'.repeat(126)}a/b`, true],
    [`a=${'v'.repeat(63)}`, true],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a,,b', "found ',', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['(a)', "found '(', expected: !, identifier, or 'end of string'"],
    ['a b', `unable to parse requirement: found 'b', ${EXPECTED_OPERATOR}`],
    ['a gt 1', `unable to parse requirement: found 'gt', ${EXPECTED_OPERATOR}`],
    ['a!', `unable to parse requirement: found '!', ${EXPECTED_OPERATOR}`],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a>=1', "unable to parse requirement: found '=', expected: identifier"],
    [
      'a>x',
      `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'a>99999999999999999999',
      `unable to parse requirement: values[0]: Invalid value: "99999999999999999999": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    ['a>-1', `unable to parse requirement: values[0][a]: Invalid value: "-1": ${VALUE_REGEX}`],
    ['-a', `unable to parse requirement: <nil>: Invalid value: "-a": name part ${NAME_REGEX}`],
    ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
    [
      'a/',
      `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; name part ${NAME_REGEX}`,
    ],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key ${NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      'a'.repeat(64),
      `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 bytes`,
    ],
    [
      `${'a'.repeat(254)}/b`,
      `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(254)}/b": prefix part must be no more than 253 bytes`,
    ],
    [
      `a=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
    ],
    ['a=b\vc', `unable to parse requirement: values[0][a]: Invalid value: "b\\vc": ${VALUE_REGEX}`],
  ];
  for (const [selector, want] of cases) {
    it(`${JSON.stringify(selector.length > 40 ? `${selector.slice(0, 20)}…(${selector.length})` : selector)} → ${want === true ? 'valid' : 'refused'}`, () => {
      expect(outcome(selector)).toBe(want);
    });
  }

  it('throws a SelectorError that names the selector and carries the apiserver message', () => {
    expect(() => parseLabelSelector('a,')).toThrow(
      new SelectorError('label', 'a,', "found '', expected: identifier after ','"),
    );
    let err: unknown;
    try {
      parseLabelSelector('a,');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({
      name: 'SelectorError',
      kind: 'label',
      selector: 'a,',
      message: `invalid label selector "a,": found '', expected: identifier after ','`,
    });
  });

  it('stops at a NUL, as the apiserver lexer does', () => {
    expect(parseLabelSelector('a=b\0 garbage ((').toString()).toBe('a=b');
  });
});

describe('parseLabelSelector: requirements, matching and the string form', () => {
  it('sorts requirements by key and values, keeps the operators', () => {
    const s = parseLabelSelector('z notin (y,x), a==b, !m, n>3, k, c in (), d!=e');
    expect(s.requirements).toEqual([
      { key: 'a', operator: '==', values: ['b'] },
      { key: 'c', operator: 'in', values: [''] },
      { key: 'd', operator: '!=', values: ['e'] },
      { key: 'k', operator: 'exists', values: [] },
      { key: 'm', operator: '!', values: [] },
      { key: 'n', operator: 'gt', values: ['3'] },
      { key: 'z', operator: 'notin', values: ['x', 'y'] },
    ]);
    expect(s.toString()).toBe('a==b,c in (),d!=e,k,!m,n>3,z notin (x,y)');
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(parseLabelSelector('').empty).toBe(true);
    expect(parseLabelSelector('').toString()).toBe('');
  });

  const matching: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['', undefined, true],
    ['a=b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a in (b,c)', { a: 'c' }, true],
    ['a in (b,c)', {}, false],
    ['a notin (b,c)', {}, true],
    ['a notin (b,c)', { a: 'b' }, false],
    ['a in ()', { a: '' }, true],
    ['a in ()', { a: 'b' }, false],
    ['a', { a: '' }, true],
    ['a', {}, false],
    ['!a', {}, true],
    ['!a', { a: 'x' }, false],
    ['a>3', { a: '4' }, true],
    ['a>3', { a: '3' }, false],
    ['a<3', { a: '007' }, false],
    ['a<10', { a: '007' }, true],
    ['a>3', { a: 'x' }, false],
    ['a<3', {}, false],
    ['a>9223372036854775806', { a: '9223372036854775807' }, true],
    ['a>1', { a: '9223372036854775808' }, false],
    ['a=b,c', { a: 'b', c: '' }, true],
    ['a=b,c', { a: 'b' }, false],
    ['constructor', {}, false],
  ];
  for (const [selector, labels, want] of matching) {
    it(`"${selector}" on ${JSON.stringify(labels)} is ${want}`, () => {
      expect(parseLabelSelector(selector).matches(labels)).toBe(want);
    });
  }
});

describe('parseLabelSelector: metav1.LabelSelector', () => {
  it('converts matchLabels and matchExpressions as LabelSelectorAsSelector does', () => {
    const s = parseLabelSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'NotIn', values: ['b', 'a'] },
        { key: 'x', operator: 'Exists' },
        { key: 'y', operator: 'DoesNotExist' },
        { key: 'tier', operator: 'In', values: ['web'] },
      ],
    });
    expect(s.toString()).toBe('app=web,env notin (a,b),tier in (web),x,!y');
    expect(s.matches({ app: 'web', tier: 'web', x: '' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'web', x: '', env: 'a' })).toBe(false);
    expect(parseLabelSelector({}).empty).toBe(true);
    expect(parseLabelSelector({ matchLabels: {}, matchExpressions: [] }).empty).toBe(true);
  });

  const refused: Array<[Parameters<typeof parseLabelSelector>[0], string]> = [
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
      `values: Invalid value: []string{"b"}: values set must be empty for exists and does not exist`,
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['-b'] }] },
      `values[0][a]: Invalid value: "-b": ${VALUE_REGEX}`,
    ],
    [{ matchLabels: { '-a': 'b' } }, `key: Invalid value: "-a": name part ${NAME_REGEX}`],
    [
      { matchLabels: { a: 'v'.repeat(64) } },
      `values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
    ],
    [
      { matchExpressions: [{ key: '', operator: 'Exists' }] },
      `key: Invalid value: "": name part must be non-empty; name part ${NAME_REGEX}`,
    ],
  ];
  for (const [selector, want] of refused) {
    it(`refuses ${JSON.stringify(selector).slice(0, 80)}`, () => {
      expect(outcome(selector)).toBe(want);
    });
  }
});
