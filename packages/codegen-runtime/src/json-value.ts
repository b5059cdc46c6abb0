/** Whether `v` is an object in the JSON sense: not `null`, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
