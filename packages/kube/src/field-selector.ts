import { SelectorError } from './selector-error.ts';

/** One requirement of a field selector: a field, `=`/`==` (equal) or `!=`, and the (unescaped) value. */
export interface FieldRequirement {
  /** The field path as written (`metadata.name`, `spec.nodeName`); not trimmed, as the apiserver does not trim. */
  readonly field: string;
  /** `=` and `==` select equal values, `!=` different ones. */
  readonly operator: '=' | '==' | '!=';
  /** The value, with `\,`, `\=` and `\\` unescaped. */
  readonly value: string;
}

/**
 * A parsed field selector (apimachinery's `fields.Selector`): requirements ANDed, sorted as the
 * apiserver sorts them. Which fields a resource supports is the server's business (each resource
 * has its own table); this is the grammar.
 */
export interface ParsedFieldSelector {
  /** The requirements, in the apiserver's order. */
  readonly requirements: readonly FieldRequirement[];
  /** True when the selector has no requirement and so selects everything. */
  readonly empty: boolean;
  /** True when every requirement holds; `field` reads a field's value (`''` when absent). */
  matches(field: (name: string) => string): boolean;
  /** The value a requirement `field=value` (or `==`) pins, if there is one. */
  requiresExactMatch(field: string): string | undefined;
}

const OPERATORS = ['!=', '==', '='] as const;

/** Splits on the commas that are not escaped with `\`. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator in a term, leftmost first and `!=` before `==` before `=` at one position. */
function splitTerm(term: string): FieldRequirement | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const operator of OPERATORS) {
      if (term.startsWith(operator, i)) {
        return { field: term.slice(0, i), operator, value: term.slice(i + operator.length) };
      }
    }
  }
  return undefined;
}

/** `fields.UnescapeValue`; the message when the value is not valid. */
function unescapeValue(value: string): string | { error: string } {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=')
        return { error: `invalid field selector: invalid escape sequence: \\${c}` };
      out += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune as a number (%v of a rune).
      return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    } else out += c;
  }
  if (escaped) return { error: 'invalid field selector: invalid escape sequence: \\' };
  return out;
}

/**
 * Parses a field selector with the apiserver's grammar (`fields.ParseSelector`): terms
 * `field=value`, `field==value` or `field!=value` joined by `,`; `\,`, `\=` and `\\` escape those
 * characters in values; empty terms are skipped; nothing is trimmed (`a = b` is the field `a `).
 *
 * @throws SelectorError with the apiserver's message as `detail`.
 */
export function parseFieldSelector(selector: string): ParsedFieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const parsed = splitTerm(term);
    if (parsed === undefined) {
      throw new SelectorError(
        'field',
        selector,
        `invalid selector: '${selector}'; can't understand '${term}'`,
      );
    }
    const value = unescapeValue(parsed.value);
    if (typeof value !== 'string') throw new SelectorError('field', selector, value.error);
    requirements.push(Object.freeze({ ...parsed, value }));
  }
  Object.freeze(requirements);
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (field) => requirements.every((r) => (field(r.field) === r.value) !== (r.operator === '!=')),
    requiresExactMatch: (field) => requirements.find((r) => r.field === field && r.operator !== '!=')?.value,
  };
}
