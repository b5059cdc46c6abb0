// cel-go's comprehension macros (`all`, `exists`, `exists_one`, `map`, `filter`, `transformList`,
// `transformMap`, `transformMapEntry`) expanded into the comprehensions its parser makes of them,
// for the cost estimator in coster.ts.
import type { CelExpr } from '@kubeloom/codegen-runtime';
import { BOOL, type CelType, DYN } from './cel-type.ts';

/** A call node of the CEL AST. */
export type Call = Extract<CelExpr, { kind: 'call' }>;

/** A comprehension as cel-go's macros expand to (not written by users, so not in `CelExpr`). */
export interface Comprehension {
  readonly kind: 'comprehension';
  readonly range: CelExpr;
  readonly iterVar: string;
  readonly iterVar2?: string | undefined;
  readonly accuInit: CelExpr;
  readonly cond: CelExpr;
  readonly step: CelExpr;
  readonly result: CelExpr;
  /** The comprehension's static result type. */
  readonly type: (range: CelType, step: CelType) => CelType;
}

/** A node the estimator walks: the AST's, or a comprehension a macro expands to. */
export type Node = CelExpr | Comprehension;

/** The accumulator variable of an expanded comprehension. */
export const ACCU = '@result';
const ident = (name: string): CelExpr => ({ kind: 'ident', name });
const lit = (value: boolean | bigint): CelExpr => ({ kind: 'literal', value });
const call = (fn: string, ...args: CelExpr[]): CelExpr => ({ kind: 'call', fn, args });
const accuAdd = (item: CelExpr): CelExpr => ({
  kind: 'binary',
  op: '+',
  left: ident(ACCU),
  right: { kind: 'list', items: [item] },
});
const ternary = (cond: CelExpr, then: CelExpr, els: CelExpr): CelExpr => ({
  kind: 'ternary',
  cond,
  then,
  else: els,
});
const guard = (filter: CelExpr | undefined, step: CelExpr): CelExpr =>
  filter ? ternary(filter, step, ident(ACCU)) : step;

function binary(op: '&&' | '||' | '+' | '==', left: CelExpr, right: CelExpr): CelExpr {
  return { kind: 'binary', op, left, right };
}

/** cel-go's comprehension macros (one- and two-variable) as the comprehensions they expand to. */
export function expandMacro(e: Call): Node | undefined {
  const t = e.target;
  if (!t) return undefined;
  const a = e.args;
  const name = (x: CelExpr | undefined) => (x?.kind === 'ident' ? x.name : undefined);
  const v1 = name(a[0]);
  if (!v1) return undefined;
  const twoVar = a.length === 3 && ['all', 'exists', 'existsOne', 'exists_one'].includes(e.fn);
  const v2 = twoVar || e.fn.startsWith('transform') ? name(a[1]) : undefined;
  const body = a.slice(v2 ? 2 : 1);
  type Parts = Pick<Comprehension, 'accuInit' | 'cond' | 'step' | 'result' | 'type'>;
  const comp = (parts: Parts): Comprehension => ({
    kind: 'comprehension',
    range: t,
    iterVar: v1,
    iterVar2: v2,
    ...parts,
  });
  const bool = () => BOOL;
  const emptyList: CelExpr = { kind: 'list', items: [] };
  const last = body[body.length - 1]!;
  const filter = body.length === 2 ? body[0] : undefined;
  switch (e.fn) {
    case 'all':
      if (body.length !== 1) return undefined;
      return comp({
        accuInit: lit(true),
        cond: call('@not_strictly_false', ident(ACCU)),
        step: binary('&&', ident(ACCU), last),
        result: ident(ACCU),
        type: bool,
      });
    case 'exists':
      if (body.length !== 1) return undefined;
      return comp({
        accuInit: lit(false),
        cond: call('@not_strictly_false', { kind: 'unary', op: '!', operand: ident(ACCU) }),
        step: binary('||', ident(ACCU), last),
        result: ident(ACCU),
        type: bool,
      });
    case 'exists_one':
    case 'existsOne':
      if (body.length !== 1) return undefined;
      return comp({
        accuInit: lit(0n),
        cond: lit(true),
        step: ternary(last, binary('+', ident(ACCU), lit(1n)), ident(ACCU)),
        result: binary('==', ident(ACCU), lit(1n)),
        type: bool,
      });
    case 'map':
    case 'transformList':
      if (body.length !== 1 && body.length !== 2) return undefined;
      return comp({
        accuInit: emptyList,
        cond: lit(true),
        step: guard(filter, accuAdd(last)),
        result: ident(ACCU),
        type: (_range, step) => step,
      });
    case 'filter':
      if (body.length !== 1 || v2) return undefined;
      return comp({
        accuInit: emptyList,
        cond: lit(true),
        step: guard(last, accuAdd(ident(v1))),
        result: ident(ACCU),
        type: (range) => range,
      });
    case 'transformMap':
    case 'transformMapEntry': {
      if (body.length !== 1 && body.length !== 2) return undefined;
      const insert =
        e.fn === 'transformMap'
          ? call('cel.@mapInsert', ident(ACCU), ident(v1), last)
          : call('cel.@mapInsert', ident(ACCU), last);
      return comp({
        accuInit: { kind: 'map', entries: [] },
        cond: lit(true),
        step: guard(filter, insert),
        result: ident(ACCU),
        type: () => ({ k: 'map', key: DYN, value: DYN }),
      });
    }
  }
  return undefined;
}
