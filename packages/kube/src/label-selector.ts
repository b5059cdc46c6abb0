import type { V1LabelSelector } from '@kubernetes/client-node';
import {
  aggregate,
  invalidValue,
  isInt64,
  labelKeyErrors,
  labelValueErrors,
} from './internal/label-validation.ts';
import { SelectorError } from './selector-error.ts';

/**
 * A label requirement's operator, spelled as apimachinery's `selection.Operator`: `in`, `notin`,
 * `=`, `==`, `!=`, `exists` (`key`), `!` (`!key`), `gt` (`key>1`), `lt` (`key<1`).
 */
export type SelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a label selector: a key, an operator and its values (sorted, unique). */
export interface LabelRequirement {
  /** The label key (`[prefix/]name`). */
  readonly key: string;
  /** How the key's value is tested. */
  readonly operator: SelectorOperator;
  /** The values: none for `exists` and `!`, one for `=`, `==`, `!=`, `gt`, `lt`, one or more for `in`, `notin`. */
  readonly values: readonly string[];
}

/** A label set, as on `metadata.labels`. */
export type LabelSet = Readonly<Record<string, string>>;

/**
 * A parsed, valid label selector (apimachinery's `labels.Selector`): its requirements (sorted by
 * key, ANDed), a matcher with the apiserver's semantics, and its canonical string form.
 */
export interface ParsedLabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector has no requirement and so selects everything. */
  readonly empty: boolean;
  /**
   * True when the labels satisfy every requirement. `!=` and `notin` also match labels without
   * the key; `gt`/`lt` need the label to be a 64-bit integer.
   */
  matches(labels: LabelSet | undefined): boolean;
  /** The canonical string form (`a in (x,y),b=c,!d`), `''` for the empty selector. */
  toString(): string;
}

type Token = 'end' | 'identifier' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<';

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  ['in', 'in'],
  ['notin', 'notin'],
  ['(', '('],
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['=', '='],
  ['==', '=='],
  ['!=', '!='],
  ['>', '>'],
  ['<', '<'],
]);

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) =>
  c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

interface Scanned {
  readonly token: Token;
  readonly literal: string;
}

/** apimachinery's selector lexer; a NUL ends the input, as Go's `read()` returning 0 does. */
function lex(input: string): Scanned[] {
  const nul = input.indexOf('\0');
  const s = nul < 0 ? input : input.slice(0, nul);
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      out.push({ token: 'end', literal: '' });
      return out;
    }
    const start = pos;
    if (isSpecial(s[pos]!)) {
      // The longest run of special characters that is still an operator.
      let end = pos + 1;
      while (end < s.length && isSpecial(s[end]!) && KEYWORDS.has(s.slice(start, end + 1))) end++;
      const literal = s.slice(start, end);
      out.push({ token: KEYWORDS.get(literal)!, literal });
      pos = end;
    } else {
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const literal = s.slice(start, pos);
      out.push({ token: KEYWORDS.get(literal) ?? 'identifier', literal });
    }
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** A failed parse, with the apiserver's message. */
class ParseFailure extends Error {}

/** apimachinery's `labels.NewRequirement` (with the root path the apiserver gives it): the requirement's own validation. */
function newRequirement(
  key: string,
  operator: SelectorOperator,
  values: readonly string[],
): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(invalidValue('key', key, keyErrs.join('; ')));
  const valuesPath = 'values';
  const goList = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        errs.push(
          `${valuesPath}: Invalid value: ${goList}: for 'in', 'notin' operators, values set can't be empty`,
        );
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(
          `${valuesPath}: Invalid value: ${goList}: exact-match compatibility requires one single value`,
        );
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(
          `${valuesPath}: Invalid value: ${goList}: values set must be empty for exists and does not exist`,
        );
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(
          `${valuesPath}: Invalid value: ${goList}: for 'Gt', 'Lt' operators, exactly one value is required`,
        );
      values.forEach((v, i) => {
        if (!isInt64(v))
          errs.push(
            invalidValue(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalidValue(`${valuesPath}[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length > 0) throw new ParseFailure(aggregate(errs));
  return { key, operator, values };
}

const sortedUnique = (values: Iterable<string>) => [...new Set(values)].sort();

/** apimachinery's selector parser (`labels.Parse`), its messages included. */
class Parser {
  readonly #items: Scanned[];
  #pos = 0;

  constructor(input: string) {
    this.#items = lex(input);
  }

  /** The next token; in a value position `in` and `notin` are identifiers. */
  #peek(values: boolean): Scanned {
    const item = this.#items[Math.min(this.#pos, this.#items.length - 1)]!;
    return values && (item.token === 'in' || item.token === 'notin')
      ? { ...item, token: 'identifier' }
      : item;
  }

  #next(values: boolean): Scanned {
    const item = this.#peek(values);
    this.#pos++;
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.#peek(true);
      switch (token) {
        case 'identifier':
        case '!': {
          try {
            requirements.push(this.#requirement());
          } catch (err) {
            if (err instanceof ParseFailure)
              throw new ParseFailure(`unable to parse requirement: ${err.message}`);
            throw err;
          }
          const after = this.#next(true);
          if (after.token === 'end') return requirements;
          if (after.token !== ',')
            throw new ParseFailure(`found '${after.literal}', expected: ',' or 'end of string'`);
          const following = this.#peek(true);
          if (following.token !== 'identifier' && following.token !== '!')
            throw new ParseFailure(`found '${following.literal}', expected: identifier after ','`);
          break;
        }
        case 'end':
          return requirements;
        default:
          throw new ParseFailure(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  #requirement(): LabelRequirement {
    let negated = false;
    let { token, literal } = this.#next(true);
    if (token === '!') {
      negated = true;
      ({ token, literal } = this.#next(true));
    }
    if (token !== 'identifier') throw new ParseFailure(`found '${literal}', expected: identifier`);
    const keyErrs = labelKeyErrors(literal);
    if (keyErrs.length > 0) throw new ParseFailure(invalidValue('<nil>', literal, keyErrs.join('; ')));
    const key = literal;
    const lookahead = this.#peek(true).token;
    if (negated) return newRequirement(key, '!', []);
    if (lookahead === 'end' || lookahead === ',') return newRequirement(key, 'exists', []);
    const operator = this.#operator();
    const values = operator === 'in' || operator === 'notin' ? this.#valueSet() : this.#exactValue();
    return newRequirement(key, operator, sortedUnique(values));
  }

  #operator(): SelectorOperator {
    const { token, literal } = this.#next(false);
    switch (token) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return token;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new ParseFailure(`found '${literal}', expected: ${BINARY_OPERATORS}`);
    }
  }

  #valueSet(): string[] {
    const open = this.#next(true);
    if (open.token !== '(') throw new ParseFailure(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.#peek(true);
    switch (token) {
      case 'identifier':
      case ',': {
        const values = this.#identifiers();
        // The apiserver names the token after '(' here, not the one it found.
        if (this.#next(true).token !== ')') throw new ParseFailure(`found '${literal}', expected: ')'`);
        return values;
      }
      case ')':
        this.#next(true);
        return [''];
      default:
        throw new ParseFailure(`found '${literal}', expected: ',', ')' or identifier`);
    }
  }

  #identifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const { token, literal } = this.#next(true);
      if (token === 'identifier') {
        values.push(literal);
        const after = this.#peek(true);
        if (after.token === ',') continue;
        if (after.token === ')') return values;
        throw new ParseFailure(`found '${after.literal}', expected: ',' or ')'`);
      }
      if (token !== ',') throw new ParseFailure(`found '${literal}', expected: ',', or identifier`);
      // `(,`, `,)` and `,,` stand for empty values.
      if (values.length === 0) values.push('');
      const after = this.#peek(true).token;
      if (after === ')') {
        values.push('');
        return values;
      }
      if (after === ',') {
        this.#next(true);
        values.push('');
      }
    }
  }

  #exactValue(): string[] {
    const { token } = this.#peek(true);
    if (token === 'end' || token === ',') return [''];
    const value = this.#next(true);
    if (value.token === 'identifier') return [value.literal];
    throw new ParseFailure(`found '${value.literal}', expected: identifier`);
  }
}

const LABEL_SELECTOR_OPERATORS: Readonly<Record<string, SelectorOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** apimachinery's `metav1.LabelSelectorAsSelector` (a non-nil selector). */
function fromLabelSelector(selector: V1LabelSelector): LabelRequirement[] {
  const out: LabelRequirement[] = [];
  const matchLabels = selector.matchLabels ?? {};
  for (const key of Object.keys(matchLabels).sort()) {
    out.push(newRequirement(key, '=', [matchLabels[key]!]));
  }
  for (const e of selector.matchExpressions ?? []) {
    const operator = LABEL_SELECTOR_OPERATORS[e.operator];
    if (operator === undefined) {
      throw new ParseFailure(
        `${JSON.stringify(e.operator)} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
      );
    }
    out.push(newRequirement(e.key, operator, [...(e.values ?? [])]));
  }
  return out;
}

function matchesRequirement(r: LabelRequirement, labels: LabelSet): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const value = labels[r.key];
      if (!has || !isInt64(value!) || r.values.length !== 1 || !isInt64(r.values[0]!)) return false;
      const n = BigInt(value!);
      const bound = BigInt(r.values[0]!);
      return r.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

const OPERATOR_TEXT: Readonly<Record<SelectorOperator, string>> = {
  in: ' in ',
  notin: ' notin ',
  '=': '=',
  '==': '==',
  '!=': '!=',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = [...r.values].sort().join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${OPERATOR_TEXT[r.operator]}${set ? `(${values})` : values}`;
}

function selectorOf(requirements: LabelRequirement[]): ParsedLabelSelector {
  // A stable sort by key, as labels.Parse and Selector.Add order them.
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const frozen = Object.freeze(
    requirements.map((r) => Object.freeze({ ...r, values: Object.freeze([...r.values]) })),
  );
  const text = frozen.map(requirementString).join(',');
  return {
    requirements: frozen,
    empty: frozen.length === 0,
    matches: (labels) => {
      const set = labels ?? {};
      for (const r of frozen) if (!matchesRequirement(r, set)) return false;
      return true;
    },
    toString: () => text,
  };
}

/**
 * Parses a label selector with the apiserver's grammar and validation, so what this accepts the
 * apiserver accepts, and what it refuses the apiserver refuses with the same message.
 *
 * - A string (`?labelSelector=`): `key`, `!key`, `key=value`, `key==value`, `key!=value`,
 *   `key in (a,b)`, `key notin (a,b)`, `key>1`, `key<1`, joined by `,`. Keys are qualified names
 *   (`[prefix/]name`: a DNS-1123 subdomain prefix of at most 253 bytes, a name of at most 63);
 *   values are at most 63 bytes of `[A-Za-z0-9._-]`, starting and ending alphanumeric, or empty.
 *   `''` selects everything.
 * - A `metav1.LabelSelector` (`{ matchLabels, matchExpressions }`, operators `In`, `NotIn`,
 *   `Exists`, `DoesNotExist`), as `metav1.LabelSelectorAsSelector` converts it: `In`/`NotIn`
 *   need values, `Exists`/`DoesNotExist` take none. `{}` selects everything.
 *
 * @throws SelectorError with the apiserver's message as `detail`.
 */
export function parseLabelSelector(selector: string | V1LabelSelector): ParsedLabelSelector {
  try {
    return selectorOf(
      typeof selector === 'string' ? new Parser(selector).parse() : fromLabelSelector(selector),
    );
  } catch (err) {
    if (err instanceof ParseFailure) {
      throw new SelectorError(
        'label',
        typeof selector === 'string' ? selector : JSON.stringify(selector),
        err.message,
      );
    }
    throw err;
  }
}
