import { SelectorError } from '@kubeloom/kube';
import { describe, expect, it } from 'vitest';
import { labelMatcher, labelSelectorString } from './label-selector.ts';

describe('labelMatcher', () => {
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['', undefined, true],
    ['app=web', { app: 'web' }, true],
    ['app==web', { app: 'web' }, true],
    ['app=web', { app: 'db' }, false],
    ['app!=web', {}, true],
    ['app!=web', { app: 'web' }, false],
    ['app', { app: '' }, true],
    ['app', {}, false],
    ['!app', {}, true],
    ['! app', { app: 'x' }, false],
    ['env in (a, b)', { env: 'b' }, true],
    ['env in (a,b)', {}, false],
    ['env notin (a,b)', {}, true],
    ['env notin (a,b)', { env: 'a' }, false],
    ['app=web,env in (a,b),!legacy', { app: 'web', env: 'a' }, true],
    ['app=web,env in (a,b),!legacy', { app: 'web', env: 'a', legacy: 'y' }, false],
    ['n>3', { n: '4' }, true],
    ['n<3', { n: '4' }, false],
    ['n>3', { n: 'x' }, false],
    ['empty=', { empty: '' }, true],
    ['example.com/team=blue', { 'example.com/team': 'blue' }, true],
  ];
  for (const [selector, labels, want] of cases) {
    it(`"${selector}" on ${JSON.stringify(labels)} is ${want}`, () => {
      expect(labelMatcher(selector)(labels)).toBe(want);
    });
  }

  it('matches structured selectors', () => {
    const m = labelMatcher({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['a'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'tier', operator: 'Exists' },
        { key: 'zone', operator: 'NotIn', values: ['z'] },
      ],
    });
    expect(m({ app: 'web', env: 'a', tier: '' })).toBe(true);
    expect(m({ app: 'web', env: 'a', tier: '', zone: 'z' })).toBe(false);
    expect(labelMatcher({})({})).toBe(true);
    expect(labelMatcher(undefined)({ a: 'b' })).toBe(true);
  });

  it('accepts what the apiserver accepts: `in ()` is the empty value', () => {
    expect(labelMatcher('a in ()')({ a: '' })).toBe(true);
    expect(labelMatcher('a in ()')({ a: 'x' })).toBe(false);
  });

  it('rejects what the apiserver rejects, with its message', () => {
    expect(() => labelMatcher('a,,b')).toThrow(
      new SelectorError('label', 'a,,b', "found ',', expected: identifier after ','"),
    );
    expect(() => labelMatcher('a=b=c')).toThrow(/found '=', expected: ',' or 'end of string'/);
    expect(() => labelMatcher('n>x')).toThrow(/the value must be an integer/);
    expect(() => labelMatcher('-a')).toThrow(/name part must consist of alphanumeric characters/);
    expect(() => labelMatcher({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toThrow(
      /values set can't be empty/,
    );
    expect(() =>
      labelMatcher({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).toThrow(/values set must be empty for exists and does not exist/);
    expect(() => labelMatcher({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toThrow(
      /"Near" is not a valid label selector operator/,
    );
    expect(() => labelMatcher({ matchLabels: { a: 'x'.repeat(64) } })).toThrow(SelectorError);
  });
});

describe('labelSelectorString', () => {
  it('renders structured selectors for the server and validates strings', () => {
    expect(labelSelectorString(undefined)).toBeUndefined();
    expect(labelSelectorString('')).toBeUndefined();
    expect(labelSelectorString({})).toBeUndefined();
    expect(labelSelectorString('app=web')).toBe('app=web');
    expect(
      labelSelectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'NotIn', values: ['b', 'a'] },
          { key: 'x', operator: 'Exists' },
          { key: 'y', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('app=web,env notin (a,b),x,!y');
    expect(() => labelSelectorString('a in (')).toThrow(/invalid label selector/);
  });
});
