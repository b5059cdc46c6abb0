import type { StatusCause } from '../../errors.ts';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The causes that make a name invalid for a resource (`group/plural`), as the apiserver words them. */
export function nameCauses(name: string, storageKey: string): StatusCause[] {
  const invalid = (detail: string): StatusCause[] => [
    { reason: 'FieldValueInvalid', message: `Invalid value: "${name}": ${detail}`, field: 'metadata.name' },
  ];
  if (storageKey.startsWith('rbac.authorization.k8s.io/')) {
    if (name === '.' || name === '..') return invalid(`may not be '${name}'`);
    if (name.includes('/') || name.includes('%'))
      return invalid(`may not contain '${name.includes('/') ? '/' : '%'}'`);
    return [];
  }
  if (storageKey === '/namespaces') {
    if (name.length > 63) return invalid('must be no more than 63 characters');
    if (!LABEL.test(name)) {
      return invalid(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
    return [];
  }
  if (name.length > 253) return invalid('must be no more than 253 characters');
  if (!SUBDOMAIN.test(name)) {
    return invalid(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return [];
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Five random characters from the apiserver's `generateName` alphabet. */
export function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return out;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix === '') return 'prefix part must be non-empty';
    if (prefix.length > 253 || !SUBDOMAIN.test(prefix)) {
      return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    }
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

/** The causes that make `metadata.labels` or annotation keys invalid (keys must be qualified names, label values short names). */
export function metadataCauses(meta: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  const labels = meta.labels;
  if (labels && typeof labels === 'object') {
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      const problem = qualifiedNameProblem(k);
      if (problem)
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${k}": ${problem}`,
          field: 'metadata.labels',
        });
      const value = String(v ?? '');
      if (value.length > 63) {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${value}": must be no more than 63 characters`,
          field: `metadata.labels`,
        });
      } else if (!LABEL_VALUE.test(value)) {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
          field: 'metadata.labels',
        });
      }
    }
  }
  const annotations = meta.annotations;
  if (annotations && typeof annotations === 'object') {
    for (const k of Object.keys(annotations as Record<string, unknown>)) {
      const problem = qualifiedNameProblem(k.toLowerCase());
      if (problem)
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${k}": ${problem}`,
          field: 'metadata.annotations',
        });
    }
  }
  return causes;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** What the apiserver finds wrong with a ConfigMap or Secret data key (`IsConfigMapKey`). */
function configKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) {
    problems.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

/**
 * The causes that make the keys of a ConfigMap (`data`, `binaryData`, no key in both) or a Secret
 * (`data`) invalid, as the apiserver words them. Keys are checked in sorted order (the apiserver
 * walks a Go map, in no fixed order).
 */
export function dataKeyCauses(obj: Record<string, unknown>, kind: 'ConfigMap' | 'Secret'): StatusCause[] {
  const causes: StatusCause[] = [];
  const keysOf = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : [];
  const binary = kind === 'ConfigMap' ? keysOf(obj.binaryData) : [];
  for (const field of kind === 'ConfigMap' ? ['data', 'binaryData'] : ['data']) {
    for (const key of keysOf(obj[field])) {
      const at = `${field}[${key}]`;
      for (const problem of configKeyProblems(key))
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${key}": ${problem}`,
          field: at,
        });
      if (field === 'data' && binary.includes(key)) {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${key}": duplicate of key present in binaryData`,
          field: at,
        });
      }
    }
  }
  return causes;
}
