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
