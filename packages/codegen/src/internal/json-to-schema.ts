import type { SchemaNode } from '../ir.ts';

/** Converts a CRD-form JSON schema (as in `@anyOf` markers) to a schema node. */
export function jsonToSchema(json: Record<string, unknown>): SchemaNode {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json ?? {})) {
    if (k === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, Record<string, unknown>>).map(([n, s]) => [n, jsonToSchema(s)]),
      );
    else if (k === 'items' || k === 'not') out[k] = jsonToSchema(v as Record<string, unknown>);
    else if (k === 'additionalProperties')
      out[k] = typeof v === 'boolean' ? v : jsonToSchema(v as Record<string, unknown>);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf')
      out[k] = (v as Array<Record<string, unknown>>).map(jsonToSchema);
    else if (k.startsWith('x-kubernetes-')) {
      const map: Record<string, string> = {
        'x-kubernetes-int-or-string': 'intOrString',
        'x-kubernetes-preserve-unknown-fields': 'preserveUnknownFields',
        'x-kubernetes-embedded-resource': 'embeddedResource',
        'x-kubernetes-list-type': 'listType',
        'x-kubernetes-list-map-keys': 'listMapKeys',
        'x-kubernetes-map-type': 'mapType',
        'x-kubernetes-validations': 'validations',
      };
      out[map[k] ?? k] = v;
    } else out[k] = v;
  }
  return out as SchemaNode;
}
