import { CelTimestamp, type CelValue, parseDuration, unorderedList } from './cel/evaluator.ts';
import { parseTimestamp } from './cel/lib-time.ts';
import { CEL_KEYWORDS, CEL_RESERVED_WORDS } from './cel/reserved-words.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import type { SchemaPlan } from './schema-plan.ts';

const RESERVED: ReadonlySet<string> = new Set([...CEL_KEYWORDS, ...CEL_RESERVED_WORDS]);

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
      if (value.length > 10) {
        try {
          return parseTimestamp(value, true);
        } catch {
          // not Go's RFC 3339: the looser reading below
        }
      }
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
 * and `map` compare without regard to order. With `fields`, an object keeps only the fields of
 * those CEL names (its own fields; what is below them is converted whole).
 */
export function toCel(value: unknown, plan: SchemaPlan | undefined, fields?: ReadonlySet<string>): CelValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (plan?.schema.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string') return typedString(value, plan?.schema);
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const itemPlan = plan?.items;
    const items = value.map((v) => toCel(v, itemPlan));
    const type = plan?.listType;
    return type === 'set' || type === 'map' ? unorderedList(items) : items;
  }
  const out: { [key: string]: CelValue } = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const prop = plan?.properties.get(k);
    const name = prop ? plan!.celNames.get(k) : k;
    if (name === undefined || (fields && !fields.has(name))) continue;
    out[name] = toCel(v, prop ?? plan?.values);
  }
  return out;
}
