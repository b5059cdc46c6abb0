/** Returns `value` when it is a positive finite number; throws a RangeError naming the option otherwise. */
export function requirePositiveFinite(owner: string, option: string, value: number, unit = ''): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${owner}: ${option} must be a positive finite number${unit}, got ${String(value)}`);
  }
  return value;
}

/** Returns `value` when it is an integer ≥ `min`; throws a RangeError naming the option otherwise. */
export function requireInteger(owner: string, option: string, value: number, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RangeError(`${owner}: ${option} must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}
