// Generates valid and invalid objects for a CRD schema (differential validation).
import type { JsonSchemaProps } from '../src/runtime/json-schema.ts';

const CANDIDATES = [
  'a',
  'example',
  'example.com',
  'a1',
  '/',
  '/path',
  'http://example.com',
  '1',
  '10',
  '1s',
  '10s',
  'Foo',
  'foo-bar',
  'A',
  '10.0.0.1',
  '10.0.0.0/24',
  'fd00::1',
  'Exact',
  'default',
  'gateway.networking.k8s.io',
  'HTTPRoute',
  'Gateway',
  'IPAddress',
  'x.example.com',
  'GET',
  'HTTP',
  'ab',
  'abc',
  'Secret',
  'ca.crt',
  '100m',
  '1Gi',
  'test',
  'dGVzdA==',
  '2024-01-01T00:00:00Z',
  '00:00:00:00:00:01',
  'RSA',
  'PKCS1',
  'SHA256WithRSA',
  'kubernetes.io/tls',
  'Always',
];

function stringFor(s: JsonSchemaProps): string {
  if (s.enum?.length) return String(s.enum.find((v) => typeof v === 'string') ?? 'a');
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
  const re = typeof s.pattern === 'string' ? safeRe(s.pattern) : undefined;
  const fmt = s.format;
  const byFormat: Record<string, string> = {
    'date-time': '2024-01-01T00:00:00Z',
    byte: 'dGVzdA==',
    ipv4: '10.0.0.1',
    ipv6: 'fd00::1',
    cidr: '10.0.0.0/24',
    duration: '1s',
    hostname: 'example.com',
    uri: 'http://example.com',
  };
  const list = fmt && byFormat[fmt] ? [byFormat[fmt]!, ...CANDIDATES] : CANDIDATES;
  for (const c of list) {
    if (c.length >= min && c.length <= max && (!re || re.test(c))) return c;
  }
  const pad = 'a'.repeat(Math.max(min, 1));
  return pad.slice(0, Math.min(pad.length, max));
}

function safeRe(p: string): RegExp | undefined {
  try {
    return new RegExp(p, 'u');
  } catch {
    try {
      return new RegExp(p);
    } catch {
      return undefined;
    }
  }
}

function intFor(s: JsonSchemaProps): number {
  let v = typeof s.minimum === 'number' ? s.minimum + (s.exclusiveMinimum ? 1 : 0) : 1;
  if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
  if (s.enum?.length) v = s.enum[0] as number;
  return v;
}

/** A minimal object the schema should accept (required fields only, in bounds). */
export function synthesize(s: JsonSchemaProps, depth = 0): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (s['x-kubernetes-int-or-string'])
    return typeof s.pattern === 'string' ? stringFor({ ...s, type: 'string' }) : 1;
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.type) return {};
  switch (s.type) {
    case 'string':
      return stringFor(s);
    case 'integer':
      return intFor(s);
    case 'number':
      return intFor(s);
    case 'boolean':
      return s.enum?.length ? s.enum[0] : false;
    case 'array': {
      const n = (s.minItems as number | undefined) ?? 0;
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const item = synthesize(s.items ?? { type: 'string' }, depth + 1);
        if (typeof item === 'string' && s['x-kubernetes-list-type'] === 'set')
          items.push(`${item}${i || ''}`);
        else if (item && typeof item === 'object' && s['x-kubernetes-list-map-keys']) {
          for (const k of s['x-kubernetes-list-map-keys']) {
            const o = item as Record<string, unknown>;
            if (typeof o[k] === 'string') o[k] = `${o[k]}${i || ''}`;
            else if (typeof o[k] === 'number') o[k] = (o[k] as number) + i;
          }
          items.push(item);
        } else items.push(item);
      }
      return items;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) {
        const sub = s.properties?.[k];
        if (sub) out[k] = synthesize(sub, depth + 1);
      }
      return out;
    }
    default:
      return {};
  }
}

/** One sample: a label and an object. */
export interface Sample {
  readonly label: string;
  readonly object: Record<string, unknown>;
}

function setAt(obj: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(obj) as Record<string | number, unknown>;
  let cur: Record<string | number, unknown> = copy;
  for (const seg of path.slice(0, -1)) cur = cur[seg] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return copy;
}

/**
 * Mutations of a base object: boundary values, missing required fields, wrong types, enum,
 * pattern and CEL-related violations, along the fields present in the base plus one level of
 * optional fields. Deterministic; at most `limit` samples.
 */
export function mutations(base: Record<string, unknown>, root: JsonSchemaProps, limit: number): Sample[] {
  const out: Sample[] = [{ label: 'base', object: base }];
  const add = (label: string, path: (string | number)[], value: unknown) => {
    if (out.length < limit)
      out.push({
        label: `${label} at ${path.join('.')}`,
        object: setAt(base, path, value) as Record<string, unknown>,
      });
  };
  const visit = (s: JsonSchemaProps, value: unknown, path: (string | number)[], depth: number) => {
    if (depth > 6 || out.length >= limit) return;
    if (s.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const k of s.required ?? [])
        if (path.length > 0 || k === 'spec') add('missing required', [...path, k], undefined);
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (path.length === 0 && (k === 'metadata' || k === 'apiVersion' || k === 'kind' || k === 'status'))
          continue;
        const v = (value as Record<string, unknown>)[k];
        if (v !== undefined) visit(sub, v, [...path, k], depth + 1);
        else if (depth < 3) {
          const fresh = synthesize(sub);
          add('optional set', [...path, k], fresh);
          scalarMutations(sub, [...path, k]);
        }
      }
      if (
        typeof s.maxProperties === 'number' &&
        s.additionalProperties &&
        typeof s.additionalProperties === 'object'
      ) {
        const big: Record<string, unknown> = {};
        for (let i = 0; i <= s.maxProperties; i++) big[`k${i}`] = synthesize(s.additionalProperties);
        add('maxProperties+1', path, big);
      }
      return;
    }
    if (s.type === 'array' && Array.isArray(value)) {
      if (typeof s.maxItems === 'number' && s.items && s.maxItems <= 64) {
        const items = Array.from({ length: s.maxItems + 1 }, (_, i) => {
          const it = synthesize(s.items!);
          return typeof it === 'string' ? `${it}${i}` : it;
        });
        add('maxItems+1', path, items);
      }
      if (typeof s.minItems === 'number' && s.minItems > 0)
        add('minItems-1', path, value.slice(0, s.minItems - 1));
      add('wrong type (string for list)', path, 'x');
      if (value.length > 0 && s.items) visit(s.items, value[0], [...path, 0], depth + 1);
      return;
    }
    scalarMutations(s, path);
  };
  const scalarMutations = (s: JsonSchemaProps, path: (string | number)[]) => {
    if (s.type === 'string') {
      if (typeof s.maxLength === 'number' && s.maxLength < 5000) {
        add('maxLength', path, 'a'.repeat(s.maxLength));
        add('maxLength+1', path, 'a'.repeat(s.maxLength + 1));
      }
      if (typeof s.minLength === 'number' && s.minLength > 0)
        add('minLength-1', path, 'a'.repeat(s.minLength - 1));
      if (s.enum) add('not in enum', path, 'NotAnEnumValue');
      if (s.pattern) add('pattern violation', path, '-!-');
      if (s.format) add(`bad ${s.format}`, path, 'not a valid value');
      add('wrong type (integer for string)', path, 123);
    } else if (s.type === 'integer' || s.type === 'number') {
      if (typeof s.minimum === 'number') {
        add('minimum', path, s.minimum);
        add('minimum-1', path, s.minimum - 1);
      }
      if (typeof s.maximum === 'number') {
        add('maximum', path, s.maximum);
        add('maximum+1', path, s.maximum + 1);
      }
      add('wrong type (string for integer)', path, 'x');
    } else if (s.type === 'boolean') {
      add('wrong type (string for boolean)', path, 'yes');
    } else if (s.type === 'object') {
      add('wrong type (string for object)', path, 'x');
    }
  };
  visit(root, base, [], 0);
  return out;
}
