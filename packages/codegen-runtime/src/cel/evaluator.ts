import { isIP as netIsIP } from 'node:net';
import type { CelExpr } from './ast.ts';
import { compileRe2, type Re2, Re2SyntaxError } from './re2.ts';

/** A CEL duration (nanoseconds). */
export class CelDuration {
  /** Nanoseconds. */
  readonly nanos: bigint;
  /** Creates a duration. */
  constructor(nanos: bigint) {
    this.nanos = nanos;
  }
}

/** A CEL timestamp (nanoseconds since the Unix epoch). */
export class CelTimestamp {
  /** Nanoseconds since the epoch. */
  readonly nanos: bigint;
  /** Creates a timestamp. */
  constructor(nanos: bigint) {
    this.nanos = nanos;
  }
}

/**
 * A CEL value: `null`, boolean, int/uint (bigint), double (number), string, bytes, list (array),
 * map (plain object with string keys), duration or timestamp.
 */
export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | CelValue[]
  | { [key: string]: CelValue }
  | CelDuration
  | CelTimestamp;

/** A runtime error of a CEL expression: the rule counts as failed, as on the apiserver. */
export class CelEvalError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'CelEvalError';
  }
}

/**
 * The expression uses something this evaluator does not implement (e.g. the Kubernetes
 * `quantity`, `url` or `cidr` libraries): the validator reports the rule as not evaluated
 * client-side instead of guessing.
 */
export class CelUnsupportedError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'CelUnsupportedError';
  }
}

/** Variables visible to an expression (`self`, `oldSelf`, macro iteration variables). */
export type CelBindings = Readonly<Record<string, CelValue>>;

const MACROS = new Set(['all', 'exists', 'exists_one', 'filter', 'map']);

function typeName(v: CelValue): string {
  if (v === null) return 'null_type';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelDuration) return 'google.protobuf.Duration';
  if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
  return 'map';
}

function isMap(v: CelValue): v is { [key: string]: CelValue } {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof CelDuration) &&
    !(v instanceof CelTimestamp)
  );
}

function isNum(v: CelValue): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

function compareNum(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const UNORDERED = new WeakSet<object>();

/**
 * Marks a list as unordered (a Kubernetes `x-kubernetes-list-type` `set` or `map`): CEL equality
 * with it ignores the order of the items. Returns the list.
 */
export function unorderedList(items: CelValue[]): CelValue[] {
  UNORDERED.add(items);
  return items;
}

function sameItems(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  const left = [...b];
  for (const x of a) {
    const i = left.findIndex((y) => celEquals(x, y));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

/** CEL equality (heterogeneous numeric equality, deep lists and maps; set and map lists unordered). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (isNum(a) && isNum(b)) return compareNum(a, b) === 0;
  if (a === null || b === null) return a === b;
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object') return a === b;
  if (a instanceof CelDuration || a instanceof CelTimestamp) {
    return b instanceof a.constructor && (b as CelDuration).nanos === a.nanos;
  }
  if (a instanceof Uint8Array)
    return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (UNORDERED.has(a) || UNORDERED.has(b)) return sameItems(a, b);
    return a.every((x, i) => celEquals(x, b[i]!));
  }
  if (!isMap(b) || !isMap(a)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && celEquals(a[k]!, b[k]!));
}

function compare(a: CelValue, b: CelValue, op: string): number {
  if (isNum(a) && isNum(b)) return compareNum(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (
    (a instanceof CelDuration && b instanceof CelDuration) ||
    (a instanceof CelTimestamp && b instanceof CelTimestamp)
  ) {
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  }
  throw new CelEvalError(`no such overload: ${typeName(a)} ${op} ${typeName(b)}`);
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses a Go/CEL duration string such as `1h30m`, `1.5s`, `-300ms`. */
export function parseDuration(s: string): CelDuration {
  const m = /^([+-])?((?:[0-9]*\.?[0-9]+(?:ns|us|µs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) throw new CelEvalError(`invalid duration ${JSON.stringify(s)}`);
  if (m[2] === '0') return new CelDuration(0n);
  let total = 0;
  let nanos = 0n;
  for (const part of m[2]!.matchAll(/([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/g)) {
    const unit = DURATION_UNITS[part[2]!]!;
    if (part[1]!.includes('.')) total += Number(part[1]) * Number(unit);
    else nanos += BigInt(part[1]!) * unit;
  }
  nanos += BigInt(Math.round(total));
  return new CelDuration(m[1] === '-' ? -nanos : nanos);
}

function str(v: CelValue, fn: string): string {
  if (typeof v !== 'string') throw new CelEvalError(`${fn} expects a string, got ${typeName(v)}`);
  return v;
}

function int(v: CelValue, fn: string): number {
  if (typeof v !== 'bigint') throw new CelEvalError(`${fn} expects an int, got ${typeName(v)}`);
  return Number(v);
}

function regex(pattern: string): Re2 {
  try {
    return compileRe2(pattern);
  } catch (e) {
    // As cel-go: a pattern RE2 rejects is an evaluation error with Go's message.
    if (e instanceof Re2SyntaxError) throw new CelEvalError(e.message);
    throw e;
  }
}

function isIPString(s: string): boolean {
  if (s.includes('%')) return false;
  const v = netIsIP(s);
  if (v === 4) return !/(^|\.)0[0-9]/.test(s);
  if (v === 6) return !/^::ffff:[0-9]+\./i.test(s);
  return false;
}

function callFunction(fn: string, target: CelValue | undefined, args: CelValue[]): CelValue {
  const hasTarget = target !== undefined;
  const t = target as CelValue;
  switch (fn) {
    case 'size': {
      const v = hasTarget ? t : args[0]!;
      if (typeof v === 'string') return BigInt([...v].length);
      if (v instanceof Uint8Array) return BigInt(v.length);
      if (Array.isArray(v)) return BigInt(v.length);
      if (isMap(v)) return BigInt(Object.keys(v).length);
      throw new CelEvalError(`size() of ${typeName(v)}`);
    }
    case 'contains':
      return str(t, fn).includes(str(args[0]!, fn));
    case 'startsWith':
      return str(t, fn).startsWith(str(args[0]!, fn));
    case 'endsWith':
      return str(t, fn).endsWith(str(args[0]!, fn));
    case 'matches': {
      const s = hasTarget ? str(t, fn) : str(args[0]!, fn);
      const re = hasTarget ? str(args[0]!, fn) : str(args[1]!, fn);
      return regex(re).test(s);
    }
    case 'lowerAscii':
      return str(t, fn).replace(/[A-Z]/g, (c) => c.toLowerCase());
    case 'upperAscii':
      return str(t, fn).replace(/[a-z]/g, (c) => c.toUpperCase());
    case 'trim':
      return str(t, fn).trim();
    case 'charAt': {
      const cps = [...str(t, fn)];
      const i = int(args[0]!, fn);
      if (i < 0 || i > cps.length) throw new CelEvalError('charAt index out of range');
      return cps[i] ?? '';
    }
    case 'indexOf':
    case 'lastIndexOf': {
      const cps = [...str(t, fn)];
      const sub = [...str(args[0]!, fn)].join('');
      const s = cps.join('');
      const idx =
        fn === 'indexOf' ? s.indexOf(sub, args[1] !== undefined ? int(args[1], fn) : 0) : s.lastIndexOf(sub);
      return BigInt(idx < 0 ? -1 : [...s.slice(0, idx)].length);
    }
    case 'substring': {
      const cps = [...str(t, fn)];
      const start = int(args[0]!, fn);
      const end = args[1] !== undefined ? int(args[1], fn) : cps.length;
      if (start < 0 || end > cps.length || start > end)
        throw new CelEvalError('substring index out of range');
      return cps.slice(start, end).join('');
    }
    case 'replace': {
      const s = str(t, fn);
      const from = str(args[0]!, fn);
      const to = str(args[1]!, fn);
      const n = args[2] !== undefined ? int(args[2], fn) : -1;
      if (n < 0) return s.split(from).join(to);
      let out = s;
      let pos = 0;
      for (let k = 0; k < n; k++) {
        const idx = out.indexOf(from, pos);
        if (idx < 0) break;
        out = out.slice(0, idx) + to + out.slice(idx + from.length);
        pos = idx + to.length;
      }
      return out;
    }
    case 'split': {
      const s = str(t, fn);
      const sep = str(args[0]!, fn);
      const n = args[1] !== undefined ? int(args[1], fn) : -1;
      if (n === 0) return [];
      const parts = s.split(sep);
      if (n > 0 && parts.length > n) return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
      return parts;
    }
    case 'join': {
      if (!Array.isArray(t)) throw new CelEvalError('join() needs a list');
      return t.map((x) => str(x, fn)).join(args[0] !== undefined ? str(args[0], fn) : '');
    }
    case 'int': {
      const v = args[0]!;
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw new CelEvalError('int() of a non-finite double');
        return BigInt(Math.trunc(v));
      }
      if (typeof v === 'string' && /^[+-]?[0-9]+$/.test(v)) return BigInt(v);
      if (v instanceof CelTimestamp) return v.nanos / 1_000_000_000n;
      throw new CelEvalError(`int() of ${typeName(v)}`);
    }
    case 'uint': {
      const v = callFunction('int', undefined, args) as bigint;
      if (v < 0n) throw new CelEvalError('uint() of a negative value');
      return v;
    }
    case 'double': {
      const v = args[0]!;
      if (isNum(v)) return Number(v);
      if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
      throw new CelEvalError(`double() of ${typeName(v)}`);
    }
    case 'string': {
      const v = args[0]!;
      if (typeof v === 'string') return v;
      if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
      if (typeof v === 'number') return String(v);
      if (v instanceof Uint8Array) return new TextDecoder().decode(v);
      throw new CelUnsupportedError(`string() of ${typeName(v)}`);
    }
    case 'bool': {
      const v = args[0]!;
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      throw new CelEvalError(`bool() of ${typeName(v)}`);
    }
    case 'dyn':
      return args[0]!;
    case 'duration': {
      const v = args[0]!;
      if (v instanceof CelDuration) return v;
      return parseDuration(str(v, fn));
    }
    case 'timestamp': {
      const v = args[0]!;
      if (v instanceof CelTimestamp) return v;
      const ms = Date.parse(str(v, fn));
      if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(v as string))
        throw new CelEvalError(`invalid timestamp ${JSON.stringify(v)}`);
      return new CelTimestamp(BigInt(ms) * 1_000_000n);
    }
    case 'isIP':
      return isIPString(str(args[0]!, fn));
    default:
      throw new CelUnsupportedError(`function ${fn}() is not implemented by the client-side CEL evaluator`);
  }
}

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
  if (a instanceof CelDuration && b instanceof CelDuration && (op === '+' || op === '-')) {
    return new CelDuration(op === '+' ? a.nanos + b.nanos : a.nanos - b.nanos);
  }
  throw new CelEvalError(`no such overload: ${typeName(a)} ${op} ${typeName(b)}`);
}

function truthy(v: CelValue, what: string): boolean {
  if (typeof v !== 'boolean') throw new CelEvalError(`${what} must be a bool, got ${typeName(v)}`);
  return v;
}

function evalMacro(e: Extract<CelExpr, { kind: 'call' }>, vars: CelBindings): CelValue {
  const range = evaluate(e.target!, vars);
  const v = e.args[0];
  if (v?.kind !== 'ident') throw new CelEvalError(`${e.fn}() needs an iteration variable`);
  const items: CelValue[] = Array.isArray(range) ? range : isMap(range) ? Object.keys(range) : [];
  if (!Array.isArray(range) && !isMap(range)) throw new CelEvalError(`${e.fn}() over ${typeName(range)}`);
  const bind = (x: CelValue): CelBindings => ({ ...vars, [v.name]: x });
  switch (e.fn) {
    case 'all':
    case 'exists': {
      let err: unknown;
      for (const x of items) {
        try {
          const r = truthy(evaluate(e.args[1]!, bind(x)), `${e.fn}() predicate`);
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
    case 'exists_one': {
      let n = 0;
      for (const x of items) if (truthy(evaluate(e.args[1]!, bind(x)), 'exists_one() predicate')) n++;
      return n === 1;
    }
    case 'filter':
      return items.filter((x) => truthy(evaluate(e.args[1]!, bind(x)), 'filter() predicate'));
    case 'map':
      if (e.args.length === 3) {
        return items
          .filter((x) => truthy(evaluate(e.args[1]!, bind(x)), 'map() filter'))
          .map((x) => evaluate(e.args[2]!, bind(x)));
      }
      return items.map((x) => evaluate(e.args[1]!, bind(x)));
  }
  throw new CelUnsupportedError(`macro ${e.fn}`);
}

function select(operand: CelValue, field: string): CelValue {
  if (!isMap(operand)) throw new CelEvalError(`cannot select field ${field} from ${typeName(operand)}`);
  if (!Object.hasOwn(operand, field)) throw new CelEvalError(`no such key: ${field}`);
  return operand[field]!;
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
      if (!Object.hasOwn(vars, e.name)) throw new CelUnsupportedError(`unknown identifier ${e.name}`);
      return vars[e.name]!;
    case 'select':
      if (e.optional) throw new CelUnsupportedError('optional field selection (?.)');
      return select(evaluate(e.operand, vars), e.field);
    case 'index': {
      if (e.optional) throw new CelUnsupportedError('optional indexing ([?])');
      const operand = evaluate(e.operand, vars);
      const index = evaluate(e.index, vars);
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
    case 'list':
      return e.items.map((x) => evaluate(x, vars));
    case 'map': {
      const out: { [key: string]: CelValue } = {};
      for (const [k, v] of e.entries) {
        const key = evaluate(k, vars);
        if (typeof key !== 'string') throw new CelUnsupportedError('map literals with non-string keys');
        out[key] = evaluate(v, vars);
      }
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
          return compare(a, b, e.op) < 0;
        case '<=':
          return compare(a, b, e.op) <= 0;
        case '>':
          return compare(a, b, e.op) > 0;
        case '>=':
          return compare(a, b, e.op) >= 0;
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
      const target = e.target ? evaluate(e.target, vars) : undefined;
      return callFunction(
        e.fn,
        target,
        e.args.map((a) => evaluate(a, vars)),
      );
    }
  }
}
