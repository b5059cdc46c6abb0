import { CelTimestamp, type CelValue, parseDuration, unorderedList } from '../cel/evaluator.ts';
import type { JsonSchemaProps } from './json-schema.ts';

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The CEL name of an object property, as Kubernetes escapes it (`namespace` is `__namespace__`,
 * `a-b` is `a__dash__b`, `__` is `__underscores__`, `.` `__dot__`, `/` `__slash__`); undefined
 * when the property is not accessible from CEL.
 */
export function escapeCelProperty(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const out = name.replace(/(__|[-./]|[^a-zA-Z0-9\-./_])/g, (s) => {
    switch (s) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? out : undefined;
}

function base64Bytes(s: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(Buffer.from(s, 'base64'));
  } catch {
    return undefined;
  }
}

function typedString(value: string, schema: JsonSchemaProps | undefined): CelValue {
  switch (schema?.type === 'string' ? schema.format : undefined) {
    case 'date-time':
    case 'datetime':
    case 'date': {
      const ms = Date.parse(value.toUpperCase());
      return Number.isNaN(ms) ? value : new CelTimestamp(BigInt(ms) * 1_000_000n);
    }
    case 'duration':
      try {
        return parseDuration(value);
      } catch {
        return value;
      }
    case 'byte':
      return base64Bytes(value) ?? value;
    default:
      return value;
  }
}

/**
 * Converts a JSON value to the CEL value the apiserver binds to `self`: integers are `int`,
 * `number` fields `double`, strings with format `date-time`/`date` timestamps, `duration`
 * durations, `byte` bytes; object properties carry their escaped CEL names; lists of type `set`
 * and `map` compare without regard to order.
 */
export function toCel(value: unknown, schema: JsonSchemaProps | undefined): CelValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string') return typedString(value, schema);
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => toCel(v, schema?.items));
    const type = schema?.['x-kubernetes-list-type'];
    return type === 'set' || type === 'map' ? unorderedList(items) : items;
  }
  const out: { [key: string]: CelValue } = {};
  const values =
    schema?.additionalProperties && typeof schema.additionalProperties === 'object'
      ? schema.additionalProperties
      : undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const prop = schema?.properties?.[k];
    if (prop) {
      const name = escapeCelProperty(k);
      if (name !== undefined) out[name] = toCel(v, prop);
    } else out[k] = toCel(v, values);
  }
  return out;
}
