// Generates valid and invalid objects for a CRD schema (differential validation): a walk over
// every schema node reachable from a valid base object, with mutations at each node (boundary
// values on both sides, wrong types, missing required fields, enum, pattern and format
// violations, unknown fields, nulls, list-type and embedded-resource violations) and CEL
// violations derived from each rule. Contexts the walk descends through are kept valid (CEL
// rules included) so a mutation exercises one thing.

import type { JsonSchemaProps, ObjectValidator, Re2, ValidationResult } from '@kubeloom/codegen-runtime';
import { compileRe2 } from '@kubeloom/codegen-runtime';
import { ruleCandidates } from './rule-candidates.ts';
import {
  getAt,
  type JsonPath,
  numberFor,
  pathString,
  schemaAt,
  setAt,
  stringFor,
  stringOk,
  synthesize,
} from './synthesize.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** How a sample is sent: created, updated over an existing object, or written to the status subresource. */
export type Via = 'create' | 'update' | 'status';

/** What a sample exercises. */
export type Category =
  | 'base'
  | 'optional'
  | 'boundary'
  | 'required'
  | 'type'
  | 'enum'
  | 'pattern'
  | 'format'
  | 'unknown'
  | 'nullable'
  | 'list-set'
  | 'list-map'
  | 'embedded'
  | 'cel'
  | 'transition'
  | 'hand-written';

/** One sample object. */
export interface Sample {
  /** What the sample changes, e.g. `maxLength+1 at spec.name`. */
  readonly label: string;
  /** What it exercises. */
  readonly category: Category;
  /** How it is sent. */
  readonly via: Via;
  /** The object. */
  readonly object: Record<string, unknown>;
  /** For `update` and `status`: the object that exists before (created for real first). */
  readonly old?: Record<string, unknown>;
  /** The CEL rule the sample targets, for CEL samples. */
  readonly rule?: string;
}

/** A CEL rule of the schema and where it sits. */
export interface RuleSite {
  /** The schema path, e.g. `spec.rules[*].matches[*].path`. */
  readonly path: string;
  /** The rule. */
  readonly rule: string;
}

const FORMAT_SAMPLES: Record<string, readonly string[]> = {
  datetime: [
    '2024-02-29T23:59:59Z',
    '2023-02-29T00:00:00Z',
    '2024-01-01t10:00:00.5+01:00',
    '2024-01-01 00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:00:00',
    '2024-01-01',
  ],
  date: ['2024-02-29', '2023-02-29', '2024-1-01', '2024-01-01T00:00:00Z'],
  byte: ['', 'YQ==', 'YQ', 'YWJj', 'a b', 'YQ=='.repeat(2)],
  ipv4: ['010.0.0.1', '256.0.0.1', '::ffff:1.2.3.4', '1.2.3', '0.0.0.0', '1.2.3.4 '],
  ipv6: ['::1', 'fe80::1%eth0', '1.2.3.4', '::ffff:1.2.3.4', '2001:db8::g', '::'],
  cidr: ['10.0.0.0/32', '10.0.0.0/33', '10.0.0.1', 'fd00::/128', 'fd00::/129', '010.0.0.0/8'],
  mac: [
    '00:00:5e:00:53:01',
    '00-00-5e-00-53-01',
    '0000.5e00.5301',
    '00:00:5e:00:53',
    '00:00:5e:00:53:01:02:03',
  ],
  uuid: [
    '123e4567-e89b-12d3-a456-426614174000',
    '123E4567E89B12D3A456426614174000',
    '123e4567-e89b-12d3-a456',
  ],
  hostname: [
    'example.com',
    '-a',
    'a',
    'a_b.com',
    `${'a'.repeat(64)}.com`,
    'xn--bcher-kva.ch',
    'ex ample.com',
  ],
  uri: [
    'http://example.com',
    '/x',
    'x',
    'http://exa mple.com',
    'mailto:a@b',
    'http://[::1]:80/',
    'http://a:b/',
  ],
  email: ['a@example.com', 'A <a@example.com>', 'not an email', 'a@', '@b'],
  duration: ['1s', '1d', '5 seconds', '1h30', '1x', '', '-1.5h'],
  hexcolor: ['#fff', 'fff', '#ffff', '#gggggg'],
  k8sshortname: ['example', 'Example', '-a', 'a'.repeat(64)],
  k8slongname: ['a.b', 'A.b', 'a..b', `${'a'.repeat(63)}.${'b'.repeat(63)}`],
};

const PATTERN_BREAKERS = ['-!-', '', ' ', 'UPPER', 'a b', '..', '/..', 'é', '0', '-a', 'a-', '*', '%zz'];

/** A string of exactly `len` characters close to `v` that satisfies the node (falls back to filler). */
function stringOfLength(s: JsonSchemaProps, v: string, len: number): string {
  const chars = [...v];
  const fillers = ['a', '0', 'x', '-', '.', '/', 'A', 'b'];
  const tries: string[] = [];
  if (len <= chars.length) {
    tries.push(chars.slice(0, len).join(''), chars.slice(chars.length - len).join(''));
  } else {
    for (const f of fillers) {
      const pad = f.repeat(len - chars.length);
      tries.push(v + pad, pad + v, `${chars[0] ?? ''}${pad}${chars.slice(1).join('')}`);
    }
  }
  const relaxed = { ...s, minLength: undefined, maxLength: undefined };
  for (const t of tries) if ([...t].length === len && stringOk(relaxed, t)) return t;
  return tries.find((t) => [...t].length === len) ?? 'a'.repeat(len);
}

function isTransition(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

/** Options of {@link generateSamples}. */
export interface GenerateOptions {
  /** The object the walk starts from (repaired first when it is not valid). */
  readonly base: Record<string, unknown>;
  /** The version's runtime validator, which keeps the contexts the walk descends through valid. */
  readonly validator: ObjectValidator<unknown>;
  /** At most this many samples are kept (CEL, list, embedded and transition samples first). */
  readonly limit: number;
  /** The version has the status subresource: status is written through it. */
  readonly statusSubresource: boolean;
  /** At most this many schema nodes are visited. */
  readonly maxNodes?: number;
}

/** The samples of one CRD version and the rules its schema declares. */
export interface GeneratedSamples {
  /** The samples (the base first). */
  readonly samples: Sample[];
  /** Every CEL rule of the schema, with its schema path. */
  readonly rules: RuleSite[];
  /** Schema nodes the walk visited. */
  readonly nodes: number;
}

/** A schema node the walk is at: its schema, its path, and the (valid) object it is in. */
interface Site {
  readonly schema: JsonSchemaProps;
  readonly path: JsonPath;
  readonly ctx: Record<string, unknown>;
}

/** What a {@link Generator} walks. */
interface GeneratorOptions {
  readonly root: JsonSchemaProps;
  readonly base: Record<string, unknown>;
  readonly validator: ObjectValidator<unknown>;
  /** At most this many schema nodes are visited. */
  readonly maxNodes: number;
}

class Generator {
  readonly samples: Sample[] = [];
  readonly seen = new Set<string>();
  readonly rules: RuleSite[] = [];
  nodes = 0;
  readonly root: JsonSchemaProps;
  readonly validator: ObjectValidator<unknown>;
  readonly base: Record<string, unknown>;
  readonly maxNodes: number;
  via: Via = 'create';
  old: Record<string, unknown> | undefined;

  constructor({ root, base, validator, maxNodes }: GeneratorOptions) {
    this.root = root;
    this.base = base;
    this.validator = validator;
    this.maxNodes = maxNodes;
  }

  add(label: string, category: Category, object: Record<string, unknown>): void {
    this.record({ label, category, object });
  }

  /** Adds a sample of CEL rule `rule` (a transition sample when the rule reads `oldSelf`). */
  addCel(rule: string, label: string, object: Record<string, unknown>): void {
    this.record({ label, category: isTransition(rule) ? 'transition' : 'cel', object, rule });
  }

  /** Adds a sample sent as the walk sends samples now (`via`, `old`), unless already added. */
  record({ label, category, object, rule }: Pick<Sample, 'label' | 'category' | 'object' | 'rule'>): void {
    const via = this.via;
    const old = this.old;
    const key = `${via}|${JSON.stringify(object)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.samples.push({
      label,
      category,
      via,
      object,
      ...(old ? { old } : {}),
      ...(rule !== undefined ? { rule } : {}),
    });
  }

  check(obj: unknown): ValidationResult {
    return this.validator.validate(obj, this.via === 'create' ? {} : { oldObject: this.old });
  }

  /** Makes a context valid by repairing failed CEL rules with candidates derived from them. */
  repair(obj: Record<string, unknown>, focus: JsonPath = []): Record<string, unknown> | undefined {
    let cur = obj;
    for (let round = 0; round < 6; round++) {
      const r = this.check(cur);
      if (r.valid) return cur;
      const failed = r.errors.find((e) => e.source === 'cel' && e.rule);
      if (!failed) return undefined;
      const path = this.nodePathOf(cur, failed.rulePath ?? failed.path);
      if (!path) return undefined;
      const s = schemaAt(this.root, path);
      if (!s) return undefined;
      const value = getAt(cur, path);
      let fixed: Record<string, unknown> | undefined;
      let best = Number.POSITIVE_INFINITY;
      for (const c of ruleCandidates(failed.rule!, value, { schema: s, limit: 300 })) {
        const next = setAt(cur, path, c.value);
        if (getAt(next, focus) === undefined) continue;
        const rr = this.check(next);
        if (rr.errors.some((e) => e.rule === failed.rule) || rr.errors.length > r.errors.length) continue;
        if (rr.errors.length < best) {
          best = rr.errors.length;
          fixed = next;
          if (best === 0) break;
        }
      }
      if (!fixed) {
        return undefined;
      }
      cur = fixed;
    }
    return this.check(cur).valid ? cur : undefined;
  }

  /** Parses an apiserver-notation path back into a JSON path within `obj`. */
  nodePathOf(obj: unknown, p: string): JsonPath | undefined {
    if (p === '<nil>') return [];
    const out: (string | number)[] = [];
    const re = /([^.[\]]+)|\[(\d+)\]|\[([^\]]*)\]/g;
    for (const m of p.matchAll(re)) {
      if (m[1] !== undefined) out.push(m[1]);
      else if (m[2] !== undefined) out.push(Array.isArray(getAt(obj, out)) ? Number(m[2]) : m[2]);
      else out.push(m[3]!);
    }
    return getAt(obj, out) === undefined ? undefined : out;
  }

  explore(site: Site, schemaPath: string): void {
    const { schema: s, path, ctx } = site;
    if (this.nodes++ >= this.maxNodes) return;
    const v = getAt(ctx, path);
    for (const r of s['x-kubernetes-validations'] ?? []) {
      this.rules.push({ path: schemaPath, rule: r.rule });
      this.celSamples(r.rule, site);
    }
    this.mutations(site, v);
    if (isObject(v) && s.properties) {
      for (const [k, sub] of Object.entries(s.properties)) {
        if (path.length === 0 && (k === 'apiVersion' || k === 'kind' || k === 'metadata' || k === 'status'))
          continue;
        if (s['x-kubernetes-embedded-resource'] && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))
          continue;
        const child = [...path, k];
        const childSchemaPath = schemaPath ? `${schemaPath}.${k}` : k;
        if (getAt(ctx, child) !== undefined) {
          this.explore({ schema: sub, path: child, ctx }, childSchemaPath);
          continue;
        }
        const next = setAt(ctx, child, synthesize(sub, { fill: true }));
        this.add(`optional ${pathString(child)} set`, 'optional', next);
        const valid = this.repair(next, child);
        if (valid) this.explore({ schema: sub, path: child, ctx: valid }, childSchemaPath);
      }
    } else if (isObject(v) && s.additionalProperties && typeof s.additionalProperties === 'object') {
      const ap = s.additionalProperties;
      let key = Object.keys(v)[0];
      let next = ctx;
      if (key === undefined) {
        if (s.maxProperties === 0) return;
        key = 'key';
        next = setAt(ctx, [...path, key], synthesize(ap, { fill: true }));
        this.add(`map entry ${pathString([...path, key])} added`, 'optional', next);
        const valid = this.repair(next, [...path, key]);
        if (!valid) return;
        next = valid;
      }
      this.explore({ schema: ap, path: [...path, key], ctx: next }, `${schemaPath}[*]`);
    } else if (Array.isArray(v) && s.items) {
      let next = ctx;
      if (v.length === 0) {
        if (s.maxItems === 0) return;
        next = setAt(ctx, path, [synthesize(s.items, { fill: true })]);
        this.add(`item added to ${pathString(path)}`, 'optional', next);
        const valid = this.repair(next, [...path, 0]);
        if (!valid) return;
        next = valid;
      }
      this.explore({ schema: s.items, path: [...path, 0], ctx: next }, `${schemaPath}[*]`);
    }
  }

  /** CEL violations (and satisfying variants) of one rule, derived from the rule. */
  celSamples(rule: string, { schema: s, path, ctx }: Site): void {
    const transition = isTransition(rule);
    const prevVia = this.via;
    const prevOld = this.old;
    if (transition) {
      if (this.via === 'create') this.via = 'update';
      this.old = ctx;
    }
    try {
      const value = getAt(ctx, path);
      let violations = 0;
      let satisfied = 0;
      let unclean = false;
      const accept = (nodeValue: unknown) =>
        this.check(setAt(ctx, path, nodeValue)).errors.every(
          (e) => (e.source === 'cel' || e.source === 'cel-error') && e.rule,
        );
      for (const c of ruleCandidates(rule, value, { schema: s, limit: 600, accept })) {
        if (violations >= 2 && satisfied >= 1) break;
        const obj = setAt(ctx, path, c.value);
        const r = this.check(obj);
        const fails = r.errors.some((e) => e.rule === rule);
        const unevaluated = r.notEvaluated.some((n) => n.rule === rule);
        if ((fails || unevaluated) && violations < 2) {
          const clean = r.errors.every((e) => e.rule === rule);
          if (clean || !unclean) {
            this.addCel(
              rule,
              `CEL ${rule.length > 60 ? `${rule.slice(0, 57)}…` : rule} at ${pathString(path)} violated by ${c.label}`,
              obj,
            );
            if (clean) violations++;
            else unclean = true;
          }
        } else if (!fails && r.valid && satisfied < 1 && JSON.stringify(c.value) !== JSON.stringify(value)) {
          this.addCel(rule, `CEL at ${pathString(path)} satisfied with ${c.label}`, obj);
          satisfied++;
        }
      }
    } finally {
      this.via = prevVia;
      this.old = prevOld;
    }
  }

  mutations(site: Site, v: unknown): void {
    const { schema: s, path, ctx } = site;
    if (path.length === 0) return;
    const at = (label: string, category: Category, value: unknown) =>
      this.add(`${label} at ${pathString(path)}`, category, setAt(ctx, path, value));
    at(s.nullable ? 'null (nullable)' : 'null (not nullable)', 'nullable', null);
    if (s['x-kubernetes-int-or-string']) {
      at('int-or-string: string', 'type', stringFor({ ...s, type: 'string' }));
      at('int-or-string: integer', 'type', 7);
      at('int-or-string: float', 'type', 1.5);
      at('int-or-string: boolean', 'type', true);
      if (typeof s.pattern === 'string') this.stringMutations(site, stringFor({ ...s, type: 'string' }));
      return;
    }
    if (s['x-kubernetes-preserve-unknown-fields'] && !s.type) {
      at('preserved arbitrary value', 'unknown', { any: [1, 'two', { three: true }] });
      return;
    }
    switch (s.type) {
      case 'string':
        at('wrong type (integer for string)', 'type', 123);
        at('wrong type (object for string)', 'type', { a: 1 });
        if (typeof v === 'string') this.stringMutations(site, v);
        break;
      case 'integer':
      case 'number':
        at(`wrong type (string for ${s.type})`, 'type', '1');
        if (s.type === 'integer') at('wrong type (float for integer)', 'type', 1.5);
        this.numberMutations(site);
        break;
      case 'boolean':
        at('wrong type (string for boolean)', 'type', 'true');
        at('boolean true', 'boundary', true);
        break;
      case 'array':
        at('wrong type (string for list)', 'type', 'x');
        at('wrong type (object for list)', 'type', { a: 1 });
        if (Array.isArray(v)) this.arrayMutations(site, v);
        break;
      case 'object':
        at('wrong type (string for object)', 'type', 'x');
        at('wrong type (list for object)', 'type', [1]);
        if (isObject(v)) this.objectMutations(site, v);
        break;
      case undefined:
        // An untyped schema (no type, fields not preserved) has no type to get wrong.
        break;
    }
  }

  stringMutations({ schema: s, path, ctx }: Site, v: string): void {
    const at = (label: string, category: Category, value: unknown) =>
      this.add(`${label} at ${pathString(path)}`, category, setAt(ctx, path, value));
    if (typeof s.maxLength === 'number' && s.maxLength <= 70000) {
      at('maxLength', 'boundary', stringOfLength(s, v, s.maxLength));
      at('maxLength+1', 'boundary', stringOfLength(s, v, s.maxLength + 1));
      if (s.maxLength >= 2)
        at('maxLength with a multi-byte character', 'boundary', `${stringOfLength(s, v, s.maxLength - 1)}é`);
    }
    if (typeof s.minLength === 'number') {
      at('minLength', 'boundary', stringOfLength(s, v, s.minLength));
      if (s.minLength > 0) at('minLength-1', 'boundary', stringOfLength(s, v, s.minLength - 1));
    }
    if (s.enum?.length) {
      for (const e of s.enum.slice(0, 12)) at(`enum ${JSON.stringify(e)}`, 'enum', e);
      at('not in enum', 'enum', 'NotAnEnumValue');
      const first = s.enum.find((e) => typeof e === 'string');
      if (typeof first === 'string' && first.toLowerCase() !== first)
        at('enum in the wrong case', 'enum', first.toLowerCase());
    }
    if (typeof s.pattern === 'string') {
      let re: Re2 | undefined;
      try {
        re = compileRe2(s.pattern);
      } catch {
        re = undefined;
      }
      const breakers = PATTERN_BREAKERS.filter((b) => !re?.test(b));
      for (const b of breakers.slice(0, 2)) at(`pattern violation ${JSON.stringify(b)}`, 'pattern', b);
      const near = `${v}-`;
      at(`pattern near miss ${JSON.stringify(near)}`, 'pattern', near);
    }
    if (typeof s.format === 'string') {
      const samples = FORMAT_SAMPLES[s.format.replaceAll('-', '')];
      for (const f of samples ?? ['not a valid value'])
        at(`format ${s.format} ${JSON.stringify(f)}`, 'format', f);
    }
  }

  numberMutations({ schema: s, path, ctx }: Site): void {
    const at = (label: string, value: unknown, category: Category = 'boundary') =>
      this.add(`${label} at ${pathString(path)}`, category, setAt(ctx, path, value));
    const step = s.type === 'integer' ? 1 : 0.5;
    if (typeof s.minimum === 'number') {
      at(s.exclusiveMinimum ? 'exclusive minimum' : 'minimum', s.minimum);
      at(
        s.exclusiveMinimum ? 'exclusive minimum+step' : 'minimum-step',
        s.exclusiveMinimum ? s.minimum + step : s.minimum - step,
      );
    }
    if (typeof s.maximum === 'number') {
      at(s.exclusiveMaximum ? 'exclusive maximum' : 'maximum', s.maximum);
      at(
        s.exclusiveMaximum ? 'exclusive maximum-step' : 'maximum+step',
        s.exclusiveMaximum ? s.maximum - step : s.maximum + step,
      );
    }
    if (typeof s.multipleOf === 'number') {
      const m = s.multipleOf;
      at('multiple', m * 3);
      at('not a multiple', m >= 1 ? m * 3 + 1 : m * 3 + m / 2);
      if (m < 1) at('integer against a fractional multipleOf', 3);
    }
    if (s.enum?.length) {
      for (const e of s.enum.slice(0, 8)) at(`enum ${JSON.stringify(e)}`, e, 'enum');
      at('not in enum', 987654, 'enum');
    }
    if (s.format === 'int32') at('int32 overflow', 2 ** 31);
    if (s.type === 'number') at('float value', 0.25);
    at('negative', -1);
  }

  arrayMutations({ schema: s, path, ctx }: Site, v: unknown[]): void {
    const at = (label: string, category: Category, value: unknown) =>
      this.add(`${label} at ${pathString(path)}`, category, setAt(ctx, path, value));
    const items = s.items ?? {};
    const type = s['x-kubernetes-list-type'];
    const distinct = (n: number): unknown[] => {
      const first = v[0] ?? synthesize(items, { fill: true });
      return Array.from({ length: n }, (_, i) => variant(first, i, s));
    };
    sizeBoundaries(at, { size: 'Items', min: s.minItems, max: s.maxItems }, distinct);
    at('empty list', 'boundary', []);
    at('null item', 'nullable', [...v, null]);
    if (v.length === 0) v = [synthesize(items, { fill: true })];
    if (type === 'set') {
      at('duplicate item in a set', 'list-set', [...v, v[0]]);
      at('duplicate items twice in a set', 'list-set', [v[0], ...v, v[0]]);
    } else if (type === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const first = v[0];
      if (isObject(first)) {
        const other = changeNonKey(first, keys, items);
        at(`duplicate key ${keys.join(',')} in a map list`, 'list-map', [...v, other]);
        if (keys.length > 1) {
          const partial = { ...first, [keys[keys.length - 1]!]: variant(first, 1, s) };
          const k = keys[keys.length - 1]!;
          at(`map list items differing only in key ${k}`, 'list-map', [
            ...v,
            { ...first, [k]: (partial as Record<string, unknown>)[k] },
          ]);
        }
        const noKey = { ...first };
        for (const k of keys) delete noKey[k];
        at('map list items without keys', 'list-map', [noKey, { ...noKey }]);
      }
      at('scalar item in a map list', 'list-map', [...v, 'x']);
    } else {
      at('duplicate item in an atomic list', 'list-set', [...v, v[0]]);
    }
  }

  objectMutations({ schema: s, path, ctx }: Site, v: Record<string, unknown>): void {
    const at = (label: string, category: Category, value: unknown) =>
      this.add(`${label} at ${pathString(path)}`, category, setAt(ctx, path, value));
    for (const k of s.required ?? []) at(`missing required ${k}`, 'required', { ...v, [k]: undefined });
    if (s.properties) {
      at('unknown field (pruned)', 'unknown', { ...v, zzUnknownField: 'x' });
      at('unknown nested field (pruned)', 'unknown', { ...v, zzUnknown: { deep: [1, 2] } });
    }
    if (s['x-kubernetes-preserve-unknown-fields'])
      at('unknown field (preserved)', 'unknown', { ...v, zzKept: { a: 1 } });
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (ap) {
      const entry = Object.values(v)[0] ?? synthesize(ap, { fill: true });
      const withKeys = (n: number) =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, entry]));
      sizeBoundaries(at, { size: 'Properties', min: s.minProperties, max: s.maxProperties }, withKeys);
      at('null map value', 'nullable', { ...v, nullKey: null });
      at('odd map key', 'boundary', { ...v, 'a/b.c-d_e': entry });
    } else if (s.properties) {
      const props = Object.keys(s.properties);
      if (typeof s.maxProperties === 'number') {
        const full = { ...v };
        for (const k of props)
          if (full[k] === undefined) full[k] = synthesize(s.properties[k]!, { fill: true });
        at('all fields set (maxProperties)', 'boundary', full);
      }
      if (typeof s.minProperties === 'number') at('no fields (minProperties)', 'boundary', {});
    }
    if (s['x-kubernetes-embedded-resource']) {
      const e = (label: string, value: Record<string, unknown>) =>
        at(`embedded resource: ${label}`, 'embedded', value);
      e('no apiVersion', { ...v, apiVersion: undefined });
      e('no kind', { ...v, kind: undefined });
      e('neither apiVersion nor kind', { ...v, apiVersion: undefined, kind: undefined });
      e('empty kind', { ...v, kind: '' });
      e('empty apiVersion', { ...v, apiVersion: '' });
      e('apiVersion with two slashes', { ...v, apiVersion: 'a/b/c' });
      e('kind that is not a DNS label', { ...v, kind: 'Bad_Kind' });
      e('kind starting with a digit', { ...v, kind: '1abc' });
      e('valid apiVersion and kind', { ...v, apiVersion: 'apps/v1', kind: 'Deployment' });
      e('metadata with a bad label key', { ...v, metadata: { labels: { 'bad key!': 'x' } } });
      e('metadata with a bad label value', { ...v, metadata: { labels: { good: 'bad value!' } } });
      e('metadata with an upper-case name', { ...v, metadata: { name: 'UPPER' } });
      e('metadata with a slash in the name', { ...v, metadata: { name: 'a/b' } });
      e('metadata with a bad namespace', { ...v, metadata: { name: 'a', namespace: 'Bad_NS' } });
      e('metadata with an unknown field', { ...v, metadata: { name: 'a', zzUnknown: 1 } });
      e('metadata with a bad annotation key', { ...v, metadata: { annotations: { '/x': 'y' } } });
      e('metadata with a bad finalizer', { ...v, metadata: { finalizers: ['a/b/c'] } });
    }
  }
}

function variant(item: unknown, i: number, s: JsonSchemaProps): unknown {
  if (i === 0) return structuredClone(item);
  const items = s.items ?? {};
  if (typeof item === 'string') {
    for (const c of [
      `${item}${i}`,
      `${item}-${'x'.repeat(i)}`,
      `${'a'.repeat(i)}${item}`,
      `${item}${'a'.repeat(i)}`,
      `${'b'.repeat(i)}`,
    ])
      if (stringOk(items, c)) return c;
    return `${item}${i}`;
  }
  if (typeof item === 'number') return item + i;
  if (isObject(item)) {
    const keys =
      s['x-kubernetes-list-map-keys'] ?? Object.keys(item).filter((k) => typeof item[k] !== 'object');
    const out = { ...item };
    for (const k of keys) {
      const sub = items.properties?.[k];
      if (out[k] === undefined && sub) out[k] = synthesize(sub, { fill: true });
      if (out[k] !== undefined) out[k] = variant(out[k], i, { items: sub ?? {} });
    }
    return out;
  }
  return item;
}

function changeNonKey(
  item: Record<string, unknown>,
  keys: readonly string[],
  items: JsonSchemaProps,
): Record<string, unknown> {
  const out = { ...item };
  for (const [k, sub] of Object.entries(items.properties ?? {})) {
    if (keys.includes(k)) continue;
    if (sub.type === 'string') {
      const alt = stringFor(sub);
      const cur = out[k];
      out[k] =
        cur === alt
          ? stringOfLength(sub, alt, Math.max([...alt].length, 1)) + (stringOk(sub, `${alt}x`) ? 'x' : '')
          : alt;
      return out;
    }
    if (sub.type === 'integer' || sub.type === 'number') {
      out[k] = numberFor(sub) + (out[k] === numberFor(sub) ? 1 : 0);
      return out;
    }
  }
  return out;
}

/**
 * The samples of one CRD version: a walk from `options.base` (which must be valid) over every
 * reachable schema node, plus status samples when the version has the status subresource.
 * Deterministic; when there are more than `options.limit`, CEL, list, embedded and transition
 * samples are kept and the rest are thinned evenly along the walk.
 */
export function generateSamples(root: JsonSchemaProps, options: GenerateOptions): GeneratedSamples {
  const { base, validator } = options;
  const g = new Generator({ root, base, validator, maxNodes: options.maxNodes ?? 6000 });
  const valid = g.repair(base) ?? base;
  g.add('base', 'base', valid);
  g.explore({ schema: root, path: [], ctx: valid }, '');
  const status = root.properties?.status;
  if (status) {
    const statusCtx = g.repair(setAt(valid, ['status'], synthesize(status, { fill: true })));
    if (statusCtx) {
      if (options.statusSubresource) {
        g.via = 'status';
        g.old = valid;
      }
      g.add('status set', 'optional', statusCtx);
      g.explore({ schema: status, path: ['status'], ctx: statusCtx }, 'status');
    }
  }
  return { samples: thin(g.samples, options.limit), rules: g.rules, nodes: g.nodes };
}

/** A `min…`/`max…` pair of a schema (`minItems`/`maxItems`, `minProperties`/`maxProperties`). */
interface SizeBounds {
  readonly size: 'Items' | 'Properties';
  readonly min: number | undefined;
  readonly max: number | undefined;
}

/**
 * Boundary samples of a `min…`/`max…` pair: the maximum and one more (up to 300), the minimum
 * and one less; `make(n)` builds a value of size `n`.
 */
function sizeBoundaries(
  at: (label: string, category: Category, value: unknown) => void,
  { size, min, max }: SizeBounds,
  make: (n: number) => unknown,
): void {
  if (typeof max === 'number' && max <= 300) {
    at(`max${size}`, 'boundary', make(max));
    at(`max${size}+1`, 'boundary', make(max + 1));
  }
  if (typeof min === 'number') {
    at(`min${size}`, 'boundary', make(min));
    if (min > 0) at(`min${size}-1`, 'boundary', make(min - 1));
  }
}

const PRIORITY: Partial<Record<Category, number>> = {
  base: 0,
  cel: 0,
  transition: 0,
  'hand-written': 0,
  'list-set': 1,
  'list-map': 1,
  embedded: 1,
};

function thin(samples: Sample[], limit: number): Sample[] {
  if (samples.length <= limit) return samples;
  const keep = new Set<Sample>();
  for (const p of [0, 1]) {
    for (const s of samples) if ((PRIORITY[s.category] ?? 2) === p && keep.size < limit) keep.add(s);
  }
  const rest = samples.filter((s) => !keep.has(s));
  const room = limit - keep.size;
  for (let i = 0; i < room && rest.length > 0; i++) keep.add(rest[Math.floor((i * rest.length) / room)]!);
  return samples.filter((s) => keep.has(s));
}
