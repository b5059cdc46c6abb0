// Valid values for CRD schema nodes (differential validation), and JSON path helpers.

import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { compileRe2, createValidator, formatChecker, type ObjectValidator } from '@kubeloom/codegen-runtime';
import { regexExamples } from './regex-example.ts';

/** A path into a JSON value. */
export type JsonPath = readonly (string | number)[];

/** Renders a path in the apiserver's notation. */
export function pathString(path: JsonPath): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('') || '<nil>';
}

/** The value at `path`, or undefined. */
export function getAt(obj: unknown, path: JsonPath): unknown {
  let cur = obj;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** A copy of `obj` with `value` at `path` (deleted when `value` is undefined). */
export function setAt<T>(obj: T, path: JsonPath, value: unknown): T {
  const copy = structuredClone(obj) as Record<string | number, unknown>;
  if (path.length === 0) return structuredClone(value) as T;
  let cur = copy;
  for (const [i, seg] of path.slice(0, -1).entries()) {
    if (cur[seg] === null || typeof cur[seg] !== 'object') {
      if (value === undefined) return copy as T;
      cur[seg] = typeof path[i + 1] === 'number' ? [] : {};
    }
    cur = cur[seg] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
    else delete cur[last];
  } else cur[last] = structuredClone(value);
  return copy as T;
}

/** The schema of the node at `path` below `schema`. */
export function schemaAt(schema: JsonSchemaProps, path: JsonPath): JsonSchemaProps | undefined {
  let s: JsonSchemaProps | undefined = schema;
  for (const seg of path) {
    if (!s) return undefined;
    if (typeof seg === 'number') s = s.items;
    else
      s =
        s.properties?.[seg] ??
        (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
  }
  return s;
}

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

const FORMAT_EXAMPLES: Record<string, string> = {
  datetime: '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  byte: 'dGVzdA==',
  ipv4: '10.0.0.1',
  ipv6: 'fd00::1',
  cidr: '10.0.0.0/24',
  duration: '1s',
  hostname: 'example.com',
  uri: 'http://example.com',
  email: 'a@example.com',
  mac: '00:00:00:00:00:01',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  k8sshortname: 'example',
  k8slongname: 'example.com',
};

/** Whether a string satisfies the string constraints of a node (length, pattern, format, enum). */
export function stringOk(s: JsonSchemaProps, v: string): boolean {
  const len = [...v].length;
  if (typeof s.minLength === 'number' && len < s.minLength) return false;
  if (typeof s.maxLength === 'number' && len > s.maxLength) return false;
  if (typeof s.pattern === 'string') {
    try {
      if (!compileRe2(s.pattern).test(v)) return false;
    } catch {
      return false;
    }
  }
  if (typeof s.format === 'string') {
    const check = formatChecker(s.format);
    if (check && !check(v)) return false;
  }
  if (s.enum?.length && !s.enum.includes(v)) return false;
  if (s.anyOf || s.oneOf || s.allOf || s.not) return nodeValidator(s).validate(v).valid;
  return true;
}

const nodeValidators = new WeakMap<JsonSchemaProps, ObjectValidator<unknown>>();

/** A validator of one (non-root) schema node, for value validations in junctors. */
function nodeValidator(s: JsonSchemaProps): ObjectValidator<unknown> {
  let v = nodeValidators.get(s);
  if (!v) {
    v = createValidator({ type: 'object', properties: { x: s } });
    const inner = v;
    v = {
      schema: s,
      is: (o): o is unknown => inner.validate({ x: o }).valid,
      validate: (o) => inner.validate({ x: o }),
    };
    nodeValidators.set(s, v);
  }
  return v;
}

/** A string the node accepts, preferring short realistic values. */
export function stringFor(s: JsonSchemaProps): string {
  const strings = s.enum?.filter((v): v is string => typeof v === 'string');
  if (strings?.length) return strings[0]!;
  const fmt = typeof s.format === 'string' ? FORMAT_EXAMPLES[s.format.replaceAll('-', '')] : undefined;
  const list = [
    ...(fmt ? [fmt] : []),
    ...(typeof s.pattern === 'string' ? regexExamples(s.pattern) : []),
    ...CANDIDATES,
  ];
  for (const c of list) if (stringOk(s, c)) return c;
  const min = Math.max(s.minLength ?? 1, 1);
  for (const filler of ['a', '0', 'A', 'x.y', 'a-b']) {
    const c = filler.repeat(Math.ceil(min / filler.length)).slice(0, Math.max(min, filler.length));
    if (stringOk(s, c)) return c;
  }
  return 'a'.repeat(min).slice(0, s.maxLength ?? min);
}

/** A number the node accepts (bounds, exclusivity, multipleOf, enum). */
export function numberFor(s: JsonSchemaProps): number {
  const nums = s.enum?.filter((v): v is number => typeof v === 'number');
  if (nums?.length) return nums[0]!;
  let v = 1;
  if (typeof s.minimum === 'number') v = Math.max(v, s.exclusiveMinimum ? s.minimum + 1 : s.minimum);
  if (typeof s.maximum === 'number' && v > s.maximum) v = s.exclusiveMaximum ? s.maximum - 1 : s.maximum;
  if (typeof s.multipleOf === 'number' && s.multipleOf >= 1) v = Math.ceil(v / s.multipleOf) * s.multipleOf;
  return v;
}

/** Makes the i-th item of a synthesized set or map list distinct from the others. */
export function distinctify(item: unknown, i: number, s: JsonSchemaProps): unknown {
  if (i === 0) return item;
  const vary = (v: unknown, sub: JsonSchemaProps | undefined): unknown => {
    if (typeof v === 'number') return v + i;
    if (typeof v === 'string') {
      const enums = sub?.enum?.filter((x) => typeof x === 'string') as string[] | undefined;
      if (enums && enums.length > i) return enums[i];
      for (const c of [`${v}${i}`, `${v}-${'x'.repeat(i)}`, `${'a'.repeat(i)}${v}`, `${v}${'a'.repeat(i)}`])
        if (!sub || stringOk(sub, c)) return c;
      return `${v}${i}`;
    }
    return v;
  };
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const o = { ...(item as Record<string, unknown>) };
    const keys = s['x-kubernetes-list-map-keys'] ?? Object.keys(o).filter((k) => typeof o[k] !== 'object');
    for (const k of keys) if (o[k] !== undefined) o[k] = vary(o[k], s.items?.properties?.[k]);
    return o;
  }
  return vary(item, s.items);
}

/** Options of {@link synthesize}. */
export interface SynthOptions {
  /** Lists get at least one item and maps one entry (so a walk can descend into them). */
  readonly fill?: boolean;
}

/** A value the node accepts per schema (required fields only, in bounds); CEL rules are not considered. */
export function synthesize(s: JsonSchemaProps, opts: SynthOptions = {}, depth = 0): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (s.enum?.length && s.type !== 'object' && s.type !== 'array')
    return structuredClone(s.enum.find((v) => v !== null) ?? s.enum[0]);
  if (s['x-kubernetes-int-or-string'])
    return typeof s.pattern === 'string' ? stringFor({ ...s, type: 'string' }) : 1;
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.type) return {};
  switch (s.type) {
    case 'string':
      return stringFor(s);
    case 'integer':
    case 'number':
      return numberFor(s);
    case 'boolean':
      return false;
    case 'array': {
      let n = s.minItems ?? 0;
      if (opts.fill && depth > 0) n = Math.max(n, 1);
      if (typeof s.maxItems === 'number') n = Math.min(n, s.maxItems);
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const item = synthesize(s.items ?? { type: 'string' }, opts, depth + 1);
        const type = s['x-kubernetes-list-type'];
        items.push(type === 'set' || type === 'map' ? distinctify(item, i, s) : item);
      }
      return items;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) {
        const sub = s.properties?.[k];
        if (sub) out[k] = synthesize(sub, opts, depth + 1);
      }
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (Object.keys(out).length >= (s.minProperties ?? 0)) break;
        if (out[k] === undefined) out[k] = synthesize(sub, opts, depth + 1);
      }
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') {
        let n = s.minProperties ?? 0;
        if (opts.fill && depth > 0) n = Math.max(n, 1);
        if (typeof s.maxProperties === 'number') n = Math.min(n, s.maxProperties);
        for (let i = 0; i < n; i++) out[i === 0 ? 'key' : `key${i}`] = synthesize(ap, opts, depth + 1);
      }
      if (s['x-kubernetes-embedded-resource']) {
        out.apiVersion ??= 'example.dev/v1';
        out.kind ??= 'Example';
      }
      return out;
    }
    default:
      return {};
  }
}
