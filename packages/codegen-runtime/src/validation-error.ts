import { goFormatG } from './cel/go-format.ts';
/** One reason an object is invalid. */
export interface ValidationError {
  /** JSON path of the offending value, e.g. `spec.rules[0].matches`. */
  readonly path: string;
  /** What is wrong, in the apiserver's words where possible. */
  readonly message: string;
  /**
   * Where the error comes from: `schema` for OpenAPI keywords, `list` for `x-kubernetes-list-type`
   * uniqueness, `embedded` for `x-kubernetes-embedded-resource` checks, `cel` for a failed rule,
   * `cel-error` for a rule that errored.
   */
  readonly source: 'schema' | 'list' | 'embedded' | 'cel' | 'cel-error';
  /** The CEL rule, for CEL errors. */
  readonly rule?: string;
  /** For CEL errors: the path of the node that carries the rule (`path` differs with a `fieldPath`). */
  readonly rulePath?: string;
}

/** The path of the object's root, as the apiserver writes it (Go's rendering of a nil `field.Path`). */
export const ROOT_PATH = '<nil>';

/** Appends `.key` (or `[index]`) to a JSON path in the apiserver's notation. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Appends a map key as `[key]`, as the apiserver writes map entries in CEL, list-type and
 * embedded-resource errors (`field.Path.Key`); its OpenAPI schema errors write `.key` instead.
 */
export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/** JSON with sorted keys (Go's `json.Marshal` of a map), as the apiserver prints values. */
export function goJson(value: unknown): string {
  // a number that is not an int64 is a float64 there, printed with %v (`1e-07`, `1e+21`)
  if (typeof value === 'number' && !(Number.isInteger(value) && Math.abs(value) < 2 ** 63))
    return goFormatG(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
