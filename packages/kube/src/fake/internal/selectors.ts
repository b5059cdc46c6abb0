import { parseFieldSelector as parseFieldSelectorGrammar } from '../../field-selector.ts';
import { parseLabelSelector } from '../../label-selector.ts';
import { SelectorError } from '../../selector-error.ts';
import { isObject, type JsonObject } from './json.ts';

/** A compiled selector: a predicate on an object. */
export type ObjectPredicate = (obj: JsonObject) => boolean;

function labelsOf(obj: JsonObject): Record<string, string> {
  const meta = obj.metadata;
  if (!isObject(meta) || !isObject(meta.labels)) return {};
  return meta.labels as Record<string, string>;
}

/**
 * A label selector as the apiserver reads `?labelSelector=`: kube's one parser.
 *
 * @throws SelectorError with the apiserver's message as `detail`.
 */
export function labelSelectorPredicate(selector: string | undefined): ObjectPredicate {
  if (!selector) return () => true;
  const parsed = parseLabelSelector(selector);
  if (parsed.empty) return () => true;
  return (obj) => parsed.matches(labelsOf(obj));
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
 * A field selector for a resource (`group/plural`), parsed by kube's one parser: `metadata.name`, `metadata.namespace`
 * and, for some built-ins (pods, secrets, events, namespaces, nodes, services, jobs), the fields
 * their strategies index, with the apiserver's error for any other field. @throws SelectorError
 */
export function fieldSelectorOf(selector: string | undefined, group: string, plural: string): FieldSelector {
  if (!selector) return { matches: () => true, singleName: undefined };
  const parsed = parseFieldSelectorGrammar(selector);
  const table = FIELD_TABLES[`${group}/${plural}`] ?? GENERIC;
  const getters = new Map<string, FieldGetter>();
  for (const r of parsed.requirements) {
    const get = table.fields[r.field];
    if (!get) throw new SelectorError('field', selector, table.unsupported(r.field));
    getters.set(r.field, get);
  }
  return {
    matches: (obj) => parsed.matches((field) => getters.get(field)!(obj)),
    singleName: parsed.requiresExactMatch('metadata.name'),
  };
}
