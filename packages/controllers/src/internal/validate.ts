/** Which option of which constructor a checked value is, for the error message. */
export interface OptionName {
  /** The constructor or object, e.g. `tokenBucketRateLimiter` or `queue "pods"`. */
  readonly owner: string;
  /** The option, e.g. `qps`. */
  readonly option: string;
}

/** Returns `value` when it is a positive finite number; throws a RangeError naming the option otherwise. */
export function requirePositiveFinite(value: number, name: OptionName & { readonly unit?: string }): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `${name.owner}: ${name.option} must be a positive finite number${name.unit ?? ''}, got ${String(value)}`,
    );
  }
  return value;
}

/** Returns `value` when it is an integer ≥ `min`; throws a RangeError naming the option otherwise. */
export function requireInteger(value: number, name: OptionName & { readonly min: number }): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < name.min) {
    throw new RangeError(
      `${name.owner}: ${name.option} must be an integer ≥ ${name.min}, got ${String(value)}`,
    );
  }
  return value;
}
