// cel-go's lists extension at the version kube-apiserver 1.37 offers (`ext.Lists(ext.ListsVersion(3))`:
// `slice`, `flatten`, `sort`, `sortBy`, `lists.range`, `reverse`, `distinct`) and the Kubernetes
// lists library's `includes`, with cel-go's error messages.
import { CelEvalError, type CelValue, celCompare, celEquals, int, noOverload, typeName } from './values.ts';

function flatten(items: readonly CelValue[], depth: bigint): CelValue[] {
  if (depth < 0n) throw new CelEvalError('level must be non-negative');
  const out: CelValue[] = [];
  for (const x of items) {
    if (Array.isArray(x) && depth > 0n) out.push(...flatten(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

const COMPARABLE = new Set([
  'int',
  'double',
  'bool',
  'string',
  'bytes',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
]);

/**
 * `items` ordered by `keys` (`sort()` is `sortBy` with the items as keys). A stable sort: cel-go's
 * `sort.Slice` keeps equal keys in order for up to 12 items, the size CRD lists are checked at.
 */
export function sortByKeys(items: readonly CelValue[], keys: readonly CelValue[]): CelValue[] {
  if (items.length !== keys.length) {
    throw new CelEvalError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${items.length} and ${keys.length} elements respectively`,
    );
  }
  if (items.length === 0) return [...items];
  const first = typeName(keys[0]!);
  if (!COMPARABLE.has(first)) throw new CelEvalError('list elements must be comparable');
  if (keys.some((k) => typeName(k) !== first))
    throw new CelEvalError('list elements must have the same type');
  const order = items.map((_, i) => i);
  order.sort((a, b) => celCompare(keys[a]!, keys[b]!, 'sort'));
  return order.map((i) => items[i]!);
}

/** The lists extension and `includes`; undefined when `fn` with these arguments is not one of them. */
export function listExtFunction(
  fn: string,
  target: CelValue | undefined,
  args: CelValue[],
): CelValue | undefined {
  if (target === undefined) {
    if (fn !== 'lists.range') return undefined;
    const n = args[0];
    if (typeof n !== 'bigint') throw noOverload(fn, n);
    if (n < 0n) throw new CelEvalError(`lists.range: size must be non-negative, got ${n}`);
    return Array.from({ length: Number(n) }, (_, i) => BigInt(i));
  }
  if (fn === 'includes') {
    if (args.length !== 1) return undefined;
    if (Array.isArray(target)) return target.some((x) => celEquals(x, args[0]!));
    return celEquals(target, args[0]!);
  }
  if (!Array.isArray(target)) return undefined;
  switch (fn) {
    case 'slice': {
      const start = int(args[0], fn);
      const end = int(args[1], fn);
      if (start < 0 || end < 0)
        throw new CelEvalError(`cannot slice(${start}, ${end}), negative indexes not supported`);
      if (start > end)
        throw new CelEvalError(
          `cannot slice(${start}, ${end}), start index must be less than or equal to end index`,
        );
      if (target.length < end)
        throw new CelEvalError(`cannot slice(${start}, ${end}), list is length ${target.length}`);
      return target.slice(start, end);
    }
    case 'flatten': {
      if (args.length === 0) return flatten(target, 1n);
      const depth = args[0];
      if (typeof depth !== 'bigint') throw noOverload(fn, target, depth);
      return flatten(target, depth);
    }
    case 'sort':
      return args.length === 0 ? sortByKeys(target, target) : undefined;
    case 'reverse':
      return args.length === 0 ? [...target].reverse() : undefined;
    case 'distinct': {
      if (args.length !== 0) return undefined;
      const out: CelValue[] = [];
      for (const x of target) if (!out.some((y) => celEquals(x, y))) out.push(x);
      return out;
    }
    default:
      return undefined;
  }
}
