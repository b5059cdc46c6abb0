import type { JsonSchemaProps } from './json-schema.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function valueSchema(schema: JsonSchemaProps | undefined): JsonSchemaProps | undefined {
  const ap = schema?.additionalProperties;
  return ap && typeof ap === 'object' ? ap : undefined;
}

function pruneNode(value: unknown, schema: JsonSchemaProps | undefined, embedded: boolean): void {
  if (schema?.['x-kubernetes-preserve-unknown-fields']) {
    keepUnknown(value, schema);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) pruneNode(item, schema?.items, false);
    return;
  }
  if (!isObject(value)) return;
  if (!schema) {
    for (const key of Object.keys(value)) delete value[key];
    return;
  }
  const embeddedHere = embedded || schema['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(value)) {
    if (embeddedHere && META_FIELDS.has(key)) continue;
    const sub = schema.properties?.[key];
    if (sub) pruneNode(value[key], sub, false);
    else if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
      pruneNode(value[key], valueSchema(schema), false);
    else delete value[key];
  }
}

/** Under `x-kubernetes-preserve-unknown-fields`: unknown fields stay, declared ones are pruned inside. */
function keepUnknown(value: unknown, schema: JsonSchemaProps): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) keepUnknown(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(value)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const sub = schema.properties?.[key];
    if (sub) pruneNode(value[key], sub, false);
    else if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
      pruneNode(value[key], valueSchema(schema), false);
  }
}

/**
 * Drops fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`), as
 * the apiserver does before validation: `apiVersion`, `kind` and `metadata` stay at the root and
 * in `x-kubernetes-embedded-resource` objects. Mutates and returns `value`.
 */
export function prune(value: unknown, schema: JsonSchemaProps, root = true): unknown {
  pruneNode(value, schema, root);
  return value;
}

function nonNullable(schema: JsonSchemaProps | undefined): schema is JsonSchemaProps {
  return schema !== undefined && schema.nullable !== true;
}

function fieldSchema(schema: JsonSchemaProps | undefined, key: string): JsonSchemaProps | undefined {
  return schema?.properties?.[key] ?? valueSchema(schema);
}

/**
 * Removes `null` values of fields that are neither nullable nor defaulted (object fields and map
 * values; list items stay), as the apiserver does before defaulting. Mutates and returns `value`.
 */
export function pruneNulls(value: unknown, schema: JsonSchemaProps | undefined): unknown {
  if (Array.isArray(value)) {
    for (const item of value) pruneNulls(item, schema?.items);
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const sub = fieldSchema(schema, key);
      if (value[key] === null && nonNullable(sub) && sub.default === undefined) delete value[key];
      else pruneNulls(value[key], sub);
    }
  }
  return value;
}

/**
 * Applies schema defaults top-down, only inside objects that exist (the apiserver's rule: a
 * nested default needs its parent present); a `null` in a non-nullable field with a default is
 * replaced by the default. Mutates and returns `value`.
 */
export function applyDefaults(value: unknown, schema: JsonSchemaProps | undefined): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    value.forEach((item, i) => {
      if (item === null && nonNullable(items) && items.default !== undefined)
        value[i] = structuredClone(items.default);
      applyDefaults(value[i], items);
    });
    return value;
  }
  if (!isObject(value)) return value;
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (sub.default === undefined) continue;
    if (!(key in value) || (value[key] === null && sub.nullable !== true))
      value[key] = structuredClone(sub.default);
  }
  const values = valueSchema(schema);
  for (const key of Object.keys(value)) {
    const sub = schema.properties?.[key];
    if (sub) applyDefaults(value[key], sub);
    else if (values) {
      if (value[key] === null && values.nullable !== true && values.default !== undefined)
        value[key] = structuredClone(values.default);
      applyDefaults(value[key], values);
    }
  }
  return value;
}
