import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from './field-selector.ts';
import { SelectorError } from './selector-error.ts';

function outcome(selector: string): string | true {
  try {
    parseFieldSelector(selector);
    return true;
  } catch (err) {
    if (err instanceof SelectorError) return err.detail;
    throw err;
  }
}

describe('parseFieldSelector: the apiserver grammar', () => {
  const cases: Array<[string, string | true]> = [
    ['', true],
    ['metadata.name=x', true],
    ['metadata.name==x', true],
    ['metadata.name!=x', true],
    ['metadata.name=', true],
    ['metadata.name=x,', true],
    [',metadata.name=x', true],
    ['metadata.name=x,,metadata.namespace=y', true],
    ['metadata.name=a\\,b', true],
    ['metadata.name=a\\=b', true],
    ['metadata.name=\\\\', true],
    ['metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ['metadata.name=a,b', "invalid selector: 'metadata.name=a,b'; can't understand 'b'"],
    ['metadata.name>1', "invalid selector: 'metadata.name>1'; can't understand 'metadata.name>1'"],
    ['metadata.name=a=b', 'invalid field selector: unescaped character in value: 61'],
    ['metadata.name=a\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['metadata.name=a\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [selector, want] of cases) {
    it(`${JSON.stringify(selector)} → ${want === true ? 'valid' : 'refused'}`, () => {
      expect(outcome(selector)).toBe(want);
    });
  }

  it('keeps whitespace, unescapes values, sorts terms and pins exact matches', () => {
    const s = parseFieldSelector('status.phase!=Failed,metadata.name = x,spec.a=b\\,c');
    expect(s.requirements).toEqual([
      { field: 'metadata.name ', operator: '=', value: ' x' },
      { field: 'spec.a', operator: '=', value: 'b,c' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
    ]);
    expect(s.requiresExactMatch('spec.a')).toBe('b,c');
    expect(s.requiresExactMatch('status.phase')).toBeUndefined();
    const fields: Record<string, string> = {
      'metadata.name ': ' x',
      'spec.a': 'b,c',
      'status.phase': 'Running',
    };
    expect(s.matches((f) => fields[f] ?? '')).toBe(true);
    expect(s.matches((f) => (f === 'status.phase' ? 'Failed' : (fields[f] ?? '')))).toBe(false);
    expect(parseFieldSelector('').empty).toBe(true);
  });
});
