// The cost of named function calls, in the order cel-go consults its estimators for a Kubernetes
// environment: the extension libraries' overload estimators (cel-go `ext` lists v3 and sets),
// then Kubernetes' library estimator (k8s.io/apiserver/pkg/cel/library/cost.go, keyed by function
// name), then the checker's own cases (`checker/cost.go`). Undefined means the default: 1 plus
// the arguments.
import type { CelExpr } from '@kubeloom/codegen-runtime';
import {
  BOOL,
  type CelType,
  DYN,
  elemOf,
  INT,
  isStringLike,
  listOf,
  optionalOf,
  STRING,
} from './cel-type.ts';
import { add, COST, fixed, MAX, multiply, type Range, scale, UNKNOWN } from './estimate.ts';

/** What an estimator knows of an argument or target (cel-go's `AstNode`). */
export interface CostNode {
  /** The expression (undefined for a synthetic list-items node). */
  readonly expr: CelExpr | undefined;
  /** The schema path (`self`, field names, `@items`, `@keys`, `@values`), when the node has one. */
  readonly path: readonly string[] | undefined;
  /** The static type. */
  readonly type: CelType;
  /** The computed size, when known. */
  readonly size: Range | undefined;
}

/** The cost of a call without its arguments, and the size of its result when known. */
export interface CallEstimate {
  /** The call's own cost. */
  readonly cost: Range;
  /** The result's size. */
  readonly resultSize?: Range | undefined;
}

/** Looks a schema path's size up (the apiserver's size estimator). */
type PathSizer = (path: readonly string[] | undefined) => Range | undefined;

/** A call to estimate: the function (namespaced ones as `sets.contains`), its target and arguments. */
export interface LibraryCall {
  /** The function name. */
  readonly fn: string;
  /** The receiver of a member call. */
  readonly target: CostNode | undefined;
  /** The arguments. */
  readonly args: readonly CostNode[];
  /** The schema size estimator. */
  readonly sizer: PathSizer;
}

const ONE = fixed(1);
const ST = COST.stringTraversal;

function size(n: CostNode | undefined, sizer: PathSizer): Range {
  return n?.size ?? sizer(n?.path) ?? UNKNOWN;
}

function literalUint(n: CostNode | undefined, fallback: number): number {
  const e = n?.expr;
  return e?.kind === 'literal' && typeof e.value === 'bigint' ? Number(e.value) : fallback;
}

/** An element of a list (cel-go's `itemsNode`: the list's path plus `@items`, no computed size). */
function listElement(list: CostNode): CostNode | undefined {
  const t = list.type;
  const elem = t.k === 'list' ? t.elem : t.k === 'map' ? t.key : undefined;
  if (!elem) return undefined;
  return {
    expr: undefined,
    path: list.path?.length ? [...list.path, '@items'] : undefined,
    type: elem,
    size: undefined,
  };
}

function allocatingList(factor: number, listSize: Range): CallEstimate {
  return { cost: add(add(scale(listSize, factor), ONE), fixed(COST.listCreate)), resultSize: listSize };
}

/** cel-go's `ext` overload estimators (lists v3, sets). */
function extEstimate({ fn, target, args, sizer }: LibraryCall) {
  const isList = target?.type.k === 'list';
  switch (fn) {
    case 'slice':
      if (isList && args.length === 2) {
        const sz = size(target, sizer);
        return allocatingList(1, fixed(Math.max(0, literalUint(args[1], sz.max) - literalUint(args[0], 0))));
      }
      return undefined;
    case 'lists.range':
      return !target && args.length === 1 ? allocatingList(1, fixed(literalUint(args[0], MAX))) : undefined;
    case 'reverse':
      return isList && args.length === 0 ? allocatingList(1, size(target, sizer)) : undefined;
    case 'flatten':
      return isList && args.length <= 1
        ? allocatingList(args.length === 1 ? literalUint(args[0], MAX) : 1, size(target, sizer))
        : undefined;
    case 'distinct': {
      if (!isList || args.length !== 0) return undefined;
      const sz = size(target, sizer);
      return allocatingList(2, multiply(sz, sz));
    }
    case 'sort': {
      if (!isList || args.length !== 0) return undefined;
      const sz = size(target, sizer);
      const elem = elemOf(target!.type);
      return allocatingList(2 + (elem && isStringLike(elem) ? ST : 0), multiply(sz, sz));
    }
    case 'sets.contains':
    case 'sets.intersects':
    case 'sets.equivalent':
      if (args.length !== 2) return undefined;
      return {
        cost: add(
          scale(multiply(size(args[0], sizer), size(args[1], sizer)), fn === 'sets.equivalent' ? 2 : 1),
          ONE,
        ),
      };
  }
  return undefined;
}

const FIXED_ONE = new Set(
  (
    'masked prefixLength family isUnspecified isLoopback isLinkLocalMulticast isLinkLocalUnicast ' +
    'isGlobalUnicast format.named sign asInteger isInteger asApproximateFloat isGreaterThan isLessThan ' +
    'compareTo add sub major minor patch getScheme getHostname getHost getPort getEscapedPath getQuery'
  ).split(' '),
);

/** Kubernetes' library estimator (`EstimateCallCost`), keyed by function name. */
function kubernetesEstimate({ fn, target, args, sizer }: LibraryCall): CallEstimate | undefined {
  if (FIXED_ONE.has(fn)) return { cost: ONE };
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
    case 'includes': {
      if (!target) return undefined;
      const el = listElement(target);
      if (el) {
        let elCost = ONE;
        if (isStringLike(el.type)) elCost = add(elCost, scale(size(el, sizer), ST));
        const list = size(target, sizer);
        return { cost: { min: multiply(list, elCost).min, max: multiply(list, elCost).max } };
      }
      if (fn === 'includes') return { cost: size(target, sizer) };
      return { cost: scale(size(target, sizer), ST) };
    }
    case 'url':
    case 'jsonpatch.escapeKey':
      if (args.length !== 1) return undefined;
      return { cost: scale(size(args[0], sizer), ST), resultSize: size(args[0], sizer) };
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (!target) return undefined;
      return { cost: scale(size(target, sizer), ST), resultSize: size(target, sizer) };
    case 'replace':
      return target && args.length >= 2 ? replaceEstimate({ fn, target, args, sizer }) : undefined;
    case 'split': {
      if (!target) return undefined;
      const sz = size(target, sizer);
      const max = args.length > 1 ? literalUint(args[1], sz.max) : sz.max;
      return { cost: scale(sz, 2 * ST), resultSize: { min: 0, max } };
    }
    case 'join': {
      if (!target) return undefined;
      const listSize = size(target, sizer);
      const el = listElement(target);
      let sz: Range = el ? multiply(listSize, size(el, sizer)) : fixed(0);
      if (args.length > 0) {
        const separators = { min: Math.max(0, listSize.min - 1), max: Math.max(0, listSize.max - 1) };
        sz = add(sz, multiply(size(args[0], sizer), separators));
      }
      return { cost: scale(sz, ST), resultSize: sz };
    }
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const sz = size(target, sizer);
      const strCost = scale(add(sz, ONE), ST);
      const regexCost = scale(size(args[0], sizer), COST.regexStringLength);
      return { cost: multiply(strCost, regexCost), resultSize: { min: 0, max: sz.max } };
    }
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      return args.length >= 1 ? { cost: scale(size(args[0], sizer), ST) } : undefined;
    case 'ip':
      if (target?.type.k === 'opaque' && target.type.name === 'net.CIDR') return { cost: ONE };
      return args.length >= 1 ? { cost: scale(size(args[0], sizer), ST) } : undefined;
    case 'ip.isCanonical':
      return args.length >= 1 ? { cost: scale(size(args[0], sizer), 2 * ST) } : undefined;
    case 'containsIP':
    case 'containsCIDR': {
      if (args.length < 1) return undefined;
      const ipSize: Range = { min: 4, max: 16 };
      let cost = scale(add(ipSize, ipSize), ST);
      if (fn === 'containsCIDR') cost = add(add(cost, scale(ipSize, ST)), ONE);
      if (args[0]!.type.k === 'string') cost = add(cost, scale(size(args[0], sizer), ST));
      return { cost };
    }
    case 'validate':
      if (args.length < 1) return undefined;
      return { cost: scale(scale(size(args[0], sizer), ST), 128 * COST.regexStringLength) };
  }
  return undefined;
}

function replaceEstimate({ target, args, sizer }: LibraryCall): CallEstimate {
  const sz = size(target, sizer);
  const toReplace = size(args[0], sizer);
  const replaceWith = size(args[1], sizer);
  let countMax: number;
  let countMin: number;
  let retainedMax = 0;
  let retainedMin = 0;
  if (toReplace.min === 0) {
    countMax = sz.max < MAX ? sz.max + 1 : sz.max;
    retainedMax = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0;
    retainedMax = sz.max;
  } else {
    countMax = Math.ceil(sz.max / toReplace.min);
  }
  if (toReplace.max === 0) {
    countMin = sz.min < MAX ? sz.min + 1 : sz.min;
    retainedMin = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0;
    retainedMin = sz.min;
  } else {
    countMin = Math.ceil(sz.min / toReplace.max);
  }
  const resultSize = add(multiply({ min: countMin, max: countMax }, replaceWith), {
    min: retainedMin,
    max: retainedMax,
  });
  return { cost: scale(sz, 2 * ST), resultSize };
}

/** cel-go's checker cases for named functions (`functionCost`). */
function coreEstimate({ fn, target, args, sizer }: LibraryCall) {
  switch (fn) {
    case 'format':
      return target?.type.k === 'string' ? { cost: scale(size(target, sizer), ST) } : undefined;
    case 'bytes':
      if (target || args.length !== 1 || args[0]!.type.k !== 'string') return undefined;
      return {
        cost: scale(size(args[0], sizer), ST),
        resultSize: { min: size(args[0], sizer).min, max: size(args[0], sizer).max * 4 },
      };
    case 'string':
      if (target || args.length !== 1 || args[0]!.type.k !== 'bytes') return undefined;
      return {
        cost: scale(size(args[0], sizer), ST),
        resultSize: { min: Math.floor(size(args[0], sizer).min / 4), max: size(args[0], sizer).max },
      };
    case 'strings.quote': {
      if (args.length !== 1) return undefined;
      const sz = size(args[0], sizer);
      return { cost: scale(sz, ST), resultSize: { min: sz.min + 2, max: sz.max * 2 + 2 } };
    }
    case 'startsWith':
    case 'endsWith':
      return target && args.length === 1 ? { cost: scale(size(args[0], sizer), ST) } : undefined;
    case 'matches': {
      const [str, re] = target ? [target, args[0]] : [args[0], args[1]];
      if (!str || !re || args.length !== (target ? 1 : 2)) return undefined;
      const strCost = scale(add(size(str, sizer), ONE), ST);
      return { cost: multiply(strCost, scale(size(re, sizer), COST.regexStringLength)) };
    }
    case 'contains':
      if (!target || args.length !== 1 || target.type.k !== 'string') return undefined;
      return { cost: multiply(scale(size(target, sizer), ST), scale(size(args[0], sizer), ST)) };
  }
  return undefined;
}

/** The cost of calling `fn` (without its arguments' costs), or undefined for the default of 1. */
export function libraryCallCost(call: LibraryCall): CallEstimate | undefined {
  return extEstimate(call) ?? kubernetesEstimate(call) ?? coreEstimate(call);
}

const OPAQUE = (name: string): CelType => ({ k: 'opaque', name });
const BOOL_FNS = new Set(
  (
    'matches startsWith endsWith contains isSorted isURL isIP isCIDR isQuantity isSemver isInteger ' +
    'isGreaterThan isLessThan isUnspecified isLoopback isLinkLocalMulticast isLinkLocalUnicast ' +
    'isGlobalUnicast containsIP containsCIDR ip.isCanonical hasValue sets.contains sets.intersects ' +
    'sets.equivalent @not_strictly_false includes'
  ).split(' '),
);
const INT_FNS = new Set(
  (
    'size indexOf lastIndexOf int compareTo sign major minor patch prefixLength family asInteger ' +
    'getFullYear getMonth getDayOfYear getDayOfMonth getDate getDayOfWeek getHours getMinutes ' +
    'getSeconds getMilliseconds'
  ).split(' '),
);
const STRING_FNS = new Set(
  (
    'lowerAscii upperAscii trim replace substring charAt join format string find getScheme ' +
    'getHostname getHost getPort getEscapedPath strings.quote'
  ).split(' '),
);

/** The result type of a named function call. */
export function callResultType(fn: string, target: CelType | undefined, args: readonly CelType[]): CelType {
  if (BOOL_FNS.has(fn)) return BOOL;
  if (INT_FNS.has(fn)) return INT;
  if (fn === 'reverse' && target?.k === 'string') return STRING;
  if (STRING_FNS.has(fn)) return STRING;
  switch (fn) {
    case 'split':
    case 'findAll':
      return listOf(STRING);
    case 'double':
    case 'asApproximateFloat':
      return { k: 'double' };
    case 'uint':
      return { k: 'uint' };
    case 'bool':
      return BOOL;
    case 'bytes':
      return { k: 'bytes' };
    case 'duration':
      return { k: 'duration' };
    case 'timestamp':
      return { k: 'timestamp' };
    case 'type':
      return { k: 'type' };
    case 'url':
      return OPAQUE('kubernetes.URL');
    case 'ip':
      return OPAQUE('net.IP');
    case 'cidr':
    case 'masked':
      return OPAQUE('net.CIDR');
    case 'quantity':
    case 'add':
    case 'sub':
      return OPAQUE('kubernetes.Quantity');
    case 'semver':
      return OPAQUE('kubernetes.Semver');
    case 'getQuery':
      return { k: 'map', key: STRING, value: listOf(STRING) };
    case 'validate':
      return optionalOf(listOf(STRING));
    case 'sum':
    case 'min':
    case 'max':
      return (target && elemOf(target)) ?? DYN;
    case 'sort':
    case 'reverse':
    case 'distinct':
    case 'slice':
      return target ?? DYN;
    case 'flatten': {
      const inner = target && elemOf(target);
      return listOf((inner && elemOf(inner)) ?? DYN);
    }
    case 'lists.range':
      return listOf(INT);
    case 'optional.of':
    case 'optional.ofNonZeroValue':
      return optionalOf(args[0] ?? DYN);
    case 'optional.none':
      return optionalOf(DYN);
    case 'value':
    case 'orValue':
      return target?.k === 'opaque' && target.param ? target.param : DYN;
    case 'or':
      return target ?? DYN;
  }
  if (fn.startsWith('format.')) return OPAQUE('kubernetes.NamedFormat');
  return DYN;
}
