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
          `unable to parse requirement: values[0]: Invalid value: "${value}": for 'Gt', 'Lt' operators, the value must be an integer`,
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

type FieldGetter = (obj: JsonObject) => string;

function at(path: string, absent = ''): FieldGetter {
  const parts = path.split('.');
  return (obj) => {
    let cur: unknown = obj;
    for (const part of parts) {
      if (!isObject(cur)) return absent;
      cur = cur[part];
    }
    return cur === undefined || cur === null ? absent : String(cur);
  };
}

/** The field selectors a resource supports, and how the apiserver refuses another one. */
interface FieldTable {
  readonly fields: Readonly<Record<string, FieldGetter>>;
  readonly unsupported: (field: string) => string;
}

const NAME: Record<string, FieldGetter> = { 'metadata.name': at('metadata.name') };
const NAME_NAMESPACE: Record<string, FieldGetter> = {
  ...NAME,
  'metadata.namespace': at('metadata.namespace'),
};
/** The core kinds with their own field label conversion answer this way. */
const coreUnsupported = (field: string) => `field label not supported: ${field}`;

/** The apiserver's field selector tables for the built-ins that have more than the metadata fields. */
const FIELD_TABLES: Readonly<Record<string, FieldTable>> = {
  '/pods': {
    fields: {
      ...NAME_NAMESPACE,
      'spec.nodeName': at('spec.nodeName'),
      'spec.restartPolicy': at('spec.restartPolicy'),
      'spec.schedulerName': at('spec.schedulerName'),
      'spec.serviceAccountName': at('spec.serviceAccountName'),
      'spec.hostNetwork': at('spec.hostNetwork', 'false'),
      'status.phase': at('status.phase'),
      'status.podIP': (o) => {
        const ips = isObject(o.status) ? o.status.podIPs : undefined;
        const first = Array.isArray(ips) && isObject(ips[0]) ? ips[0].ip : undefined;
        return typeof first === 'string' ? first : at('status.podIP')(o);
      },
      'status.nominatedNodeName': at('status.nominatedNodeName'),
    },
    unsupported: coreUnsupported,
  },
  '/secrets': { fields: { ...NAME_NAMESPACE, type: at('type') }, unsupported: coreUnsupported },
  '/namespaces': { fields: { ...NAME, 'status.phase': at('status.phase') }, unsupported: coreUnsupported },
  '/nodes': {
    fields: { ...NAME, 'spec.unschedulable': at('spec.unschedulable', 'false') },
    unsupported: coreUnsupported,
  },
  '/services': {
    fields: { ...NAME_NAMESPACE, 'spec.clusterIP': at('spec.clusterIP'), 'spec.type': at('spec.type') },
    unsupported: coreUnsupported,
  },
  '/events': {
    fields: {
      ...NAME_NAMESPACE,
      'involvedObject.kind': at('involvedObject.kind'),
      'involvedObject.namespace': at('involvedObject.namespace'),
      'involvedObject.name': at('involvedObject.name'),
      'involvedObject.uid': at('involvedObject.uid'),
      'involvedObject.apiVersion': at('involvedObject.apiVersion'),
      'involvedObject.resourceVersion': at('involvedObject.resourceVersion'),
      'involvedObject.fieldPath': at('involvedObject.fieldPath'),
      reason: at('reason'),
      reportingComponent: at('reportingComponent'),
      source: at('source.component'),
      type: at('type'),
    },
    unsupported: coreUnsupported,
  },
  'batch/jobs': {
    fields: { ...NAME_NAMESPACE, 'status.successful': at('status.succeeded', '0') },
    unsupported: (field) => `field label "${field}" not supported for Job`,
  },
};

const GENERIC: FieldTable = {
  fields: NAME_NAMESPACE,
  unsupported: (field) =>
    `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

/** A parsed field selector: its predicate, and the name it pins with `metadata.name=` (if any). */
export interface FieldSelector {
  /** True for the objects the selector selects. */
  readonly matches: ObjectPredicate;
  /** The one name a `metadata.name=<name>` requirement pins, which lets the apiserver read a single key. */
  readonly singleName: string | undefined;
}

/**
 * Parses a field selector for a resource (`group/plural`): `metadata.name`, `metadata.namespace`
 * and, for some built-ins (pods, secrets, events, namespaces, nodes, services, jobs), the fields
 * their strategies index, with the apiserver's error for any other field. @throws SelectorError
 */
export function parseFieldSelector(
  selector: string | undefined,
  group: string,
  plural: string,
): FieldSelector {
  if (!selector || selector.trim() === '') return { matches: () => true, singleName: undefined };
  const table = FIELD_TABLES[`${group}/${plural}`] ?? GENERIC;
  const reqs = selector.split(',').map((raw) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${raw}'`);
    const field = m[1]!;
    const get = table.fields[field];
    if (!get) throw new SelectorError(table.unsupported(field));
    return { field, get, negate: m[2] === '!=', value: m[3]! };
  });
  const pinned = reqs.find((r) => r.field === 'metadata.name' && !r.negate);
  return {
    matches: (obj) => reqs.every((r) => (r.get(obj) === r.value) !== r.negate),
    singleName: pinned?.value,
  };
}
