import { isObject } from './json-value.ts';
import { childPath, goJson, type ValidationError } from './validation-error.ts';

type Kind = 'string' | 'integer' | 'stringMap' | 'stringList' | 'objectList';

/** The fields of `ObjectMeta` and their JSON types (everything else is dropped on decoding). */
const OBJECT_META_FIELDS: Readonly<Record<string, Kind>> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'integer',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
  deletionGracePeriodSeconds: 'integer',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'objectList',
  finalizers: 'stringList',
  managedFields: 'objectList',
};

function typeOk(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'stringMap':
      return isObject(v) && Object.values(v).every((x) => typeof x === 'string' || x === null);
    case 'stringList':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'objectList':
      return Array.isArray(v) && v.every((x) => isObject(x) || x === null);
  }
}

const EXPECTED: Readonly<Record<Kind, string>> = {
  string: 'a string',
  integer: 'an integer',
  stringMap: 'a map of strings',
  stringList: 'a list of strings',
  objectList: 'a list of objects',
};

/**
 * Decodes an embedded `metadata` value as the apiserver does (into `ObjectMeta` and back): unknown
 * fields and empty values are dropped; a field of the wrong type is an error (the apiserver fails
 * to decode the request). Returns the coerced metadata (or undefined when it is not an object).
 */
export function coerceObjectMeta(
  value: unknown,
  path: string,
  errors: ValidationError[],
): Record<string, unknown> | undefined {
  if (value === null) return undefined;
  if (!isObject(value)) {
    errors.push({
      path,
      message: `Invalid value: ${goJson(value)}: metadata must be an object`,
      source: 'embedded',
    });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kind = OBJECT_META_FIELDS[k];
    if (!kind || v === null) continue;
    if (!typeOk(kind, v)) {
      errors.push({
        path: childPath(path, k),
        message: `Invalid value: ${goJson(v)}: must be ${EXPECTED[kind]}`,
        source: 'embedded',
      });
      continue;
    }
    if (v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    if (isObject(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_PART = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const TOTAL_ANNOTATION_SIZE = 256 * 1024;
const utf8 = new TextEncoder();

/** apimachinery's `RegexError` (exported for the embedded kind): the rule, examples and the regular expression. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const shown = examples.map((x, i) => `${i > 0 ? ' or ' : ''}'${x}', `).join('');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

/** apimachinery's `MaxLenError` (Go's `len` counts bytes). */
export function tooLong(s: string, max: number): string | undefined {
  return utf8.encode(s).length > max ? `must be no more than ${max} bytes` : undefined;
}

/** apimachinery's `IsDNS1123Label`. */
function dns1123LabelErrors(s: string): string[] {
  const errs: string[] = [];
  const long = tooLong(s, 63);
  if (long) errs.push(long);
  if (!DNS1123_LABEL.test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  return errs;
}

/** apimachinery's `IsDNS1123Subdomain`. */
function dns1123SubdomainErrors(s: string): string[] {
  const errs: string[] = [];
  const long = tooLong(s, 253);
  if (long) errs.push(long);
  if (!DNS1123_SUBDOMAIN.test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

/** Why `s` is not a qualified name (`[prefix/]name`; apimachinery's `IsQualifiedName`), or an empty list. */
function qualifiedNameErrors(s: string): string[] {
  const parts = s.split('/');
  let name = s;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((e) => `prefix part ${e}`));
  } else if (parts.length > 2) {
    return [
      `a valid label key ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else {
    const long = tooLong(name, 63);
    if (long) errs.push(`name part ${long}`);
  }
  if (!QUALIFIED_NAME_PART.test(name))
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  return errs;
}

/** apimachinery's `IsValidLabelValue`. */
function labelValueErrors(v: string): string[] {
  const errs: string[] = [];
  const long = tooLong(v, 63);
  if (long) errs.push(long);
  if (!LABEL_VALUE.test(v))
    errs.push(
      regexError(
        `a valid label must be an empty string or ${QUALIFIED_NAME_MSG.replace('must consist', 'consist')}`,
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

function pathSegmentErrors(name: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errs.push(`may not be '${name}'`);
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/**
 * Validates embedded object metadata as the apiserver does for `x-kubernetes-embedded-resource`
 * objects: names are path segments, a namespace is a DNS label, labels, annotations, finalizers
 * and owner references are well-formed.
 */
export function validateObjectMeta(
  meta: Record<string, unknown>,
  path: string,
  out: ValidationError[],
): void {
  const err = (p: string, value: unknown, detail: string) =>
    out.push({ path: p, message: `Invalid value: ${goJson(value)}: ${detail}`, source: 'embedded' });
  const generateName = meta.generateName;
  if (typeof generateName === 'string' && generateName !== '') {
    for (const e of pathSegmentErrors(generateName, true))
      err(childPath(path, 'generateName'), generateName, e);
  }
  if (typeof meta.name === 'string' && meta.name !== '') {
    for (const e of pathSegmentErrors(meta.name, false)) err(childPath(path, 'name'), meta.name, e);
  }
  const ns = meta.namespace;
  if (typeof ns === 'string' && ns !== '')
    for (const e of dns1123LabelErrors(ns)) err(childPath(path, 'namespace'), ns, e);
  if (typeof meta.generation === 'number' && meta.generation < 0)
    err(childPath(path, 'generation'), meta.generation, 'must be greater than or equal to 0');
  for (const [k, v] of Object.entries((meta.labels as Record<string, unknown> | undefined) ?? {})) {
    for (const e of qualifiedNameErrors(k)) err(childPath(path, 'labels'), k, e);
    if (typeof v === 'string') for (const e of labelValueErrors(v)) err(childPath(path, 'labels'), v, e);
  }
  let size = 0;
  for (const [k, v] of Object.entries((meta.annotations as Record<string, unknown> | undefined) ?? {})) {
    for (const e of qualifiedNameErrors(k.toLowerCase())) err(childPath(path, 'annotations'), k, e);
    size += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE)
    out.push({
      path: childPath(path, 'annotations'),
      message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE} bytes`,
      source: 'embedded',
    });
  ((meta.finalizers as unknown[] | undefined) ?? []).forEach((f) => {
    if (typeof f === 'string')
      for (const e of qualifiedNameErrors(f)) err(childPath(path, 'finalizers'), f, e);
  });
  validateOwnerReferences(
    meta.ownerReferences as unknown[] | undefined,
    childPath(path, 'ownerReferences'),
    out,
  );
}

/** apimachinery's `ValidateOwnerReferences`: every reference complete, at most one controller. */
function validateOwnerReferences(refs: unknown[] | undefined, path: string, out: ValidationError[]): void {
  const all = (refs ?? []).map((ref) => (ref ?? {}) as Record<string, unknown>);
  // the references as the apiserver prints them: Go's OwnerReference fields in order
  const shown = JSON.stringify(
    all.map((r) => ({
      apiVersion: r.apiVersion ?? '',
      kind: r.kind ?? '',
      name: r.name ?? '',
      uid: r.uid ?? '',
      ...(typeof r.controller === 'boolean' ? { controller: r.controller } : {}),
      ...(typeof r.blockOwnerDeletion === 'boolean' ? { blockOwnerDeletion: r.blockOwnerDeletion } : {}),
    })),
  );
  let controller = '';
  all.forEach((r, i) => {
    const p = childPath(path, i);
    for (const k of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof r[k] !== 'string' || r[k] === '')
        out.push({ path: childPath(p, k), message: 'Required value: must not be empty', source: 'embedded' });
    }
    if (r.controller !== true) return;
    const name = `${String(r.kind ?? '')}/${String(r.name ?? '')}`;
    if (controller === '') controller = name;
    else
      out.push({
        path,
        message: `Invalid value: ${shown}: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${name}`,
        source: 'embedded',
      });
  });
}
