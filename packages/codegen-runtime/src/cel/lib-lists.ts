// The Kubernetes CEL lists and regex libraries and cel-go's sets extension.
import { compileRe2, Re2SyntaxError } from './re2.ts';
import {
  CelDuration,
  CelEvalError,
  type CelValue,
  celCompare,
  celEquals,
  isNum,
  noOverload,
  str,
} from './values.ts';

function list(v: CelValue | undefined, fn: string): CelValue[] {
  if (!Array.isArray(v)) throw noOverload(fn, v);
  return v;
}

function sum(items: readonly CelValue[]): CelValue {
  if (items.length === 0) return 0n;
  let acc = items[0]!;
  for (const x of items.slice(1)) {
    if (typeof acc === 'bigint' && typeof x === 'bigint') acc += x;
    else if (typeof acc === 'number' && typeof x === 'number') acc += x;
    else if (acc instanceof CelDuration && x instanceof CelDuration)
      acc = new CelDuration(acc.nanos + x.nanos);
    else throw noOverload('sum', acc, x);
  }
  if (!isNum(acc) && !(acc instanceof CelDuration)) throw noOverload('sum', acc);
  return acc;
}

function extreme(items: readonly CelValue[], fn: 'min' | 'max'): CelValue {
  if (items.length === 0) throw new CelEvalError(`${fn} called on empty list`);
  let best: CelValue = items[0]!;
  for (const x of items.slice(1)) {
    const c = celCompare(x, best, fn);
    if (fn === 'min' ? c < 0 : c > 0) best = x;
  }
  return best;
}

/** CEL `matches`/`find` patterns compile with RE2; a bad pattern is an evaluation error with Go's message. */
export function celRegex(pattern: string) {
  try {
    return compileRe2(pattern);
  } catch (e) {
    if (e instanceof Re2SyntaxError) throw new CelEvalError(e.message);
    throw e;
  }
}

/** The lists, regex and sets libraries; undefined when `fn` with these arguments is not one of them. */
export function listFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target === undefined) {
    if (!fn.startsWith('sets.')) return undefined;
    const a = list(args[0], fn);
    const b = list(args[1], fn);
    switch (fn) {
      case 'sets.contains':
        return b.every((y) => a.some((x) => celEquals(x, y)));
      case 'sets.equivalent':
        return (
          b.every((y) => a.some((x) => celEquals(x, y))) && a.every((x) => b.some((y) => celEquals(x, y)))
        );
      case 'sets.intersects':
        return a.some((x) => b.some((y) => celEquals(x, y)));
      default:
        return undefined;
    }
  }
  if (typeof target === 'string') {
    if (fn === 'find' || fn === 'findAll') {
      const re = celRegex(str(args[0], fn));
      if (fn === 'find') return re.findAll(target, 1)[0] ?? '';
      const limit = args[1] === undefined ? -1 : Number(args[1] as bigint);
      return limit === 0 ? [] : re.findAll(target, limit);
    }
    return undefined;
  }
  if (!Array.isArray(target)) return undefined;
  switch (fn) {
    case 'isSorted':
      for (let i = 1; i < target.length; i++)
        if (celCompare(target[i - 1]!, target[i]!, fn) > 0) return false;
      return true;
    case 'sum':
      return sum(target);
    case 'min':
    case 'max':
      return extreme(target, fn);
    case 'indexOf': {
      const i = target.findIndex((x) => celEquals(x, args[0]!));
      return BigInt(i);
    }
    case 'lastIndexOf': {
      const i = target.findLastIndex((x) => celEquals(x, args[0]!));
      return BigInt(i);
    }
    default:
      return undefined;
  }
}
