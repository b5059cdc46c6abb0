import type { JsonSchemaProps } from './json-schema.ts';
import { childPath, goJson, keyPath, type ValidationError } from './validation-error.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A comparable identity of a JSON value: scalars by type and value, compounds by sorted JSON. */
function identity(value: unknown): string {
  if (value === undefined) return 'unspecified';
  return `${value === null ? 'null' : typeof value}:${goJson(value)}`;
}

/** Indexes of the second appearance of each value that appears more than once. */
function secondAppearances(ids: readonly string[]): number[] {
  const times = new Map<string, number>();
  const out: number[] = [];
  ids.forEach((id, i) => {
    const n = times.get(id) ?? 0;
    times.set(id, n + 1);
    if (n === 1) out.push(i);
  });
  return out;
}

function checkSet(list: readonly unknown[], path: string, out: ValidationError[]): void {
  for (const i of secondAppearances(list.map(identity))) {
    out.push({ path: childPath(path, i), message: `Duplicate value: ${goJson(list[i])}`, source: 'list' });
  }
}

function checkMap(
  list: readonly unknown[],
  keys: readonly string[],
  path: string,
  out: ValidationError[],
): void {
  const bad = list.findIndex((x) => x !== null && !isObject(x));
  if (bad >= 0) {
    out.push({
      path: childPath(path, bad),
      message: `Invalid value: ${goJson(list[bad])}: must be an object for an array of list-type map`,
      source: 'list',
    });
    return;
  }
  const keyOf = (item: unknown): Record<string, unknown> => {
    const key: Record<string, unknown> = {};
    if (isObject(item)) for (const k of keys) if (k in item) key[k] = item[k];
    return key;
  };
  const ids = list.map((item) => {
    const key = keyOf(item);
    return keys.length === 1 ? identity(key[keys[0]!]) : goJson(key);
  });
  for (const i of secondAppearances(ids)) {
    out.push({
      path: childPath(path, i),
      message: `Duplicate value: ${goJson(keyOf(list[i]))}`,
      source: 'list',
    });
  }
}

function visit(
  value: unknown,
  schema: JsonSchemaProps | undefined,
  path: string,
  out: ValidationError[],
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const type = schema['x-kubernetes-list-type'];
    if (type === 'set') checkSet(value, path, out);
    else if (type === 'map') checkMap(value, schema['x-kubernetes-list-map-keys'] ?? [], path, out);
    value.forEach((item, i) => {
      visit(item, schema.items, childPath(path, i), out);
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const sub = schema.properties?.[key];
    if (sub) visit(v, sub, childPath(path, key), out);
    else if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      visit(v, schema.additionalProperties, keyPath(path, key), out);
  }
}

/**
 * Checks the uniqueness invariants of `x-kubernetes-list-type: set` (whole items) and `map`
 * (the `x-kubernetes-list-map-keys` of each item), as the apiserver does: one `Duplicate value`
 * error at the second appearance of each repeated value or key.
 */
export function validateListTypes(value: unknown, schema: JsonSchemaProps): ValidationError[] {
  const out: ValidationError[] = [];
  visit(value, schema, '', out);
  return out;
}
