import { stringify } from 'yaml';
import { jsonKey } from './internal/extension-keys.ts';
import { sortKeys } from './internal/sort-keys.ts';
import type { ResourceModel, SchemaNode, VersionModel } from './ir.ts';

/** A CustomResourceDefinition as plain JSON. */
export interface CrdDocument {
  /** Always `apiextensions.k8s.io/v1`. */
  apiVersion: 'apiextensions.k8s.io/v1';
  /** Always `CustomResourceDefinition`. */
  kind: 'CustomResourceDefinition';
  /** `name` is `<plural>.<group>`. */
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  /** The CRD spec. */
  spec: Record<string, unknown>;
}

/** Options for {@link schemaToJson} and {@link resourceToCrd}. */
export interface SchemaJsonOptions {
  /** Drop every `description` (controller-gen's `maxDescLen=0`), e.g. to keep CRDs small. */
  readonly dropDescriptions?: boolean;
}

/** Converts an IR schema node to the CRD's OpenAPI v3 JSON form (`x-kubernetes-*` keys). */
export function schemaToJson(node: SchemaNode, options: SchemaJsonOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const sub = (n: SchemaNode) => schemaToJson(n, options);
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined || key === 'location') continue;
    switch (key) {
      case 'description':
        if (!options.dropDescriptions) out.description = value;
        break;
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, SchemaNode>).map(([k, v]) => [k, sub(v)]),
        );
        break;
      case 'items':
      case 'not':
        out[key] = sub(value as SchemaNode);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : sub(value as SchemaNode);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        out[key] = (value as SchemaNode[]).map(sub);
        break;
      default:
        out[jsonKey(key)] = value;
    }
  }
  return out;
}

function versionToJson(v: VersionModel, options: SchemaJsonOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { name: v.name, served: v.served, storage: v.storage };
  if (v.deprecated) out.deprecated = true;
  if (v.deprecationWarning !== undefined) out.deprecationWarning = v.deprecationWarning;
  if (v.printerColumns?.length) out.additionalPrinterColumns = v.printerColumns.map((c) => ({ ...c }));
  if (v.selectableFields?.length) out.selectableFields = v.selectableFields.map((jsonPath) => ({ jsonPath }));
  out.schema = { openAPIV3Schema: schemaToJson(v.schema, options) };
  if (v.statusSubresource || v.scale || v.explicitSubresources) {
    const sub: Record<string, unknown> = {};
    if (v.statusSubresource) sub.status = {};
    if (v.scale) sub.scale = { ...v.scale };
    out.subresources = sub;
  }
  return out;
}

/** Converts a resource to a `CustomResourceDefinition` object. */
export function resourceToCrd(r: ResourceModel, options: SchemaJsonOptions = {}): CrdDocument {
  const names: Record<string, unknown> = {
    kind: r.kind,
    listKind: r.listKind,
    plural: r.plural,
    singular: r.singular,
  };
  if (r.shortNames?.length) names.shortNames = [...r.shortNames];
  if (r.categories?.length) names.categories = [...r.categories];
  const metadata: CrdDocument['metadata'] = { name: `${r.plural}.${r.group}` };
  if (r.annotations) metadata.annotations = { ...r.annotations };
  if (r.labels) metadata.labels = { ...r.labels };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: {
      group: r.group,
      names,
      scope: r.scope,
      versions: r.versions.map((v) => versionToJson(v, options)),
      ...(r.conversion ? { conversion: structuredClone(r.conversion) } : {}),
    },
  };
}

/** Serializes CRD documents as deterministic YAML (sorted keys, `---` between documents). */
export function crdsToYaml(crds: readonly CrdDocument[]): string {
  return crds
    .map((c) => `---\n${stringify(sortKeys(c), { lineWidth: 0, aliasDuplicateObjects: false })}`)
    .join('');
}
