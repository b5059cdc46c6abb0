// The standard CEL functions, the strings extension, and the dispatch to the Kubernetes libraries.
import { goFormatG, QUOTE_ESCAPES } from './go-format.ts';
import { formatFunction } from './lib-format.ts';
import { celRegex, listFunction } from './lib-lists.ts';
import { listExtFunction } from './lib-lists-ext.ts';
import { netFunction } from './lib-net.ts';
import { quantityFunction } from './lib-quantity.ts';
import { semverFunction } from './lib-semver.ts';
import { stringFormatFunction } from './lib-string-format.ts';
import { formatDuration, formatTimestamp, parseTimestamp, timeFunction } from './lib-time.ts';
import { urlFunction } from './lib-url.ts';
import { CelOptional, isZeroValue, OPTIONAL_NONE, optionalMethod } from './optional.ts';
import {
  bytesToString,
  CelDuration,
  CelEvalError,
  CelTimestamp,
  CelType,
  CelUnsupportedError,
  type CelValue,
  int,
  isMap,
  isNum,
  str,
  typeName,
} from './values.ts';

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

/** The standard CEL functions and the strings extension; undefined when `fn` with these arguments is not one of them. */
function standardFunction(fn: string, target: CelValue | undefined, args: CelValue[]): CelValue | undefined {
  const hasTarget = target !== undefined;
  const t = target as CelValue;
  switch (fn) {
    case 'size': {
      const v = hasTarget ? t : args[0]!;
      if (typeof v === 'string') return BigInt([...v].length);
      if (v instanceof Uint8Array) return BigInt(v.length);
      if (Array.isArray(v)) return BigInt(v.length);
      if (isMap(v)) return BigInt(Object.keys(v).length);
      return undefined;
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
      return celRegex(re).test(s);
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
      if (typeof t !== 'string') return undefined;
      const cps = [...t];
      const sub = [...str(args[0]!, fn)];
      const offset =
        args[1] !== undefined ? int(args[1], fn) : fn === 'indexOf' ? 0 : cps.length - sub.length;
      if (offset < 0 || offset > cps.length) throw new CelEvalError(`index out of range: ${offset}`);
      const at = (i: number) => sub.every((c, j) => cps[i + j] === c);
      if (fn === 'indexOf') {
        for (let i = offset; i + sub.length <= cps.length; i++) if (at(i)) return BigInt(i);
      } else {
        for (let i = Math.min(offset, cps.length - sub.length); i >= 0; i--) if (at(i)) return BigInt(i);
      }
      return -1n;
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
      if (v instanceof CelTimestamp) return floorDiv(v.nanos, 1_000_000_000n);
      if (v instanceof CelDuration) return v.nanos;
      throw new CelEvalError(`int() of ${typeName(v)}`);
    }
    case 'uint': {
      const v = standardFunction('int', undefined, args) as bigint;
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
      if (typeof v === 'number') return goFormatG(v);
      if (v instanceof Uint8Array) return bytesToString(v);
      if (v instanceof CelTimestamp) return formatTimestamp(v);
      if (v instanceof CelDuration) return formatDuration(v);
      return undefined;
    }
    case 'bool': {
      const v = args[0]!;
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      throw new CelEvalError(`bool() of ${typeName(v)}`);
    }
    case 'dyn':
      return args[0]!;
    case 'type':
      return hasTarget || args.length !== 1 ? undefined : new CelType(typeName(args[0]!));
    case 'duration': {
      const v = args[0]!;
      if (v instanceof CelDuration) return v;
      return parseDuration(str(v, fn));
    }
    case 'timestamp': {
      const v = args[0]!;
      if (v instanceof CelTimestamp) return v;
      if (typeof v === 'bigint') {
        if (v < -62135596800n || v > 253402300799n) throw new CelEvalError('timestamp overflow');
        return new CelTimestamp(v * 1_000_000_000n);
      }
      try {
        return parseTimestamp(str(v, fn));
      } catch (e) {
        if (e instanceof CelEvalError && e.message !== 'timestamp overflow')
          throw new CelEvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'");
        throw e;
      }
    }
    case 'strings.quote':
      return quote(str(args[0], fn));
    default:
      return undefined;
  }
}

/** cel-go's `strings.quote`: a double-quoted string with escapes. */
function quote(s: string): string {
  return `"${[...s].map((c) => QUOTE_ESCAPES[c] ?? c).join('')}"`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

const LIBRARIES = [
  timeFunction,
  stringFormatFunction,
  listExtFunction,
  listFunction,
  urlFunction,
  netFunction,
  quantityFunction,
  semverFunction,
  formatFunction,
];

/**
 * Calls a function (a receiver call when `target` is given; a namespaced one such as
 * `sets.contains` by its full name) of standard CEL or of a library kube-apiserver offers to CRD
 * validation rules.
 *
 * @throws {@link CelEvalError} as the apiserver would, or {@link CelUnsupportedError} for a
 *   function this evaluator does not implement.
 */
export function callFunction(fn: string, target: CelValue | undefined, args: CelValue[]): CelValue {
  const v = standardFunction(fn, target, args) ?? optionalFunction(fn, target, args);
  if (v !== undefined) return v;
  for (const lib of LIBRARIES) {
    const r = lib(fn, target, args);
    if (r !== undefined) return r;
  }
  throw new CelUnsupportedError(`function ${fn}() is not implemented by the client-side CEL evaluator`);
}

function optionalFunction(fn: string, target: CelValue | undefined, args: CelValue[]): CelValue | undefined {
  if (target instanceof CelOptional) return optionalMethod(target, fn, args);
  if (target !== undefined) return undefined;
  switch (fn) {
    case 'optional.of':
      return new CelOptional(args[0]!);
    case 'optional.none':
      return OPTIONAL_NONE;
    case 'optional.ofNonZeroValue':
      return isZeroValue(args[0]!) ? OPTIONAL_NONE : new CelOptional(args[0]!);
    case 'optional.unwrap': {
      const list = args[0];
      if (!Array.isArray(list)) return undefined;
      return list.flatMap((x) => (x instanceof CelOptional && x.value !== undefined ? [x.value] : []));
    }
    default:
      return undefined;
  }
}
