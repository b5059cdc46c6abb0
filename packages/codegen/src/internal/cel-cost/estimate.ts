// Cost and size ranges as cel-go's checker keeps them: unsigned 64-bit, saturating. Numbers stand
// for uint64 here: exact below 2^53, and any value that large is far past every limit anyway.

/** cel-go's `math.MaxUint64` (what "unknown" and every overflow saturate to). */
export const MAX = 2 ** 64;

/** A `[min, max]` range of sizes or costs (cel-go's `SizeEstimate` and `CostEstimate`). */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/** The unknown range: `[0, MaxUint64]`. */
export const UNKNOWN: Range = { min: 0, max: MAX };

/** `[n, n]`. */
export function fixed(n: number): Range {
  return { min: n, max: n };
}

function sat(n: number): number {
  return Math.min(n, MAX);
}

/** Adds two ranges bound by bound. */
export function add(a: Range, b: Range): Range {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

/** Multiplies two ranges bound by bound. */
export function multiply(a: Range, b: Range): Range {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}

/** `ceil(x * factor)` saturating, as cel-go's `multiplyByCostFactor`. */
function timesFactor(x: number, factor: number): number {
  if (x > 0 && factor > 0 && x > MAX / factor) return MAX;
  return sat(Math.ceil(x * factor));
}

/** Multiplies both bounds by a cost factor (rounding up). */
export function scale(a: Range, factor: number): Range {
  return { min: timesFactor(a.min, factor), max: timesFactor(a.max, factor) };
}

/** The smallest range holding both. */
export function union(a: Range, b: Range): Range {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

/** cel-go's cost constants (`common/cost.go`). */
export const COST = {
  selectAndIdent: 1,
  constant: 0,
  listCreate: 10,
  mapCreate: 30,
  stringTraversal: 0.1,
  regexStringLength: 0.25,
} as const;
