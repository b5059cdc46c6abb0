import type { JsonSchemaProps } from './json-schema.ts';
import { isObject } from './json-value.ts';
import { planOf, type SchemaPlan } from './schema-plan.ts';
import { childPath, goJson, keyPath, type ValidationError } from './validation-error.ts';

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
  const single = keys.length === 1 ? keys[0]! : undefined;
  const ids = list.map((item) =>
    single === undefined ? goJson(keyOf(item)) : identity(isObject(item) ? item[single] : undefined),
  );
  for (const i of secondAppearances(ids)) {
    out.push({
      path: childPath(path, i),
      message: `Duplicate value: ${goJson(keyOf(list[i]))}`,
      source: 'list',
    });
  }
}

function visit(value: unknown, plan: SchemaPlan, path: string, out: ValidationError[]): void {
  if (Array.isArray(value)) {
    if (plan.listType === 'set') checkSet(value, path, out);
    else if (plan.listType === 'map') checkMap(value, plan.listMapKeys ?? [], path, out);
    const items = plan.items;
    if (items?.listsBelow)
      for (let i = 0; i < value.length; i++) visit(value[i], items, childPath(path, i), out);
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const sub = plan.properties.get(key);
    if (sub) {
      if (sub.listsBelow) visit(value[key], sub, childPath(path, key), out);
    } else if (plan.values?.listsBelow) visit(value[key], plan.values, keyPath(path, key), out);
  }
}

/**
 * Checks the uniqueness invariants of `x-kubernetes-list-type: set` (whole items) and `map`
 * (the `x-kubernetes-list-map-keys` of each item), as the apiserver does: one `Duplicate value`
 * error at the second appearance of each repeated value or key.
 */
export function validateListTypes(value: unknown, schema: JsonSchemaProps): ValidationError[] {
  const out: ValidationError[] = [];
  const plan = planOf(schema);
  if (plan.listsBelow) visit(value, plan, '', out);
  return out;
}
