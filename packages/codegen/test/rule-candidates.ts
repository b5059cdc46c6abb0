// Derives candidate values that may violate (or satisfy) a CEL rule from the rule itself: the
// fields it reads, the literals it compares them with, the lists it iterates and their sizes.

import type { JsonSchemaProps } from '@kubeloom/codegen-runtime';
import { type CelExpr, celChildren, parseCel } from '@kubeloom/codegen-runtime';
import {
  distinctify,
  getAt,
  type JsonPath,
  schemaAt,
  setAt,
  stringFor,
  stringOk,
  synthesize,
} from './synthesize.ts';

const MACROS = new Set(['all', 'exists', 'exists_one', 'filter', 'map']);

/** Valid values of a few formats, in increasing order (for comparisons between fields). */
const FORMAT_VALUES: Record<string, readonly string[]> = {
  duration: ['1s', '1m', '1h'],
  datetime: ['2024-01-01T00:00:00Z', '2025-06-01T12:00:00Z'],
  date: ['2024-01-01', '2025-06-01'],
};

type Seg = string | number | '*';
interface Ref {
  readonly path: readonly Seg[];
  /** The variable ranges over the keys of a map. */
  readonly keys?: boolean;
}

function unescapeField(field: string): string {
  const m = /^__(.+)__$/.exec(field);
  if (m && !m[1]!.includes('__')) return m[1]!;
  return field
    .replaceAll('__underscores__', '__')
    .replaceAll('__dot__', '.')
    .replaceAll('__dash__', '-')
    .replaceAll('__slash__', '/');
}

interface Found {
  readonly refs: Ref[];
  readonly strings: Set<string>;
  readonly numbers: Set<number>;
}

function resolve(e: CelExpr, env: ReadonlyMap<string, Ref>): Ref | undefined {
  switch (e.kind) {
    case 'ident':
      return e.name === 'self' ? { path: [] } : env.get(e.name);
    case 'select': {
      const r = resolve(e.operand, env);
      return r && !r.keys ? { path: [...r.path, unescapeField(e.field)] } : undefined;
    }
    case 'index': {
      const r = resolve(e.operand, env);
      if (!r || r.keys || e.index.kind !== 'literal') return undefined;
      const v = e.index.value;
      if (typeof v === 'bigint') return { path: [...r.path, Number(v)] };
      if (typeof v === 'string') return { path: [...r.path, v] };
      return undefined;
    }
    default:
      return undefined;
  }
}

/** What {@link collect} fills, and the schema of the node the rule sits on. */
interface Collecting {
  readonly out: Found;
  readonly schema: JsonSchemaProps;
}

function collect(e: CelExpr, env: Map<string, Ref>, c: Collecting): void {
  const { out, schema } = c;
  const r = resolve(e, env);
  if (r) out.refs.push(r);
  switch (e.kind) {
    case 'literal':
      if (typeof e.value === 'string') out.strings.add(e.value);
      else if (typeof e.value === 'bigint' || typeof e.value === 'number') out.numbers.add(Number(e.value));
      return;
    case 'call': {
      if (e.target) collect(e.target, env, c);
      const v = e.args[0];
      if (e.target && MACROS.has(e.fn) && v?.kind === 'ident') {
        const range = resolve(e.target, env);
        const inner = new Map(env);
        if (range) {
          const s = concreteSchema(schema, range.path);
          const isMap = s?.type === 'object' && typeof s.additionalProperties === 'object';
          inner.set(v.name, isMap ? { path: range.path, keys: true } : { path: [...range.path, '*'] });
        } else inner.delete(v.name);
        for (const a of e.args.slice(1)) collect(a, inner, c);
        return;
      }
      for (const a of e.args) collect(a, env, c);
      return;
    }
    default:
      for (const child of celChildren(e)) collect(child, env, c);
  }
}

function concreteSchema(schema: JsonSchemaProps, path: readonly Seg[]): JsonSchemaProps | undefined {
  return schemaAt(
    schema,
    path.map((s) => (s === '*' ? 0 : s)),
  );
}

/** Options of {@link ruleCandidates}. */
export interface RuleCandidateOptions {
  /** The schema of the node the rule sits on. */
  readonly schema: JsonSchemaProps;
  /** At most this many candidates (default 600). */
  readonly limit?: number;
  /** Whether the schema accepts a node value: pairs of changes are kept only when it does (default: all). */
  readonly accept?: (v: unknown) => boolean;
}

/** One candidate: the mutated node value and what was changed. */
export interface RuleCandidate {
  /** What the candidate changes, e.g. `type="URI"`. */
  readonly label: string;
  /** The node value. */
  readonly value: unknown;
}

interface Change {
  readonly label: string;
  apply(v: unknown): unknown;
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 40 ? `${s.slice(0, 37)}…` : s;
}

function valuesFor(s: JsonSchemaProps | undefined, cur: unknown, found: Found): unknown[] {
  const out: unknown[] = [];
  if (!s) return out;
  if (cur === undefined) out.push(synthesize(s, { fill: true }));
  else out.push(undefined);
  const isString = s.type === 'string' || s['x-kubernetes-int-or-string'];
  const isNumber = s.type === 'integer' || s.type === 'number' || s['x-kubernetes-int-or-string'];
  if (isString) {
    const strings: string[] = [...(FORMAT_VALUES[String(s.format ?? '').replaceAll('-', '')] ?? [])];
    for (const l of found.strings) strings.push(l, `${l}x`, `x${l}`, `/a${l}b`, `${l}${l}`);
    strings.push('', 'INVALID!', stringFor(s), 'a'.repeat(300));
    strings.push('example.com', '10.0.0.1', 'fd00::1', '/path', 'http://example.com', '1s', 'a.b.c.d');
    for (const v of s.enum ?? []) if (typeof v === 'string') strings.push(v);
    // values the schema accepts first: they make the cleanest violations
    out.push(...strings.filter((x) => stringOk(s, x)), ...strings.filter((x) => !stringOk(s, x)));
  }
  if (isNumber) {
    for (const n of found.numbers) out.push(n, n - 1, n + 1);
    out.push(0, -1, 65536);
    for (const v of s.enum ?? []) out.push(v);
  }
  if (s.type === 'boolean') out.push(true, false);
  if (s.type === 'array' && s.items) {
    const item = synthesize(s.items, { fill: true });
    out.push([], [item]);
    if (Array.isArray(cur) && cur.length > 0) out.push([...cur, cur[0]]);
    for (const n of found.numbers) {
      if (n >= 0 && n < 200)
        out.push(Array.from({ length: n + 1 }, (_, i) => distinctify(structuredClone(item), i, s)));
    }
  }
  if (s.type === 'object') {
    out.push(synthesize(s, { fill: true }), {});
    if (cur !== null && typeof cur === 'object' && !Array.isArray(cur)) {
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        const x = (cur as Record<string, unknown>)[k];
        if (typeof x === 'string')
          out.push({
            ...cur,
            [k]:
              stringFor({ ...sub, enum: sub.enum?.filter((e) => e !== x) }) === x
                ? `${x}x`
                : stringFor({ ...sub, enum: sub.enum?.filter((e) => e !== x) }),
          });
        else if (typeof x === 'number') out.push({ ...cur, [k]: x + 1 });
        else if (typeof x === 'boolean') out.push({ ...cur, [k]: !x });
        else if (x === undefined) out.push({ ...cur, [k]: synthesize(sub, { fill: true }) });
      }
    }
  }
  if (typeof cur === 'string') out.push(`${cur}x`, `${cur}-changed`);
  if (typeof cur === 'number') out.push(cur + 1);
  return out;
}

/**
 * Candidate values for the node a rule sits on, derived from the rule: each field the rule reads
 * removed, added, or set to the rule's literals and their neighbours; lists it iterates extended
 * with duplicates and modified copies; map keys it checks set to literal and malformed keys; and
 * pairs of such changes. At most `options.limit` candidates; unparsable rules give none.
 */
export function ruleCandidates(
  rule: string,
  value: unknown,
  { schema, limit = 600, accept = () => true }: RuleCandidateOptions,
): RuleCandidate[] {
  let expr: CelExpr;
  try {
    expr = parseCel(rule);
  } catch {
    return [];
  }
  const found: Found = { refs: [], strings: new Set(), numbers: new Set() };
  collect(expr, new Map(), { out: found, schema });
  const groups: Change[][] = [];
  let changes: Change[] = [];
  const seenRefs = new Set<string>();
  for (const ref of found.refs) {
    const key = JSON.stringify(ref);
    if (seenRefs.has(key)) continue;
    seenRefs.add(key);
    changes = [];
    groups.push(changes);
    const star = ref.path.indexOf('*');
    if (ref.keys) {
      const mapPath = ref.path as JsonPath;
      const ms = schemaAt(schema, mapPath);
      const vs = ms && typeof ms.additionalProperties === 'object' ? ms.additionalProperties : undefined;
      const keys = [
        ...found.strings,
        'Invalid Key!',
        'a/b/c',
        `${'x'.repeat(300)}/y`,
        'example.com/key',
        'key',
      ];
      for (const k of keys) {
        changes.push({
          label: `${ref.path.join('.')}[${short(k)}] added`,
          apply: (v) => {
            const map = (getAt(v, mapPath) as Record<string, unknown> | undefined) ?? {};
            return setAt(v, mapPath, { ...map, [k]: vs ? synthesize(vs, { fill: true }) : 'x' });
          },
        });
      }
      continue;
    }
    if (star >= 0) {
      const listPath = ref.path.slice(0, star) as JsonPath;
      const rest = ref.path.slice(star + 1).map((s) => (s === '*' ? 0 : s)) as JsonPath;
      const ls = schemaAt(schema, listPath);
      if (!ls?.items) continue;
      const itemSchema = ls.items;
      const current = (v: unknown): unknown[] => {
        const list = getAt(v, listPath);
        return Array.isArray(list) ? list : [];
      };
      const firstOf = (v: unknown): unknown => current(v)[0] ?? synthesize(itemSchema, { fill: true });
      changes.push({
        label: `${listPath.join('.')} first item duplicated`,
        apply: (v) => {
          const l = current(v);
          const f = firstOf(v);
          return setAt(v, listPath, l.length ? [...l, f] : [f, f]);
        },
      });
      const list = getAt(value, listPath);
      const first = Array.isArray(list) && list.length > 0 ? list[0] : synthesize(itemSchema, { fill: true });
      for (const f of valuesFor(schemaAt(itemSchema, rest), getAt(first, rest), found)) {
        const edit = (item: unknown) => (rest.length === 0 ? f : setAt(item, rest, f));
        const tail = rest.length ? `.${rest.join('.')}` : '';
        changes.push({
          label: `${listPath.join('.')}[*]${tail}=${short(f)} (appended)`,
          apply: (v) =>
            setAt(v, listPath, [...(current(v).length ? current(v) : [firstOf(v)]), edit(firstOf(v))]),
        });
        changes.push({
          label: `${listPath.join('.')}[0]${tail}=${short(f)}`,
          apply: (v) => setAt(v, listPath, [edit(firstOf(v)), ...current(v).slice(1)]),
        });
        changes.push({
          label: `${listPath.join('.')}[all]${tail}=${short(f)}`,
          apply: (v) => setAt(v, listPath, (current(v).length ? current(v) : [firstOf(v)]).map(edit)),
        });
      }
      continue;
    }
    const p = ref.path as JsonPath;
    for (const f of valuesFor(schemaAt(schema, p), getAt(value, p), found)) {
      changes.push({
        label: `${p.join('.') || 'self'}=${short(f)}`,
        apply: (v) => (p.length === 0 ? f : setAt(v, p, f)),
      });
    }
  }
  // one field set to another's value (rules comparing two fields)
  const plain = [
    ...new Map(
      found.refs
        .filter((r) => !r.keys && !r.path.includes('*') && r.path.length > 0)
        .map((r) => [JSON.stringify(r.path), r.path as JsonPath]),
    ).values(),
  ];
  const copies: Change[] = [];
  for (const a of plain) {
    for (const b of plain) {
      if (a === b) continue;
      copies.push({
        label: `${a.join('.')}=${b.join('.')}`,
        apply: (v) => {
          const x = getAt(v, b);
          return x === undefined ? undefined : setAt(v, a, x);
        },
      });
    }
  }
  if (copies.length > 0) groups.push(copies);
  const out: RuleCandidate[] = [];
  const seen = new Set<string>();
  const push = (label: string, v: unknown) => {
    if (v === undefined || out.length >= limit) return;
    const k = JSON.stringify(v);
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ label, value: v });
  };
  const safe = (c: Change, v: unknown): unknown => {
    try {
      return c.apply(v);
    } catch {
      return undefined;
    }
  };
  for (const g of groups) for (const c of g) push(c.label, safe(c, value));
  // pairs of changes the schema accepts (a rule often needs two fields set together)
  const heads = groups.map((g) =>
    g
      .filter((c) => {
        const v = safe(c, value);
        return v !== undefined && accept(v);
      })
      .slice(0, 12),
  );
  for (const [i, ga] of heads.entries()) {
    for (const a of ga) {
      const va = safe(a, value);
      if (va === undefined) continue;
      for (const [j, gb] of heads.entries()) {
        if (i === j) continue;
        for (const b of gb) push(`${a.label}, ${b.label}`, safe(b, va));
      }
    }
  }
  return out;
}
