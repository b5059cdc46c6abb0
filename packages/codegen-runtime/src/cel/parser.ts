import { type CelBinaryOp, type CelExpr, type CelLiteral, CelSyntaxError } from './ast.ts';
import { CEL_RESERVED_WORDS } from './reserved-words.ts';

type TokenKind = 'num' | 'str' | 'bytes' | 'ident' | 'op' | 'eof';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly value?: CelLiteral;
  readonly pos: number;
}

const OPS = [
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '.?',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

/**
 * The value of a string or bytes literal's body. In a bytes literal `\x` and octal escapes are
 * single bytes (`b'\xff'` is one byte), other characters their UTF-8 encoding.
 */
function unescapeString(
  body: string,
  pos: number,
  literal: { readonly raw: boolean; readonly bytes: number[] | undefined },
): string {
  const { raw, bytes } = literal;
  if (raw) return body;
  let out = '';
  const byte = (b: number) => {
    if (!bytes) return false;
    bytes.push(...new TextEncoder().encode(out), b);
    out = '';
    return true;
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i];
    switch (n) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'a':
        out += '\x07';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
      case "'":
      case '"':
      case '`':
      case '?':
        out += n;
        break;
      case 'x':
      case 'u':
      case 'U': {
        const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const hex = body.slice(i + 1, i + 1 + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len)
          throw new CelSyntaxError('invalid escape', pos + i);
        if (n !== 'x' || !byte(Number.parseInt(hex, 16)))
          out += String.fromCodePoint(Number.parseInt(hex, 16));
        i += len;
        break;
      }
      default:
        if (n !== undefined && /[0-7]/.test(n)) {
          const oct = body.slice(i, i + 3);
          if (!byte(Number.parseInt(oct, 8))) out += String.fromCharCode(Number.parseInt(oct, 8));
          i += 2;
          break;
        }
        throw new CelSyntaxError(`invalid escape \\${n ?? ''}`, pos + i);
    }
  }
  return out;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // string and bytes literals with optional r/b prefixes
    const prefix = /^([rRbB]{0,2})(['"])/.exec(src.slice(i, i + 3));
    if (prefix && (prefix[1]!.length > 0 || c === '"' || c === "'")) {
      const flags = prefix[1]!.toLowerCase();
      const raw = flags.includes('r');
      const bytes = flags.includes('b');
      i += flags.length;
      const q = src[i]!;
      const triple = src.slice(i, i + 3) === q.repeat(3);
      const delim = triple ? q.repeat(3) : q;
      i += delim.length;
      let body = '';
      for (;;) {
        if (i >= src.length) throw new CelSyntaxError('unterminated string', start);
        if (src.startsWith(delim, i)) break;
        if (!triple && src[i] === '\n') throw new CelSyntaxError('newline in string', i);
        if (src[i] === '\\' && !raw) {
          body += src.slice(i, i + 2);
          i += 2;
          continue;
        }
        body += src[i];
        i++;
      }
      i += delim.length;
      const byteValues: number[] | undefined = bytes ? [] : undefined;
      const text = unescapeString(body, start, { raw, bytes: byteValues });
      out.push({
        kind: bytes ? 'bytes' : 'str',
        text: src.slice(start, i),
        value: byteValues ? Uint8Array.from([...byteValues, ...new TextEncoder().encode(text)]) : text,
        pos: start,
      });
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m =
        /^(0x[0-9a-fA-F]+[uU]?|[0-9]*\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+[uU]?)/.exec(
          src.slice(i),
        );
      const text = m![0];
      i += text.length;
      let value: CelLiteral;
      if (/^0x/.test(text)) value = BigInt(text.replace(/[uU]$/, ''));
      else if (/[.eE]/.test(text)) value = Number(text);
      else value = BigInt(text.replace(/[uU]$/, ''));
      out.push({ kind: 'num', text, value, pos: start });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      out.push({ kind: 'ident', text: m[0], pos: start });
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new CelSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
    i += op.length;
    out.push({ kind: 'op', text: op, pos: start });
  }
  out.push({ kind: 'eof', text: '', pos: src.length });
  return out;
}

class Parser {
  private i = 0;
  private readonly tokens: Token[];
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }
  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === text;
  }
  private expect(text: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== text) {
      throw new CelSyntaxError(
        `expected ${JSON.stringify(text)} but found ${JSON.stringify(t.text || 'end of input')}`,
        t.pos,
      );
    }
  }
  parseAll(): CelExpr {
    const e = this.expr();
    const t = this.peek();
    if (t.kind !== 'eof') throw new CelSyntaxError(`unexpected ${JSON.stringify(t.text)}`, t.pos);
    return e;
  }
  expr(): CelExpr {
    const cond = this.or();
    if (!this.isOp('?')) return cond;
    this.next();
    const then = this.or();
    this.expect(':');
    const els = this.expr();
    return { kind: 'ternary', cond, then, else: els };
  }
  private binaryLevel(ops: readonly string[], sub: () => CelExpr): CelExpr {
    let left = sub();
    for (;;) {
      const t = this.peek();
      const isIn = t.kind === 'ident' && t.text === 'in' && ops.includes('in');
      if (!(t.kind === 'op' && ops.includes(t.text)) && !isIn) return left;
      this.next();
      const right = sub();
      left = { kind: 'binary', op: t.text as CelBinaryOp, left, right };
    }
  }
  private or(): CelExpr {
    return this.binaryLevel(['||'], () => this.and());
  }
  private and(): CelExpr {
    return this.binaryLevel(['&&'], () => this.relation());
  }
  private relation(): CelExpr {
    return this.binaryLevel(['==', '!=', '<', '<=', '>', '>=', 'in'], () => this.addition());
  }
  private addition(): CelExpr {
    return this.binaryLevel(['+', '-'], () => this.multiplication());
  }
  private multiplication(): CelExpr {
    return this.binaryLevel(['*', '/', '%'], () => this.unary());
  }
  private unary(): CelExpr {
    if (this.isOp('!') || this.isOp('-')) {
      const op = this.next().text as '!' | '-';
      const operand = this.unary();
      if (op === '-' && operand.kind === 'literal' && typeof operand.value === 'bigint') {
        return { kind: 'literal', value: -operand.value };
      }
      if (op === '-' && operand.kind === 'literal' && typeof operand.value === 'number') {
        return { kind: 'literal', value: -operand.value };
      }
      return { kind: 'unary', op, operand };
    }
    return this.member();
  }
  private args(close: string): CelExpr[] {
    const args: CelExpr[] = [];
    if (this.isOp(close)) {
      this.next();
      return args;
    }
    for (;;) {
      args.push(this.expr());
      if (this.isOp(',')) {
        this.next();
        if (this.isOp(close)) {
          this.next();
          return args;
        }
        continue;
      }
      this.expect(close);
      return args;
    }
  }
  /** Consumes the `?` of an optional list element or map entry. */
  private optionalMarker(): boolean {
    if (!this.isOp('?')) return false;
    this.next();
    return true;
  }
  private member(): CelExpr {
    let e = this.primary();
    for (;;) {
      if (this.isOp('.') || this.isOp('.?')) {
        const optional = this.next().text === '.?';
        const id = this.next();
        if (id.kind !== 'ident') throw new CelSyntaxError('expected a field name after "."', id.pos);
        if (this.isOp('(') && !optional) {
          this.next();
          e = { kind: 'call', fn: id.text, target: e, args: this.args(')') };
        } else {
          e = { kind: 'select', operand: e, field: id.text, ...(optional ? { optional } : {}) };
        }
      } else if (this.isOp('[')) {
        this.next();
        let optional = false;
        if (this.isOp('?')) {
          this.next();
          optional = true;
        }
        const index = this.expr();
        this.expect(']');
        e = { kind: 'index', operand: e, index, ...(optional ? { optional } : {}) };
      } else {
        return e;
      }
    }
  }
  private primary(): CelExpr {
    const t = this.next();
    switch (t.kind) {
      case 'num':
      case 'str':
      case 'bytes':
        return { kind: 'literal', value: t.value! };
      case 'ident': {
        if (t.text === 'true' || t.text === 'false') return { kind: 'literal', value: t.text === 'true' };
        if (t.text === 'null') return { kind: 'literal', value: null };
        if (CEL_RESERVED_WORDS.has(t.text)) throw new CelSyntaxError(`reserved word ${t.text}`, t.pos);
        if (this.isOp('(')) {
          this.next();
          return { kind: 'call', fn: t.text, args: this.args(')') };
        }
        return { kind: 'ident', name: t.text };
      }
      case 'op':
        if (t.text === '(') {
          const e = this.expr();
          this.expect(')');
          return e;
        }
        if (t.text === '[') {
          const items: CelExpr[] = [];
          const optional: boolean[] = [];
          if (this.isOp(']')) {
            this.next();
            return { kind: 'list', items };
          }
          for (;;) {
            optional.push(this.optionalMarker());
            items.push(this.expr());
            if (this.isOp(',')) {
              this.next();
              if (this.isOp(']')) break;
              continue;
            }
            break;
          }
          this.expect(']');
          return { kind: 'list', items, ...(optional.includes(true) ? { optional } : {}) };
        }
        if (t.text === '{') {
          const entries: Array<[CelExpr, CelExpr]> = [];
          const optional: boolean[] = [];
          if (this.isOp('}')) {
            this.next();
            return { kind: 'map', entries };
          }
          for (;;) {
            optional.push(this.optionalMarker());
            const k = this.expr();
            this.expect(':');
            entries.push([k, this.expr()]);
            if (this.isOp(',')) {
              this.next();
              if (this.isOp('}')) break;
              continue;
            }
            break;
          }
          this.expect('}');
          return { kind: 'map', entries, ...(optional.includes(true) ? { optional } : {}) };
        }
        if (t.text === '.') {
          const id = this.next();
          if (id.kind !== 'ident')
            throw new CelSyntaxError('expected an identifier after a leading "."', id.pos);
          return { kind: 'ident', name: id.text };
        }
        throw new CelSyntaxError(`unexpected ${JSON.stringify(t.text)}`, t.pos);
      default:
        throw new CelSyntaxError('unexpected end of expression', t.pos);
    }
  }
}

/**
 * Parses a CEL expression (the full CEL grammar: literals, operators, ternary, member access,
 * indexing, calls, receiver calls, list and map literals, macros as calls).
 *
 * @throws {@link CelSyntaxError} with the column of the problem.
 */
export function parseCel(source: string): CelExpr {
  return new Parser(tokenize(source)).parseAll();
}
