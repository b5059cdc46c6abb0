/** One `@tag` of a doc comment, with the 1-based line it starts on (relative to the file). */
export interface DocTag {
  readonly name: string;
  /** The raw text after the tag name (continuation lines joined with `\n`), trimmed. */
  readonly value: string;
  readonly line: number;
  readonly column: number;
}

/** A parsed `/** … *\/` comment. */
export interface DocComment {
  /** The description (text before the first tag), with escapes undone; undefined when empty. */
  readonly description: string | undefined;
  readonly tags: DocTag[];
}

/**
 * Parses a doc comment's raw text. `startLine` is the 1-based line of `/**`. A tag starts on a
 * line whose text begins with `@name`; `\@` at the start of a description line is a literal `@`
 * and `*\/` is a literal `*` `/`. Blank lines before the description's text are kept (trailing
 * ones are not).
 */
export function parseDocComment(raw: string, startLine: number, startColumn: number): DocComment {
  const body = raw.replace(/^\/\*\*/, '').replace(/\*\/$/, '');
  const lines = body.split('\n').map((l, i) => {
    if (i === 0) return { text: l.replace(/^ /, ''), col: startColumn + 3 + (l.startsWith(' ') ? 1 : 0) };
    const m = /^(\s*\*?) ?/.exec(l)!;
    return { text: l.slice(m[0].length), col: m[0].length + 1 };
  });
  const desc: string[] = [];
  const tags: Array<{ name: string; value: string[]; line: number; column: number }> = [];
  lines.forEach(({ text, col }, i) => {
    const m = /^(\s*)@([A-Za-z][\w.-]*)\s?(.*)$/.exec(text);
    if (m) {
      // several tags on one line (`@format int32 @minimum 1`): split outside double quotes
      const offset = col + m[1]!.length;
      for (const part of splitInlineTags(text.slice(m[1]!.length))) {
        const pm = /^@([A-Za-z][\w.-]*)\s?([\s\S]*)$/.exec(part.text)!;
        tags.push({ name: pm[1]!, value: [pm[2]!], line: startLine + i, column: offset + part.offset });
      }
      return;
    }
    const current = tags[tags.length - 1];
    if (current) current.value.push(text);
    else desc.push(text.replace(/^(\s*)\\@/, '$1@').replaceAll('*\\/', '*/'));
  });
  // The rest of the `/**` line is not a line of the description when empty; blank lines after it
  // are (a CRD description may start with them).
  if (lines[0]!.text.trim() === '' && desc[0]?.trim() === '') desc.shift();
  if (desc.every((l) => l.trim() === '')) desc.length = 0;
  while (desc.length > 0 && desc[desc.length - 1]!.trim() === '') desc.pop();
  const description = desc.length > 0 ? desc.map((l) => l.replace(/\s+$/, '')).join('\n') : undefined;
  return {
    description,
    tags: tags.map((t) => ({
      name: t.name,
      value: t.value.join('\n').trim(),
      line: t.line,
      column: t.column,
    })),
  };
}

/** Escapes a description for a doc comment (the inverse of {@link parseDocComment}). */
function escapeDescription(text: string): string[] {
  return text.split('\n').map((l) => l.replaceAll('*/', '*\\/').replace(/^(\s*)@/, '$1\\@'));
}

/** Renders a doc comment with the given description and tag lines, indented. */
export function renderDocComment(
  description: string | undefined,
  tags: readonly string[],
  indent: string,
): string {
  const lines: string[] = [];
  if (description !== undefined && description !== '') lines.push(...escapeDescription(description));
  if (tags.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(...tags.map((t) => t.replaceAll('*/', '*\\/')));
  }
  if (lines.length === 0) return '';
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}

/** Quotes a marker argument value when it is not a plain token. */
export function quoteArg(value: string): string {
  return /^[^\s"'=,]+$/.test(value) ? value : JSON.stringify(value);
}

/** A parsed `key=value` argument list with optional leading positional words. */
export interface MarkerArgs {
  readonly positional: string[];
  readonly named: Map<string, string>;
}

/**
 * Parses `word key=value key="json string"` argument text.
 *
 * @throws Error with a description of the problem (unbalanced quotes, a missing value).
 */
export function parseArgs(text: string): MarkerArgs {
  const positional: string[] = [];
  const named = new Map<string, string>();
  let i = 0;
  const readValue = (): string => {
    if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new Error(`unbalanced quote in ${JSON.stringify(text)}`);
      const lit = text.slice(i, j + 1);
      i = j + 1;
      try {
        return JSON.parse(lit.replace(/\n/g, '\\n')) as string;
      } catch {
        throw new Error(`invalid quoted string ${lit}`);
      }
    }
    if (text[i] === "'")
      throw new Error('use double quotes (JSON strings) for marker values, not single quotes');
    const m = /^[^\s]*/.exec(text.slice(i))!;
    i += m[0].length;
    return m[0];
  };
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const key = /^[A-Za-z0-9_.\-/]+(?==)/.exec(text.slice(i));
    if (key) {
      i += key[0].length + 1;
      if (i >= text.length || /\s/.test(text[i]!)) throw new Error(`${key[0]}= has no value`);
      named.set(key[0], readValue());
    } else {
      positional.push(readValue());
    }
  }
  return { positional, named };
}

/** Splits `@a 1 @b "x @y"` into tags at ` @name` boundaries outside double-quoted strings. */
function splitInlineTags(text: string): Array<{ text: string; offset: number }> {
  const out: Array<{ text: string; offset: number }> = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) {
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (
      !quoted &&
      i > 0 &&
      c === '@' &&
      /\s/.test(text[i - 1]!) &&
      /^@[A-Za-z][\w.-]*(\s|$)/.test(text.slice(i))
    ) {
      out.push({ text: text.slice(start, i).trimEnd(), offset: start });
      start = i;
    }
  }
  out.push({ text: text.slice(start), offset: start });
  return out;
}
