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
}

/** Translates an RE2 pattern (the apiserver's dialect) into a JavaScript `u`-mode pattern. */
export function re2ToJs(pattern: string): { source: string; flags: string } {
  let out = '';
  let flags = 'u';
  const stack: Group[] = [{ flagGroups: [] }];
  let i = 0;
  const top = () => stack[stack.length - 1]!;
  const closeFlags = (g: Group) => {
    out += ')'.repeat(g.flagGroups.length);
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) throw new Re2UnsupportedError('trailing backslash');
      if (n === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const lit = pattern.slice(i + 2, end < 0 ? undefined : end);
        out += lit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      if (n === 'z') out += '$';
      else if (n === 'A') out += '^';
      else if (n === 'C') throw new Re2UnsupportedError('\\C (any byte) is not supported');
      else if ((n === 'p' || n === 'P') && pattern[i + 2] !== '{') {
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
      out += translateClass(pattern.slice(i, end));
      i = end;
      continue;
    }
    if (c === '(') {
      const flagOnly = /^\(\?([imsU-]+)\)/.exec(pattern.slice(i));
      if (flagOnly) {
        const f = jsModifiers(flagOnly[1]!);
        if (stack.length === 1 && out === '' && !f.includes('-')) {
          for (const x of f) if (!flags.includes(x)) flags += x;
        } else if (f) {
          out += `(?${f}:`;
          top().flagGroups.push(f);
        }
        i += flagOnly[0].length;
        continue;
      }
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(pattern.slice(i));
      const flagGroup = /^\(\?([imsU-]+):/.exec(pattern.slice(i));
      if (named) {
        out += `(?<${named[1]}>`;
        i += named[0].length;
      } else if (flagGroup) {
        const f = jsModifiers(flagGroup[1]!);
        out += f ? `(?${f}:` : '(?:';
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
      stack.push({ flagGroups: [] });
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
    out += c === '}' || c === ']' ? `\\${c}` : c;
    i += 1;
  }
  if (stack.length !== 1) throw new Re2UnsupportedError('unbalanced parenthesis');
  closeFlags(top());
  return { source: out, flags };
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

function translateClass(cls: string): string {
  let out = '[';
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
      i = e + 2;
      continue;
    }
    if (c === '\\') {
      const n = cls[i + 1]!;
      if ((n === 'p' || n === 'P') && cls[i + 2] !== '{') {
        out += `\\${n}{${cls[i + 2]}}`;
        i += 3;
        continue;
      }
      out += /[A-Za-z0-9]/.test(n) || JS_SYNTAX.has(n) || n === '-' ? `\\${n}` : n;
      i += 2;
      continue;
    }
    out +=
      c === '[' || c === '/' || c === '{' || c === '}' || c === '(' || c === ')' || c === '|' ? `\\${c}` : c;
    i++;
  }
  return `${out}]`;
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
