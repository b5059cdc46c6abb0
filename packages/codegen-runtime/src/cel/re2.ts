/** A regular expression the client-side engine cannot translate faithfully from RE2. */
export class Re2UnsupportedError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'Re2UnsupportedError';
  }
}

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Characters that may follow a backslash in a JavaScript `u`-mode pattern outside a class. */
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);

interface Group {
  /** Modifier groups opened by inline flags in this group, still to close. */
  flagGroups: string[];
  /** Without RegExp modifiers: the scoped flags (`i`, `m`, `s`) in force, emulated in the output. */
  emulated: string;
}

/**
 * Whether this JavaScript engine has RegExp modifiers (`(?i:…)`): V8 12.5, Node 23 and later.
 * Without them (Node 22), scoped flags are emulated in the translation.
 */
const HAS_REGEXP_MODIFIERS = ((): boolean => {
  // Built from a variable: as a literal, the probe would be a syntax error where it fails.
  const probe = '(?i:a)';
  try {
    return new RegExp(probe, 'u').test('A');
  } catch {
    return false;
  }
})();

/** Options of {@link re2ToJs}. */
export interface Re2ToJsOptions {
  /**
   * Translate scoped inline flags to RegExp modifiers (`(?i:…)`). Default: when the engine has
   * them ({@link HAS_REGEXP_MODIFIERS}). Otherwise `i` is emulated by case-folding letters and
   * classes, `s` by `[^]` for `.`, and `m` by lookarounds for `^` and `$`.
   */
  readonly modifiers?: boolean;
}

/** Translates an RE2 pattern (the apiserver's dialect) into a JavaScript `u`-mode pattern. */
export function re2ToJs(pattern: string, options: Re2ToJsOptions = {}): { source: string; flags: string } {
  const modifiers = options.modifiers ?? HAS_REGEXP_MODIFIERS;
  let out = '';
  let flags = 'u';
  const stack: Group[] = [{ flagGroups: [], emulated: '' }];
  let i = 0;
  const top = () => stack[stack.length - 1]!;
  const closeFlags = (g: Group) => {
    out += ')'.repeat(g.flagGroups.length);
  };
  const fold = () => top().emulated.includes('i');
  const literal = (text: string) => (fold() ? foldLiteral(text) : text);
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) throw new Re2UnsupportedError('trailing backslash');
      if (n === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const lit = pattern.slice(i + 2, end < 0 ? undefined : end);
        out += literal(lit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      if (n === 'z') out += '$';
      else if (n === 'A') out += '^';
      else if (n === 'C') throw new Re2UnsupportedError('\\C (any byte) is not supported');
      else if (fold() && !'dDwWsSbBntrfv'.includes(n) && /[A-Za-z0-9]/.test(n)) {
        throw new Re2UnsupportedError(
          `\\${n} in a case-insensitive scope needs RegExp modifiers (Node 23 or later)`,
        );
      } else if ((n === 'p' || n === 'P') && pattern[i + 2] !== '{') {
        out += `\\${n}{${pattern[i + 2] ?? ''}}`;
        i += 3;
        continue;
      } else if (/[A-Za-z0-9]/.test(n)) out += `\\${n}`;
      else out += JS_SYNTAX.has(n) ? `\\${n}` : n;
      i += 2;
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      out += translateClass(pattern.slice(i, end), fold());
      i = end;
      continue;
    }
    if (c === '(') {
      const flagOnly = /^\(\?([imsU-]+)\)/.exec(pattern.slice(i));
      if (flagOnly) {
        const f = jsModifiers(flagOnly[1]!);
        if (stack.length === 1 && out === '' && !f.includes('-')) {
          for (const x of f) if (!flags.includes(x)) flags += x;
        } else if (!modifiers) {
          top().emulated = emulate(top().emulated, f, flags);
        } else if (f) {
          out += `(?${f}:`;
          top().flagGroups.push(f);
        }
        i += flagOnly[0].length;
        continue;
      }
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(pattern.slice(i));
      const flagGroup = /^\(\?([imsU-]+):/.exec(pattern.slice(i));
      let emulated = top().emulated;
      if (named) {
        out += `(?<${named[1]}>`;
        i += named[0].length;
      } else if (flagGroup) {
        const f = jsModifiers(flagGroup[1]!);
        if (modifiers) out += f ? `(?${f}:` : '(?:';
        else {
          emulated = emulate(emulated, f, flags);
          out += '(?:';
        }
        i += flagGroup[0].length;
      } else if (pattern.startsWith('(?:', i)) {
        out += '(?:';
        i += 3;
      } else if (pattern[i + 1] === '?') {
        throw new Re2UnsupportedError(`group syntax ${pattern.slice(i, i + 4)} is not RE2`);
      } else {
        out += '(';
        i += 1;
      }
      stack.push({ flagGroups: [], emulated });
      continue;
    }
    if (c === ')') {
      const g = stack.pop();
      if (!g || stack.length === 0) throw new Re2UnsupportedError('unbalanced parenthesis');
      closeFlags(g);
      out += ')';
      i += 1;
      continue;
    }
    if (c === '|') {
      const g = top();
      closeFlags(g);
      out += '|';
      for (const f of g.flagGroups) out += `(?${f}:`;
      i += 1;
      continue;
    }
    if (c === '{') {
      const q = /^\{[0-9]+(,[0-9]*)?\}/.exec(pattern.slice(i));
      if (q) {
        out += q[0];
        i += q[0].length;
      } else {
        out += '\\{';
        i += 1;
      }
      continue;
    }
    const scoped = top().emulated;
    if (c === '.' && scoped.includes('s')) out += '[^]';
    else if (c === '^' && scoped.includes('m')) out += '(?<![^\\n])';
    else if (c === '$' && scoped.includes('m')) out += '(?![^\\n])';
    else out += c === '}' || c === ']' ? `\\${c}` : literal(c);
    i += 1;
  }
  if (stack.length !== 1) throw new Re2UnsupportedError('unbalanced parenthesis');
  closeFlags(top());
  return { source: out, flags };
}

/** The scoped flags in force after applying `f` (`i`, `i-s`, `-m`) without RegExp modifiers. */
function emulate(current: string, f: string, global: string): string {
  const [on = '', off = ''] = f.split('-');
  for (const x of off) {
    if (global.includes(x)) {
      throw new Re2UnsupportedError(
        `turning off (?${x}) set for the whole pattern needs RegExp modifiers (Node 23 or later)`,
      );
    }
  }
  const next = [...new Set(current + on)].filter((x) => !off.includes(x) && !global.includes(x));
  return next.join('');
}

/** Other-case forms of a letter, as JavaScript's case-insensitive `u` mode matches them. */
function caseVariants(c: string): string {
  const lower = c.toLowerCase();
  const upper = c.toUpperCase();
  let variants = [lower, upper].filter((v) => v !== c && [...v].length === 1).join('');
  if (lower === 'k') variants += '\u212A'; // KELVIN SIGN folds to k
  if (lower === 's') variants += '\u017F'; // LATIN SMALL LETTER LONG S folds to s
  return variants;
}

/** A translated literal run, each letter widened to a class of its case forms. */
function foldLiteral(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      out += text.slice(i, i + 2);
      i++;
      continue;
    }
    const v = caseVariants(c);
    out += v ? `[${c}${v}]` : c;
  }
  return out;
}

/** The other-case forms of the range `lo-hi` (ASCII letters; anything else needs modifiers). */
function foldRange(lo: string, hi: string): string {
  const a = lo.codePointAt(0)!;
  const b = hi.codePointAt(0)!;
  if (b > 0x7f) {
    throw new Re2UnsupportedError(
      `the range ${lo}-${hi} in a case-insensitive scope needs RegExp modifiers (Node 23 or later)`,
    );
  }
  const covers = (...chars: string[]) =>
    chars.some((ch) => a <= ch.codePointAt(0)! && ch.codePointAt(0)! <= b);
  let out = '';
  if (a <= 0x5a && b >= 0x41)
    out += `${String.fromCodePoint(Math.max(a, 0x41) + 0x20)}-${String.fromCodePoint(Math.min(b, 0x5a) + 0x20)}`;
  if (a <= 0x7a && b >= 0x61)
    out += `${String.fromCodePoint(Math.max(a, 0x61) - 0x20)}-${String.fromCodePoint(Math.min(b, 0x7a) - 0x20)}`;
  if (covers('k', 'K')) out += '\\u212A';
  if (covers('s', 'S')) out += '\\u017F';
  return out;
}

function jsModifiers(f: string): string {
  if (f.includes('U')) throw new Re2UnsupportedError('the ungreedy flag (?U) is not supported');
  const [on = '', off = ''] = f.split('-');
  const keep = (s: string) => [...new Set(s)].filter((x) => 'ims'.includes(x)).join('');
  const a = keep(on);
  const b = keep(off);
  return b ? `${a}-${b}` : a;
}

function classEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  if (p[i] === ']') i++;
  while (i < p.length) {
    if (p[i] === '\\') i += 2;
    else if (p.startsWith('[:', i)) {
      const e = p.indexOf(':]', i + 2);
      i = e < 0 ? i + 1 : e + 2;
    } else if (p[i] === ']') return i + 1;
    else i++;
  }
  throw new Re2UnsupportedError('missing closing ]');
}

function translateClass(cls: string, fold = false): string {
  let out = '[';
  let folded = '';
  let rangeEnd = -1;
  let i = 1;
  if (cls[i] === '^') {
    out += '^';
    i++;
  }
  if (cls[i] === ']') {
    out += '\\]';
    i++;
  }
  while (i < cls.length - 1) {
    const c = cls[i]!;
    if (c === '[' && cls[i + 1] === ':') {
      const e = cls.indexOf(':]', i + 2);
      const name = cls.slice(i + 2, e);
      const neg = name.startsWith('^');
      const ranges = POSIX_CLASSES[neg ? name.slice(1) : name];
      if (!ranges || neg) throw new Re2UnsupportedError(`character class [:${name}:] is not supported`);
      out += ranges;
      if (fold) folded += foldPosix(ranges);
      i = e + 2;
      continue;
    }
    if (c === '\\') {
      const n = cls[i + 1]!;
      if (fold && !'dDwWsSntrfv'.includes(n) && /[A-Za-z0-9]/.test(n)) {
        throw new Re2UnsupportedError(
          `\\${n} in a case-insensitive scope needs RegExp modifiers (Node 23 or later)`,
        );
      }
      if ((n === 'p' || n === 'P') && cls[i + 2] !== '{') {
        out += `\\${n}{${cls[i + 2]}}`;
        i += 3;
        continue;
      }
      out += /[A-Za-z0-9]/.test(n) || JS_SYNTAX.has(n) || n === '-' ? `\\${n}` : n;
      i += 2;
      continue;
    }
    if (fold && cls[i + 1] === '-' && i + 2 < cls.length - 1 && !'\\['.includes(cls[i + 2]!)) {
      folded += foldRange(c, cls[i + 2]!);
      rangeEnd = i + 2;
    } else if (fold && i !== rangeEnd) {
      folded += caseVariants(c);
    }
    out +=
      c === '[' || c === '/' || c === '{' || c === '}' || c === '(' || c === ')' || c === '|' ? `\\${c}` : c;
    i++;
  }
  return `${out}${folded}]`;
}

/** The other-case forms of a POSIX class's ranges (`a-z` → `A-Z`). */
function foldPosix(ranges: string): string {
  let out = '';
  for (const m of ranges.matchAll(/([A-Za-z])-([A-Za-z])/g)) out += foldRange(m[1]!, m[2]!);
  return out;
}

const cache = new Map<string, RegExp>();

/**
 * Compiles an RE2 pattern to a JavaScript RegExp (unanchored, like RE2 `MatchString`): inline
 * flags anywhere (`^(?i)…`), `(?P<name>…)`, `\A`, `\z`, `\Q…\E`, POSIX classes and one-letter
 * Unicode classes are translated.
 *
 * @throws {@link Re2UnsupportedError} for RE2 syntax without a faithful translation, or a pattern
 *   that does not compile.
 */
export function compileRe2(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const { source, flags } = re2ToJs(pattern);
    try {
      re = new RegExp(source, flags);
    } catch (e) {
      throw new Re2UnsupportedError(`cannot compile ${JSON.stringify(pattern)}: ${(e as Error).message}`);
    }
    cache.set(pattern, re);
  }
  return re;
}
