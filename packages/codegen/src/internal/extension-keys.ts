import type { SchemaNode } from '../ir.ts';

/** The CRD's `x-kubernetes-*` key of each camel-cased extension field of a {@link SchemaNode}. */
export const EXTENSION_KEYS = {
  preserveUnknownFields: 'x-kubernetes-preserve-unknown-fields',
  embeddedResource: 'x-kubernetes-embedded-resource',
  intOrString: 'x-kubernetes-int-or-string',
  listType: 'x-kubernetes-list-type',
  listMapKeys: 'x-kubernetes-list-map-keys',
  mapType: 'x-kubernetes-map-type',
  validations: 'x-kubernetes-validations',
} as const satisfies Partial<Record<keyof SchemaNode, `x-kubernetes-${string}`>>;

/** The key of a {@link SchemaNode} field in the CRD's JSON form (`listType` is `x-kubernetes-list-type`). */
export function jsonKey(field: string): string {
  return Object.hasOwn(EXTENSION_KEYS, field) ? EXTENSION_KEYS[field as keyof typeof EXTENSION_KEYS] : field;
}
