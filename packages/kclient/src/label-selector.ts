import type { V1LabelSelector } from '@kubernetes/client-node';

/**
 * A label selector: the string form (`app=web,tier!=db,env in (a,b),!legacy`) or the structured
 * form of `metav1.LabelSelector` (`{ matchLabels, matchExpressions }`). An empty selector
 * (`''` or `{}`) matches everything.
 */
export type LabelSelector = string | V1LabelSelector;

/** A compiled label selector: true when a label set matches. */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

type Requirement =
  | { readonly op: 'exists' | 'notExists'; readonly key: string }
  | { readonly op: 'in' | 'notIn'; readonly key: string; readonly values: ReadonlySet<string> }
  | { readonly op: 'gt' | 'lt'; readonly key: string; readonly value: number };

const KEY = '[A-Za-z0-9./_-]+';
const VALUE = '[A-Za-z0-9._-]*';
const EXISTS = new RegExp(`^(${KEY})$`);
const NOT_EXISTS = new RegExp(`^!\\s*(${KEY})$`);
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`);
const EQUALITY = new RegExp(`^(${KEY})\\s*(==|=|!=|>|<)\\s*(${VALUE})$`);

/** Splits on commas that are not inside parentheses. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim());
}

function invalid(selector: string, why: string): TypeError {
  return new TypeError(`invalid label selector "${selector}": ${why}`);
}

function parseString(selector: string): Requirement[] {
  if (selector.trim() === '') return [];
  const out: Requirement[] = [];
  for (const part of splitRequirements(selector)) {
    if (part === '') throw invalid(selector, 'empty requirement (stray comma?)');
    let m = NOT_EXISTS.exec(part);
    if (m) {
      out.push({ op: 'notExists', key: m[1]! });
      continue;
    }
    m = SET.exec(part);
    if (m) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      if (values.length === 0) throw invalid(selector, `"${part}" needs at least one value`);
      out.push({ op: m[2] === 'in' ? 'in' : 'notIn', key: m[1]!, values: new Set(values) });
      continue;
    }
    m = EQUALITY.exec(part);
    if (m) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      if (op === '>' || op === '<') {
        if (!/^-?\d+$/.test(value)) throw invalid(selector, `"${part}" compares with a non-integer`);
        out.push({ op: op === '>' ? 'gt' : 'lt', key, value: Number(value) });
      } else {
        out.push({ op: op === '!=' ? 'notIn' : 'in', key, values: new Set([value]) });
      }
      continue;
    }
    m = EXISTS.exec(part);
    if (m) {
      out.push({ op: 'exists', key: m[1]! });
      continue;
    }
    throw invalid(selector, `cannot parse "${part}"`);
  }
  return out;
}

function parseStructured(selector: V1LabelSelector): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    out.push({ op: 'in', key, values: new Set([value]) });
  }
  for (const e of selector.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          throw new TypeError(`invalid label selector: operator ${e.operator} on "${e.key}" needs values`);
        }
        out.push({ op: e.operator === 'In' ? 'in' : 'notIn', key: e.key, values: new Set(values) });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          throw new TypeError(`invalid label selector: operator ${e.operator} on "${e.key}" takes no values`);
        }
        out.push({ op: e.operator === 'Exists' ? 'exists' : 'notExists', key: e.key });
        break;
      default:
        throw new TypeError(
          `invalid label selector: unknown operator "${e.operator}" on "${e.key}" (In, NotIn, Exists, DoesNotExist)`,
        );
    }
  }
  return out;
}

function matchesRequirement(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'exists':
      return has;
    case 'notExists':
      return !has;
    case 'in':
      return has && r.values.has(value!);
    case 'notIn':
      return !has || !r.values.has(value!);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const n = Number(value);
      return r.op === 'gt' ? n > r.value : n < r.value;
    }
  }
}

/**
 * Compiles a label selector into a matcher, with the apiserver's semantics (`!=` and `notin`
 * also match objects without the label; `key` alone means the label exists).
 *
 * @throws TypeError naming the selector and the part that does not parse.
 */
export function labelMatcher(selector: LabelSelector | undefined): LabelMatcher {
  if (selector === undefined) return () => true;
  const requirements = typeof selector === 'string' ? parseString(selector) : parseStructured(selector);
  if (requirements.length === 0) return () => true;
  return (labels) => {
    const l = labels ?? {};
    return requirements.every((r) => matchesRequirement(r, l));
  };
}

/**
 * The string form of a selector, for server-side filtering (`?labelSelector=`). A string is
 * validated and returned as is.
 *
 * @throws TypeError when the selector is invalid.
 */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  if (selector === undefined) return undefined;
  if (typeof selector === 'string') {
    parseString(selector);
    return selector.trim() === '' ? undefined : selector;
  }
  const parts: string[] = [];
  for (const r of parseStructured(selector)) {
    switch (r.op) {
      case 'exists':
        parts.push(r.key);
        break;
      case 'notExists':
        parts.push(`!${r.key}`);
        break;
      case 'in':
      case 'notIn':
        parts.push(`${r.key} ${r.op === 'in' ? 'in' : 'notin'} (${[...r.values].sort().join(',')})`);
        break;
      case 'gt':
      case 'lt':
        parts.push(`${r.key}${r.op === 'gt' ? '>' : '<'}${r.value}`);
        break;
    }
  }
  return parts.length === 0 ? undefined : parts.join(',');
}
