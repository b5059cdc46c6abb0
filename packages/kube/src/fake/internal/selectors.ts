import { isObject, type JsonObject } from './json.ts';

/** One parsed label requirement. */
interface LabelRequirement {
  readonly key: string;
  readonly op: 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';
  readonly values: readonly string[];
}

/** A compiled selector: a predicate on an object. */
export type ObjectPredicate = (obj: JsonObject) => boolean;

/** Thrown for a selector the apiserver would refuse (becomes a 400 BadRequest). */
export class SelectorError extends Error {}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new SelectorError("unable to parse requirement: found '', expected: ',' or ')'");
  parts.push(text.slice(start));
  return parts;
}

function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 316) {
    throw new SelectorError(
      `unable to parse requirement: invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) {
    throw new SelectorError(
      `unable to parse requirement: invalid label value: "${value}": at key: must be no more than 63 characters and consist of alphanumeric characters, '-', '_' or '.'`,
    );
  }
  return value;
}

function parseRequirement(raw: string): LabelRequirement {
  const text = raw.trim();
  if (text === '') throw new SelectorError("found '', expected: identifier");
  if (text.startsWith('!')) return { key: checkKey(text.slice(1).trim()), op: '!', values: [] };
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (setMatch) {
    const values = setMatch[3]!.split(',').map((v) => checkValue(v.trim()));
    return { key: checkKey(setMatch[1]!), op: setMatch[2] as 'in' | 'notin', values };
  }
  const opMatch = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(.*)$/.exec(text);
  if (opMatch) {
    const key = checkKey(opMatch[1]!);
    const value = opMatch[3]!.trim();
    const op = opMatch[2]!;
    if (op === '<' || op === '>') {
      if (!/^-?\d+$/.test(value))
        throw new SelectorError(
          `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      return { key, op: op === '<' ? 'lt' : 'gt', values: [value] };
    }
    return { key, op: op === '!=' ? '!=' : '=', values: [checkValue(value)] };
  }
  if (/\s/.test(text))
    throw new SelectorError(
      `unable to parse requirement: found '${text.split(/\s+/)[1] ?? ''}', expected: in, notin, =, ==, !=, gt, lt`,
    );
  return { key: checkKey(text), op: 'exists', values: [] };
}

function labelsOf(obj: JsonObject): Record<string, string> {
  const meta = obj.metadata;
  if (!isObject(meta) || !isObject(meta.labels)) return {};
  return meta.labels as Record<string, string>;
}

function matches(req: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
      return has && value === req.values[0];
    case '!=':
      return !has || value !== req.values[0];
    case 'in':
      return has && req.values.includes(value!);
    case 'notin':
      return !has || !req.values.includes(value!);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const n = Number(value);
      const bound = Number(req.values[0]);
      return req.op === 'gt' ? n > bound : n < bound;
    }
  }
}

/** Parses a label selector (`=`, `==`, `!=`, `in`, `notin`, `key`, `!key`, `>`, `<`). @throws SelectorError */
export function parseLabelSelector(selector: string | undefined): ObjectPredicate {
  if (!selector || selector.trim() === '') return () => true;
  const reqs = splitTopLevel(selector).map(parseRequirement);
  return (obj) => {
    const labels = labelsOf(obj);
    return reqs.every((r) => matches(r, labels));
  };
}

/** Field selectors each resource supports beyond `metadata.name` and `metadata.namespace` (a subset of the apiserver's tables). */
const EXTRA_FIELDS: Record<string, readonly string[]> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
};

function fieldValue(obj: JsonObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return '';
    cur = cur[part];
  }
  if (cur === undefined || cur === null)
    return path === 'spec.hostNetwork' || path === 'spec.unschedulable' ? 'false' : '';
  return String(cur);
}

/**
 * Parses a field selector for a resource (`group/plural`): `metadata.name`, `metadata.namespace`
 * and, for a few built-ins, the fields their strategies index. @throws SelectorError
 */
export function parseFieldSelector(
  selector: string | undefined,
  group: string,
  plural: string,
): ObjectPredicate {
  if (!selector || selector.trim() === '') return () => true;
  const allowed = ['metadata.name', 'metadata.namespace', ...(EXTRA_FIELDS[`${group}/${plural}`] ?? [])];
  const reqs = selector.split(',').map((raw) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${raw}'`);
    const field = m[1]!;
    if (!allowed.includes(field)) {
      throw new SelectorError(
        `"${field}" is not a known field selector: only ${allowed.map((f) => `"${f}"`).join(', ')}`,
      );
    }
    return { field, negate: m[2] === '!=', value: m[3]! };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.field) === r.value) !== r.negate);
}
