// A crude example generator for RE2 patterns: walks the pattern and takes the shortest path
// (first alternative, minimum repetitions, a representative character per class). Good enough
// for the patterns of real CRDs; callers check the result against the pattern.

interface Cursor {
  readonly p: string;
  i: number;
}

function pickFromClass(body: string, negated: boolean): string {
  if (negated) {
    for (const c of ['a', 'x', '0', 'A', '-', '.', '_']) if (!classHas(body, c)) return c;
    return 'z';
  }
  const chars: string[] = [];
  for (let i = 0; i < body.length; i++) {
    let c = body[i]!;
    if (c === '\\') {
      const n = body[++i]!;
      if (n === 'd') c = '0';
      else if (n === 'w') c = 'a';
      else if (n === 's') c = ' ';
      else if (n === 'p' || n === 'P') {
        c = 'a';
        if (body[i + 1] === '{') i = body.indexOf('}', i);
        else i++;
      } else c = n;
    } else if (c === '[' && body[i + 1] === ':') {
      const end = body.indexOf(':]', i);
      const name = body.slice(i + 2, end);
      c = name === 'digit' ? '0' : name === 'upper' ? 'A' : 'a';
      i = end + 1;
    }
    chars.push(c);
    if (body[i + 1] === '-' && i + 2 < body.length) i += 2; // a range: keep its start
  }
  return chars.find((c) => /[a-z0-9]/.test(c)) ?? chars.find((c) => /[A-Za-z]/.test(c)) ?? chars[0] ?? 'a';
}

function classHas(body: string, c: string): boolean {
  try {
    return new RegExp(`[${body}]`, 'u').test(c);
  } catch {
    return body.includes(c);
  }
}

function parseAlternation(cur: Cursor, longer: boolean): string {
  const first = parseSequence(cur, longer);
  while (cur.p[cur.i] === '|') {
    cur.i++;
    parseSequence(cur, longer);
  }
  return first;
}

function parseSequence(cur: Cursor, longer: boolean): string {
  let out = '';
  while (cur.i < cur.p.length && cur.p[cur.i] !== '|' && cur.p[cur.i] !== ')') {
    const atom = parseAtom(cur, longer);
    out += applyQuantifier(cur, atom, longer);
  }
  return out;
}

function applyQuantifier(cur: Cursor, atom: string, longer: boolean): string {
  const c = cur.p[cur.i];
  let n = 1;
  if (c === '*' || c === '?') {
    n = longer && c === '*' ? 2 : 0;
    cur.i++;
  } else if (c === '+') {
    n = longer ? 2 : 1;
    cur.i++;
  } else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(cur.p.slice(cur.i));
    if (m) {
      n = Number(m[1]);
      if (longer && m[2] !== undefined) n = m[3] ? Math.min(Number(m[3]), n + 2) : n + 2;
      cur.i += m[0].length;
    }
  }
  if (cur.p[cur.i] === '?') cur.i++; // lazy
  return atom.repeat(n);
}

function parseAtom(cur: Cursor, longer: boolean): string {
  const c = cur.p[cur.i]!;
  if (c === '(') {
    cur.i++;
    const m = /^\?(P?<[^>]+>|[imsU-]*:|[imsU-]+\))/.exec(cur.p.slice(cur.i));
    if (m) {
      cur.i += m[0].length;
      if (m[0].endsWith(')')) return '';
    }
    const inner = parseAlternation(cur, longer);
    cur.i++; // ')'
    return inner;
  }
  if (c === '[') {
    let j = cur.i + 1;
    const negated = cur.p[j] === '^';
    if (negated) j++;
    const start = j;
    if (cur.p[j] === ']') j++;
    while (j < cur.p.length && cur.p[j] !== ']') {
      if (cur.p[j] === '\\') j++;
      else if (cur.p.startsWith('[:', j)) j = cur.p.indexOf(':]', j) + 1;
      j++;
    }
    const body = cur.p.slice(start, j);
    cur.i = j + 1;
    return pickFromClass(body, negated);
  }
  if (c === '\\') {
    const n = cur.p[cur.i + 1]!;
    cur.i += 2;
    if (n === 'd') return '0';
    if (n === 'w') return 'a';
    if (n === 's') return ' ';
    if (n === 'A' || n === 'z' || n === 'b' || n === 'B') return '';
    if (n === 'p' || n === 'P') {
      if (cur.p[cur.i] === '{') cur.i = cur.p.indexOf('}', cur.i) + 1;
      else cur.i++;
      return 'a';
    }
    return n;
  }
  cur.i++;
  if (c === '^' || c === '$') return '';
  if (c === '.') return 'a';
  return c;
}

/** Example strings for an RE2 pattern (shortest first), unchecked. */
export function regexExamples(pattern: string): string[] {
  const out: string[] = [];
  for (const longer of [false, true]) {
    try {
      out.push(parseAlternation({ p: pattern, i: 0 }, longer));
    } catch {
      // an exotic pattern: the caller falls back to its candidates
    }
  }
  return out;
}
