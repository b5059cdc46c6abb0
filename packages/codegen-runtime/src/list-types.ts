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

/** One walk of a value for list-type duplicates, and the errors it found. */
class ListTypeWalk {
  readonly errors: ValidationError[] = [];

  checkSet(list: readonly unknown[], path: string): void {
    for (const i of secondAppearances(list.map(identity))) {
      this.errors.push({
        path: childPath(path, i),
        message: `Duplicate value: ${goJson(list[i])}`,
        source: 'list',
      });
    }
  }

  checkMap(list: readonly unknown[], keys: readonly string[], path: string): void {
    const bad = list.findIndex((x) => x !== null && !isObject(x));
    if (bad >= 0) {
      this.errors.push({
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
      this.errors.push({
        path: childPath(path, i),
        message: `Duplicate value: ${goJson(keyOf(list[i]))}`,
        source: 'list',
      });
    }
  }

  visit(value: unknown, plan: SchemaPlan, path: string): void {
    if (Array.isArray(value)) {
      if (plan.listType === 'set') this.checkSet(value, path);
      else if (plan.listType === 'map') this.checkMap(value, plan.listMapKeys ?? [], path);
      const items = plan.items;
      if (items?.listsBelow)
        for (let i = 0; i < value.length; i++) this.visit(value[i], items, childPath(path, i));
      return;
    }
    if (!isObject(value)) return;
    for (const key of Object.keys(value)) {
      const sub = plan.properties.get(key);
      if (sub) {
        if (sub.listsBelow) this.visit(value[key], sub, childPath(path, key));
      } else if (plan.values?.listsBelow) this.visit(value[key], plan.values, keyPath(path, key));
    }
  }
}

/**
 * Checks the uniqueness invariants of `x-kubernetes-list-type: set` (whole items) and `map`
 * (the `x-kubernetes-list-map-keys` of each item), as the apiserver does: one `Duplicate value`
 * error at the second appearance of each repeated value or key.
 */
export function validateListTypes(value: unknown, schema: JsonSchemaProps): ValidationError[] {
  const walk = new ListTypeWalk();
  const plan = planOf(schema);
  if (plan.listsBelow) walk.visit(value, plan, '');
  return walk.errors;
}
