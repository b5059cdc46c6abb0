import type { CelExpr } from './ast.ts';
import { callFunction } from './functions.ts';
import { sortByKeys } from './lib-lists-ext.ts';
import { timeArithmetic } from './lib-time.ts';
import { CelOptional, OPTIONAL_NONE } from './optional.ts';
import {
  CelEvalError,
  CelType,
  CelUnsupportedError,
  type CelValue,
  celCompare,
  celEquals,
  isMap,
  isNum,
  TYPE_IDENTIFIERS,
  typeName,
} from './values.ts';

export { parseDuration } from './functions.ts';
export {
  CelDuration,
  CelEvalError,
  CelObject,
  CelTimestamp,
  CelType,
  CelUnsupportedError,
  type CelValue,
  celEquals,
  unorderedList,
} from './values.ts';

/** Variables visible to an expression (`self`, `oldSelf`, macro iteration variables). */
export type CelBindings = Readonly<Record<string, CelValue>>;

/** Receiver-style macros (the one-variable and two-variable comprehensions, and the optional ones). */
const MACROS = new Set([
  'all',
  'exists',
  'exists_one',
  'existsOne',
  'filter',
  'map',
  'transformList',
  'transformMap',
  'transformMapEntry',
  'optMap',
  'optFlatMap',
  'sortBy',
]);

/** Names of function namespaces: `sets.contains(…)` is a call of `sets.contains`, not a method of `sets`. */
const NAMESPACES = new Set(['sets', 'optional', 'strings', 'format', 'ip', 'lists', 'math']);

function arith(op: string, a: CelValue, b: CelValue): CelValue {
  const ints = typeof a === 'bigint' && typeof b === 'bigint';
  if (ints || (typeof a === 'number' && typeof b === 'number')) {
    // The same operators on two ints (bigint, integer division) or two doubles (number): typed as
    // numbers here, JavaScript applies the arithmetic of the operands' own type.
    const x = a as number;
    const y = b as number;
    switch (op) {
      case '+':
        return x + y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        if (ints && b === 0n) throw new CelEvalError('division by zero');
        return x / y;
      case '%':
        if (!ints) break;
        if (b === 0n) throw new CelEvalError('modulus by zero');
        return x % y;
    }
  }
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  const t = timeArithmetic(op, a, b);
  if (t !== undefined) return t;
  throw new CelEvalError(`no such overload: ${typeName(a)} ${op} ${typeName(b)}`);
}

function truthy(v: CelValue, what: string): boolean {
  if (typeof v !== 'boolean') throw new CelEvalError(`${what} must be a bool, got ${typeName(v)}`);
  return v;
}

function evalOptionalMacro(e: Extract<CelExpr, { kind: 'call' }>, vars: CelBindings): CelValue {
  const target = evaluate(e.target!, vars);
  const v = e.args[0];
  if (!(target instanceof CelOptional)) throw new CelEvalError(`no such overload: ${e.fn}`);
  if (v?.kind !== 'ident') throw new CelEvalError(`${e.fn}() needs a variable`);
  if (target.value === undefined) return OPTIONAL_NONE;
  const r = evaluate(e.args[1]!, { ...vars, [v.name]: target.value });
  if (e.fn === 'optMap') return new CelOptional(r);
  if (!(r instanceof CelOptional)) throw new CelEvalError('optFlatMap() must return an optional');
  return r;
}

function evalMacro(e: Extract<CelExpr, { kind: 'call' }>, vars: CelBindings): CelValue {
  if (e.fn === 'optMap' || e.fn === 'optFlatMap') return evalOptionalMacro(e, vars);
  const range = evaluate(e.target!, vars);
  if (e.fn === 'sortBy') {
    const v = e.args[0];
    if (v?.kind !== 'ident' || e.args.length !== 2)
      throw new CelEvalError('sortBy() needs a variable and a key');
    if (!Array.isArray(range)) throw new CelEvalError(`no such overload: sortBy over ${typeName(range)}`);
    let keys: CelValue[];
    try {
      keys = range.map((x) => evaluate(e.args[1]!, { ...vars, [v.name]: x }));
    } catch (error) {
      // cel-go 0.29 hands the key list's error to @sortByAssociatedKeys, which panics on it: the
      // apiserver reports the recovered panic.
      if (!(error instanceof CelEvalError)) throw error;
      throw new CelEvalError(
        'internal error: interface conversion: *types.Err is not traits.Lister: missing method Add',
      );
    }
    return sortByKeys(range, keys);
  }
  const twoVar =
    e.args.length === 3 && ['all', 'exists', 'existsOne', 'exists_one'].includes(e.fn)
      ? true
      : e.fn.startsWith('transform');
  const nVars = twoVar ? 2 : 1;
  const names = e.args.slice(0, nVars).map((a) => {
    if (a.kind !== 'ident') throw new CelEvalError(`${e.fn}() needs an iteration variable`);
    return a.name;
  });
  if (!Array.isArray(range) && !isMap(range)) throw new CelEvalError(`${e.fn}() over ${typeName(range)}`);
  // (first variable, second variable): for a list the item, or the index and the item; for a map the key, or the key and the value
  const entries: Array<[CelValue, CelValue]> = Array.isArray(range)
    ? range.map((x, i) => [twoVar ? BigInt(i) : x, x])
    : Object.entries(range).map(([k, x]) => [k, x]);
  const bind = ([k, x]: [CelValue, CelValue]): CelBindings =>
    twoVar ? { ...vars, [names[0]!]: k, [names[1]!]: x } : { ...vars, [names[0]!]: k };
  const rest = e.args.slice(nVars);
  const pred = (entry: [CelValue, CelValue], what: string) => truthy(evaluate(rest[0]!, bind(entry)), what);
  switch (e.fn) {
    case 'all':
    case 'exists': {
      let err: unknown;
      for (const entry of entries) {
        try {
          const r = pred(entry, `${e.fn}() predicate`);
          if (e.fn === 'all' && !r) return false;
          if (e.fn === 'exists' && r) return true;
        } catch (error) {
          if (error instanceof CelUnsupportedError) throw error;
          err ??= error;
        }
      }
      if (err) throw err;
      return e.fn === 'all';
    }
    case 'existsOne':
    case 'exists_one': {
      let n = 0;
      for (const entry of entries) if (pred(entry, `${e.fn}() predicate`)) n++;
      return n === 1;
    }
    case 'filter':
      return entries.filter((entry) => pred(entry, 'filter() predicate')).map(([k]) => k);
    case 'map':
    case 'transformList': {
      const kept = rest.length === 2 ? entries.filter((entry) => pred(entry, `${e.fn}() filter`)) : entries;
      return kept.map((entry) => evaluate(rest[rest.length - 1]!, bind(entry)));
    }
    case 'transformMap':
    case 'transformMapEntry': {
      const kept = rest.length === 2 ? entries.filter((entry) => pred(entry, `${e.fn}() filter`)) : entries;
      const out: { [key: string]: CelValue } = {};
      for (const entry of kept) {
        const r = evaluate(rest[rest.length - 1]!, bind(entry));
        if (e.fn === 'transformMap') {
          out[String(entry[0])] = r;
          continue;
        }
        if (!isMap(r)) throw new CelEvalError('transformMapEntry() must return a map');
        for (const [k, x] of Object.entries(r)) {
          if (Object.hasOwn(out, k)) throw new CelEvalError(`insert failed: key ${k} already exists`);
          out[k] = x;
        }
      }
      return out;
    }
  }
  throw new CelUnsupportedError(`macro ${e.fn}`);
}

/** Applies `f` to the value of an optional (or to a plain value), keeping `optional.none()` as it is. */
function optionally(operand: CelValue, f: (v: CelValue) => CelOptional): CelOptional {
  if (operand instanceof CelOptional) return operand.value === undefined ? operand : f(operand.value);
  return f(operand);
}

function select(operand: CelValue, field: string): CelValue {
  if (!isMap(operand)) throw new CelEvalError(`cannot select field ${field} from ${typeName(operand)}`);
  if (!Object.hasOwn(operand, field)) throw new CelEvalError(`no such key: ${field}`);
  return operand[field]!;
}

/** The protobuf well-known types a rule can name as type values (`type(x) == google.protobuf.Timestamp`). */
const PROTOBUF_TYPES = new Set(['google.protobuf.Timestamp', 'google.protobuf.Duration']);

/** `google.protobuf.Timestamp` and `.Duration` as type values, when `google` is not a variable. */
function protobufType(e: Extract<CelExpr, { kind: 'select' }>, vars: CelBindings): CelType | undefined {
  if (e.optional || Object.hasOwn(vars, 'google')) return undefined;
  const parts: string[] = [e.field];
  let x: CelExpr = e.operand;
  while (x.kind === 'select' && !x.optional) {
    parts.unshift(x.field);
    x = x.operand;
  }
  if (x.kind !== 'ident') return undefined;
  const name = [x.name, ...parts].join('.');
  return PROTOBUF_TYPES.has(name) ? new CelType(name) : undefined;
}

/**
 * Evaluates a parsed CEL expression.
 *
 * @throws {@link CelEvalError} for a runtime error (the apiserver rejects the object too), or
 *   {@link CelUnsupportedError} for something this evaluator does not implement.
 */
export function evaluate(e: CelExpr, vars: CelBindings): CelValue {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'ident':
      if (!Object.hasOwn(vars, e.name)) {
        if (TYPE_IDENTIFIERS.has(e.name)) return new CelType(e.name);
        throw new CelUnsupportedError(`unknown identifier ${e.name}`);
      }
      return vars[e.name]!;
    case 'select': {
      const typeValue = protobufType(e, vars);
      if (typeValue) return typeValue;
      const operand = evaluate(e.operand, vars);
      if (e.optional || operand instanceof CelOptional) {
        return optionally(operand, (v) =>
          isMap(v) && Object.hasOwn(v, e.field) ? new CelOptional(v[e.field]!) : OPTIONAL_NONE,
        );
      }
      return select(operand, e.field);
    }
    case 'index': {
      const operand = evaluate(e.operand, vars);
      const index = evaluate(e.index, vars);
      if (e.optional || operand instanceof CelOptional) {
        return optionally(operand, (v) => {
          if (Array.isArray(v)) {
            const i = isNum(index) ? Number(index) : -1;
            return Number.isInteger(i) && i >= 0 && i < v.length ? new CelOptional(v[i]!) : OPTIONAL_NONE;
          }
          if (isMap(v)) {
            return typeof index === 'string' && Object.hasOwn(v, index)
              ? new CelOptional(v[index]!)
              : OPTIONAL_NONE;
          }
          throw new CelEvalError(`cannot index ${typeName(v)}`);
        });
      }
      if (Array.isArray(operand)) {
        if (!isNum(index)) throw new CelEvalError('list index must be an int');
        const i = Number(index);
        if (!Number.isInteger(i) || i < 0 || i >= operand.length)
          throw new CelEvalError(`index ${i} out of range`);
        return operand[i]!;
      }
      if (isMap(operand)) {
        if (typeof index !== 'string') throw new CelUnsupportedError('non-string map keys');
        if (!Object.hasOwn(operand, index)) throw new CelEvalError(`no such key: ${index}`);
        return operand[index]!;
      }
      throw new CelEvalError(`cannot index ${typeName(operand)}`);
    }
    case 'list': {
      const out: CelValue[] = [];
      e.items.forEach((x, i) => {
        const v = evaluate(x, vars);
        if (!e.optional?.[i]) out.push(v);
        else if (!(v instanceof CelOptional))
          throw new CelEvalError('optional list element must be an optional');
        else if (v.value !== undefined) out.push(v.value);
      });
      return out;
    }
    case 'map': {
      const out: { [key: string]: CelValue } = {};
      e.entries.forEach(([k, x], i) => {
        const key = evaluate(k, vars);
        if (typeof key !== 'string') throw new CelUnsupportedError('map literals with non-string keys');
        const v = evaluate(x, vars);
        if (!e.optional?.[i]) out[key] = v;
        else if (!(v instanceof CelOptional))
          throw new CelEvalError('optional map entry must be an optional');
        else if (v.value !== undefined) out[key] = v.value;
      });
      return out;
    }
    case 'unary': {
      const v = evaluate(e.operand, vars);
      if (e.op === '!') return !truthy(v, 'operand of !');
      if (typeof v === 'bigint') return -v;
      if (typeof v === 'number') return -v;
      throw new CelEvalError(`no such overload: -${typeName(v)}`);
    }
    case 'ternary':
      return truthy(evaluate(e.cond, vars), 'ternary condition')
        ? evaluate(e.then, vars)
        : evaluate(e.else, vars);
    case 'binary': {
      if (e.op === '&&' || e.op === '||') {
        // CEL's commutative logic: an error on one side is absorbed when the other decides.
        let left: boolean | undefined;
        let leftErr: unknown;
        try {
          left = truthy(evaluate(e.left, vars), `operand of ${e.op}`);
        } catch (err) {
          if (err instanceof CelUnsupportedError) throw err;
          leftErr = err;
        }
        if (left === (e.op === '||')) return left;
        let right: boolean;
        try {
          right = truthy(evaluate(e.right, vars), `operand of ${e.op}`);
        } catch (err) {
          // both sides failed: cel-go reports the left one's error
          if (leftErr && !(err instanceof CelUnsupportedError)) throw leftErr;
          throw err;
        }
        if (right === (e.op === '||')) return right;
        if (leftErr) throw leftErr;
        return right;
      }
      const a = evaluate(e.left, vars);
      const b = evaluate(e.right, vars);
      switch (e.op) {
        case '==':
          return celEquals(a, b);
        case '!=':
          return !celEquals(a, b);
        case '<':
          return celCompare(a, b, e.op) < 0;
        case '<=':
          return celCompare(a, b, e.op) <= 0;
        case '>':
          return celCompare(a, b, e.op) > 0;
        case '>=':
          return celCompare(a, b, e.op) >= 0;
        case 'in':
          if (Array.isArray(b)) return b.some((x) => celEquals(x, a));
          if (isMap(b)) return typeof a === 'string' && Object.hasOwn(b, a);
          throw new CelEvalError(`no such overload: ${typeName(a)} in ${typeName(b)}`);
        default:
          return arith(e.op, a, b);
      }
    }
    case 'call': {
      if (e.fn === 'has' && !e.target) {
        const arg = e.args[0];
        if (e.args.length !== 1 || !arg || arg.kind !== 'select')
          throw new CelEvalError('has() needs a field selection');
        const operand = evaluate(arg.operand, vars);
        if (!isMap(operand)) throw new CelEvalError(`has() on ${typeName(operand)}`);
        return Object.hasOwn(operand, arg.field);
      }
      if (e.target && MACROS.has(e.fn)) return evalMacro(e, vars);
      const args = e.args.map((a) => evaluate(a, vars));
      const t = e.target;
      if (t?.kind === 'ident' && NAMESPACES.has(t.name) && !Object.hasOwn(vars, t.name)) {
        return callFunction(`${t.name}.${e.fn}`, undefined, args);
      }
      return callFunction(e.fn, t ? evaluate(t, vars) : undefined, args);
    }
  }
}
