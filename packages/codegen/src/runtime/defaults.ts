import type { JsonSchemaProps } from './json-schema.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Drops fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`), as
 * the apiserver does before validation. The root `apiVersion`, `kind` and `metadata` are kept.
 * Mutates and returns `value`.
 */
export function prune(value: unknown, schema: JsonSchemaProps, root = true): unknown {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) prune(item, schema.items, false);
    return value;
  }
  if (!isObject(value)) return value;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (schema.properties) {
    for (const key of Object.keys(value)) {
      const sub = schema.properties[key];
      if (sub) prune(value[key], sub, false);
      else if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      else if (!schema['x-kubernetes-preserve-unknown-fields']) delete value[key];
    }
  } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const key of Object.keys(value)) prune(value[key], schema.additionalProperties, false);
  } else if (
    !schema['x-kubernetes-preserve-unknown-fields'] &&
    schema.additionalProperties !== true &&
    schema.type === 'object'
  ) {
    for (const key of Object.keys(value)) {
      if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      delete value[key];
    }
  }
  return value;
}

/**
 * Applies schema defaults top-down, only inside objects that exist (the apiserver's rule: a
 * nested default needs its parent present). Mutates and returns `value`.
 */
export function applyDefaults(value: unknown, schema: JsonSchemaProps): unknown {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(item, schema.items);
    return value;
  }
  if (!isObject(value)) return value;
  if (schema.properties) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (value[key] === undefined && sub.default !== undefined) value[key] = structuredClone(sub.default);
      if (value[key] !== undefined) applyDefaults(value[key], sub);
    }
  } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const key of Object.keys(value)) applyDefaults(value[key], schema.additionalProperties);
  }
  return value;
}
