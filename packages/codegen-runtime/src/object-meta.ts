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

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

/** Why `s` is not a qualified name (`[prefix/]name`), or an empty list. */
function qualifiedNameErrors(s: string): string[] {
  const parts = s.split('/');
  let name = s;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
      errs.push('prefix part must be a lowercase RFC 1123 subdomain');
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  else if (!QUALIFIED_NAME_PART.test(name))
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
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
  if (typeof ns === 'string' && ns !== '' && (ns.length > 63 || !DNS1123_LABEL.test(ns))) {
    err(
      childPath(path, 'namespace'),
      ns,
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    );
  }
  if (typeof meta.generation === 'number' && meta.generation < 0)
    err(childPath(path, 'generation'), meta.generation, 'must be greater than or equal to 0');
  for (const [k, v] of Object.entries((meta.labels as Record<string, unknown> | undefined) ?? {})) {
    for (const e of qualifiedNameErrors(k)) err(childPath(path, 'labels'), k, e);
    if (typeof v === 'string' && (v.length > 63 || !LABEL_VALUE.test(v)))
      err(
        childPath(path, 'labels'),
        v,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      );
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
  ((meta.finalizers as unknown[] | undefined) ?? []).forEach((f, i) => {
    if (typeof f === 'string')
      for (const e of qualifiedNameErrors(f)) err(childPath(childPath(path, 'finalizers'), i), f, e);
  });
  let controllers = 0;
  ((meta.ownerReferences as unknown[] | undefined) ?? []).forEach((ref, i) => {
    const p = childPath(childPath(path, 'ownerReferences'), i);
    const r = (ref ?? {}) as Record<string, unknown>;
    for (const k of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof r[k] !== 'string' || r[k] === '')
        out.push({
          path: childPath(p, k),
          message: 'Invalid value: "": must not be empty',
          source: 'embedded',
        });
    }
    if (r.controller === true) controllers++;
  });
  if (controllers > 1)
    out.push({
      path: childPath(path, 'ownerReferences'),
      message: 'Invalid value: Only one reference can have Controller set to true',
      source: 'embedded',
    });
}
