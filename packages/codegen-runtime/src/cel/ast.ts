/** A node of a parsed CEL expression. */
export type CelExpr =
  | { readonly kind: 'literal'; readonly value: CelLiteral }
  | { readonly kind: 'ident'; readonly name: string }
  | {
      readonly kind: 'select';
      readonly operand: CelExpr;
      readonly field: string;
      readonly optional?: boolean;
    }
  | {
      readonly kind: 'index';
      readonly operand: CelExpr;
      readonly index: CelExpr;
      readonly optional?: boolean;
    }
  | {
      readonly kind: 'call';
      readonly fn: string;
      readonly target?: CelExpr;
      readonly args: readonly CelExpr[];
    }
  | {
      readonly kind: 'list';
      readonly items: readonly CelExpr[];
      /** Which items are optional (`[?x]`: added only when the optional has a value). */
      readonly optional?: readonly boolean[];
    }
  | {
      readonly kind: 'map';
      readonly entries: ReadonlyArray<readonly [CelExpr, CelExpr]>;
      /** Which entries are optional (`{?k: v}`: added only when the optional has a value). */
      readonly optional?: readonly boolean[];
    }
  | { readonly kind: 'unary'; readonly op: '!' | '-'; readonly operand: CelExpr }
  | { readonly kind: 'binary'; readonly op: CelBinaryOp; readonly left: CelExpr; readonly right: CelExpr }
  | { readonly kind: 'ternary'; readonly cond: CelExpr; readonly then: CelExpr; readonly else: CelExpr };

/** A literal: `null`, a boolean, an int (bigint), a double (number), a string or bytes. */
export type CelLiteral = null | boolean | bigint | number | string | Uint8Array;

/** The binary operators of CEL. */
export type CelBinaryOp =
  | '||'
  | '&&'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'in'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%';

/** A CEL expression that does not parse; `offset` is the 0-based position in the source. */
export class CelSyntaxError extends Error {
  /** Where the problem is (0-based character offset). */
  readonly offset: number;
  /** Creates the error. */
  constructor(message: string, offset: number) {
    super(`${message} at column ${offset + 1}`);
    this.name = 'CelSyntaxError';
    this.offset = offset;
  }
}

/** The direct subexpressions of `e`, in source order (a call's target first, a map's keys before their values). */
export function celChildren(e: CelExpr): readonly CelExpr[] {
  switch (e.kind) {
    case 'literal':
    case 'ident':
      return [];
    case 'select':
    case 'unary':
      return [e.operand];
    case 'index':
      return [e.operand, e.index];
    case 'call':
      return e.target ? [e.target, ...e.args] : e.args;
    case 'list':
      return e.items;
    case 'map':
      return e.entries.flat();
    case 'binary':
      return [e.left, e.right];
    case 'ternary':
      return [e.cond, e.then, e.else];
  }
}
