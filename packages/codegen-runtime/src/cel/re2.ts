import { RE2JS, RE2JSException } from 're2js';

/**
 * A regular expression that RE2 (kube-apiserver's engine, Go's `regexp`) does not compile. The
 * message is Go's (`error parsing regexp: invalid or unsupported Perl syntax: ...`), as the
 * apiserver writes it.
 */
export class Re2SyntaxError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'Re2SyntaxError';
  }
}

/** A compiled RE2 regular expression. */
export interface Re2 {
  /** The RE2 pattern it was compiled from. */
  readonly source: string;
  /** Whether the expression matches anywhere in `input` (Go's `MatchString`; unanchored). */
  test(input: string): boolean;
  /** Go's `FindAllString(input, n)`: the leftmost non-overlapping matches, at most `n` (all when negative). */
  findAll(input: string, n: number): string[];
  /** `/source/`, as a RegExp prints: Ajv keys the patterns it compiles by it. */
  toString(): string;
}

/** Compiled patterns; cleared when it grows past this many (CEL `matches` can build patterns from data). */
const CACHE_LIMIT = 4096;
const cache = new Map<string, Re2>();

/**
 * Compiles an RE2 pattern with a real RE2 engine (`re2js`, a port of RE2/J and Go's `regexp`):
 * exactly the syntax kube-apiserver accepts — inline flags anywhere (`^(?i)…`, `(?i:…)`, `(?U)`),
 * `(?P<name>…)`, `\A`, `\z`, `\Q…\E`, POSIX and Unicode classes (`\pL`, `\p{Greek}`) — and nothing
 * it rejects (look-around, back-references, possessive quantifiers, `\C`), with the same matches
 * (code points, not UTF-16 units; linear time). The verdict does not depend on the Node version.
 *
 * @throws {@link Re2SyntaxError} with Go's message when the pattern is not valid RE2.
 */
export function compileRe2(pattern: string): Re2 {
  let re = cache.get(pattern);
  if (!re) {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (e) {
      if (e instanceof RE2JSException) throw new Re2SyntaxError(e.message);
      throw e;
    }
    re = {
      source: pattern,
      test: (input: string) => compiled.test(input),
      findAll: (input: string, n: number) => {
        const out: string[] = [];
        const m = compiled.matcher(input);
        while ((n < 0 || out.length < n) && m.find()) out.push(m.group() ?? '');
        return out;
      },
      toString: () => `/${pattern}/`,
    };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}
