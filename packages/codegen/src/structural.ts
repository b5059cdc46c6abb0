import { compileRe2, Re2SyntaxError } from '@kubeloom/codegen-runtime';
import type { CodegenIssue } from './codegen-error.ts';
import { EXTENSION_KEYS, jsonKey } from './internal/extension-keys.ts';
import { isIntOrStringJunctor } from './internal/int-or-string.ts';
import type { ResourceModel, SchemaNode, SourceLocation, VersionModel } from './ir.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);
const COLUMN_FORMATS = new Set([
  'int32',
  'int64',
  'float',
  'double',
  'byte',
  'date',
  'date-time',
  'password',
]);
/** The fields a node inside `anyOf`/`oneOf`/`allOf`/`not` may not have (structural schema rule). */
const JUNCTOR_FORBIDDEN: ReadonlyArray<keyof SchemaNode> = [
  'type',
  'default',
  'title',
  'description',
  'nullable',
  'additionalProperties',
  ...(Object.keys(EXTENSION_KEYS) as Array<keyof typeof EXTENSION_KEYS>),
];
const STATUS_ROOT_ALLOWED = new Set<string>([
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'preserveUnknownFields',
  'validations',
  'location',
  'enum',
  'maxProperties',
  'minProperties',
]);

class Checker {
  readonly issues: CodegenIssue[] = [];
  readonly fallback: SourceLocation | undefined;
  constructor(fallback: SourceLocation | undefined) {
    this.fallback = fallback;
  }
  error(node: SchemaNode | undefined, path: string, message: string): void {
    this.issues.push({ message: `${path}: ${message}`, location: node?.location ?? this.fallback });
  }

  junctor(node: SchemaNode, path: string, outside: SchemaNode | undefined): void {
    for (const key of JUNCTOR_FORBIDDEN) {
      if (node[key] !== undefined) {
        this.error(
          node,
          path,
          `${jsonKey(key)} is not allowed inside anyOf/oneOf/allOf/not (structural schema rule)`,
        );
      }
    }
    for (const [name, sub] of Object.entries(node.properties ?? {})) {
      if (!outside?.properties?.[name]) {
        this.error(
          sub,
          `${path}.properties.${name}`,
          'a field used in anyOf/oneOf/allOf/not must also be declared outside',
        );
      }
      this.junctor(sub, `${path}.properties.${name}`, outside?.properties?.[name]);
    }
    if (node.items) this.junctor(node.items, `${path}.items`, outside?.items);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const [i, s] of (node[key] ?? []).entries()) this.junctor(s, `${path}.${key}[${i}]`, outside);
    }
    if (node.not) this.junctor(node.not, `${path}.not`, outside);
  }

  node(node: SchemaNode, path: string, opts: { root?: boolean } = {}): void {
    const isIntOrString = node.intOrString === true;
    if (!node.type && !isIntOrString && !node.preserveUnknownFields) {
      this.error(
        node,
        path,
        'every schema node needs a type (structural schema rule); add one, or mark it int-or-string or preserve-unknown-fields',
      );
    }
    if (opts.root && node.type !== 'object') this.error(node, path, 'the root schema must be type: object');
    if (opts.root && node.nullable) this.error(node, path, 'the root schema cannot be nullable');
    if (opts.root && node.additionalProperties !== undefined) {
      this.error(node, path, 'additionalProperties is not allowed at the root of a CRD schema');
    }
    if (node.uniqueItems) {
      this.error(
        node,
        path,
        'uniqueItems: true is forbidden by the apiserver; use x-kubernetes-list-type: set',
      );
    }
    if (node.type === 'array' && !node.items) this.error(node, path, 'an array needs items');
    if (node.properties && node.additionalProperties !== undefined && node.additionalProperties !== false) {
      this.error(node, path, 'properties and additionalProperties are mutually exclusive');
    }
    if (node.properties && node.additionalProperties === false) {
      this.error(
        node,
        path,
        'additionalProperties: false next to properties is not allowed; unknown fields are pruned anyway',
      );
    }
    if (isIntOrString && (node.preserveUnknownFields || node.embeddedResource)) {
      this.error(
        node,
        path,
        'x-kubernetes-int-or-string cannot be combined with preserve-unknown-fields or embedded-resource',
      );
    }
    if (node.embeddedResource) {
      if (node.type !== 'object') this.error(node, path, 'x-kubernetes-embedded-resource needs type: object');
      if (!node.properties && !node.preserveUnknownFields) {
        this.error(
          node,
          path,
          'x-kubernetes-embedded-resource needs properties or x-kubernetes-preserve-unknown-fields',
        );
      }
    }
    if (node.pattern !== undefined) {
      // The runtime's RE2 engine: a pattern accepted here is one the apiserver accepts and the
      // validator runs; a rejection is worded as the apiserver's.
      try {
        compileRe2(node.pattern);
      } catch (e) {
        if (!(e instanceof Re2SyntaxError)) throw e;
        this.error(
          node,
          path,
          `pattern: Invalid value: ${JSON.stringify(node.pattern)}: must be a valid regular expression, but isn't: ${e.message}`,
        );
      }
    }
    if (node.listType) {
      if (node.type !== 'array') this.error(node, path, 'x-kubernetes-list-type needs type: array');
      if (node.listType === 'map') {
        const item = node.items;
        if (!node.listMapKeys?.length)
          this.error(node, path, 'x-kubernetes-list-type: map needs x-kubernetes-list-map-keys');
        if (item && item.type !== 'object')
          this.error(node, path, 'x-kubernetes-list-type: map needs object items');
        for (const key of node.listMapKeys ?? []) {
          const prop = item?.properties?.[key];
          if (!prop) {
            this.error(node, path, `list map key ${key} is not a field of the items`);
            continue;
          }
          if (prop.type === 'object' || prop.type === 'array')
            this.error(prop, path, `list map key ${key} must be a scalar`);
          if (!item?.required?.includes(key) && prop.default === undefined) {
            this.error(
              prop,
              `${path}.items.properties.${key}`,
              `list map key ${key} must be required or have a default`,
            );
          }
          if (prop.nullable) this.error(prop, path, `list map key ${key} cannot be nullable`);
        }
      }
      if ((node.listType === 'set' || node.listType === 'map') && node.items?.nullable) {
        this.error(node, path, `items of a list of type ${node.listType} cannot be nullable`);
      }
    }
    if (node.listMapKeys && node.listType !== 'map') {
      this.error(node, path, 'x-kubernetes-list-map-keys needs x-kubernetes-list-type: map');
    }
    if (node.mapType && node.type !== 'object')
      this.error(node, path, 'x-kubernetes-map-type needs type: object');
    for (const rule of node.validations ?? []) {
      if (rule.message !== undefined && (rule.message.trim() === '' || rule.message.includes('\n'))) {
        this.error(
          node,
          path,
          `the message of rule ${JSON.stringify(rule.rule)} must be non-empty and on one line`,
        );
      }
      if (rule.message === undefined && rule.rule.includes('\n') && rule.messageExpression === undefined) {
        this.error(node, path, `the multi-line rule ${JSON.stringify(rule.rule)} needs a message`);
      }
      if (rule.optionalOldSelf && !/\boldSelf\b/.test(rule.rule)) {
        this.error(node, path, 'optionalOldSelf is only allowed on rules that use oldSelf');
      }
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (isIntOrString && isIntOrStringJunctor(node, key)) continue;
      for (const [i, s] of (node[key] ?? []).entries()) this.junctor(s, `${path}.${key}[${i}]`, node);
    }
    if (node.not) this.junctor(node.not, `${path}.not`, node);
    for (const [name, sub] of Object.entries(node.properties ?? {})) {
      const subPath = `${path}.properties.${name}`;
      if (opts.root && name === 'metadata') {
        this.metadata(sub, subPath);
        continue;
      }
      this.node(sub, subPath);
    }
    if (node.items) this.node(node.items, `${path}.items`);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      this.node(node.additionalProperties, `${path}.additionalProperties`);
    }
    for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const) {
      if (node[key] !== undefined && node.type && node.type !== 'integer' && node.type !== 'number') {
        this.error(node, path, `${key} applies only to numbers, not to type ${node.type}`);
      }
    }
    for (const key of ['minLength', 'maxLength', 'pattern'] as const) {
      if (node[key] !== undefined && node.type && node.type !== 'string') {
        this.error(node, path, `${key} applies only to strings, not to type ${node.type}`);
      }
    }
    for (const key of ['minItems', 'maxItems'] as const) {
      if (node[key] !== undefined && node.type && node.type !== 'array') {
        this.error(node, path, `${key} applies only to lists, not to type ${node.type}`);
      }
    }
  }

  metadata(node: SchemaNode, path: string): void {
    if (node.type !== 'object') this.error(node, path, 'metadata must be type: object');
    for (const name of Object.keys(node.properties ?? {})) {
      if (name !== 'name' && name !== 'generateName') {
        this.error(
          node,
          path,
          `the root metadata schema may only constrain name and generateName, not ${name}`,
        );
      }
    }
  }

  version(r: ResourceModel, v: VersionModel): void {
    const p = `${r.plural}.${r.group}/${v.name}`;
    this.node(v.schema, `${p} openAPIV3Schema`, { root: true });
    if (v.statusSubresource) {
      for (const key of Object.keys(v.schema)) {
        if (!STATUS_ROOT_ALLOWED.has(key) && (v.schema as Record<string, unknown>)[key] !== undefined) {
          this.error(v.schema, p, `with the status subresource, the root schema cannot use ${key}`);
        }
      }
    }
    for (const c of v.printerColumns ?? []) {
      if (!COLUMN_TYPES.has(c.type))
        this.error(
          undefined,
          p,
          `printer column ${c.name}: type must be one of ${[...COLUMN_TYPES].join(', ')}, got ${c.type}`,
        );
      if (c.format !== undefined && !COLUMN_FORMATS.has(c.format)) {
        this.error(
          undefined,
          p,
          `printer column ${c.name}: format must be one of ${[...COLUMN_FORMATS].join(', ')}`,
        );
      }
      if (!c.jsonPath.startsWith('.'))
        this.error(undefined, p, `printer column ${c.name}: jsonPath must start with a dot`);
    }
    if (v.scale) {
      if (!v.scale.specReplicasPath.startsWith('.spec.'))
        this.error(undefined, p, 'scale specReplicasPath must be under .spec');
      if (!v.scale.statusReplicasPath.startsWith('.status.'))
        this.error(undefined, p, 'scale statusReplicasPath must be under .status');
      const sel = v.scale.labelSelectorPath;
      if (sel !== undefined && !sel.startsWith('.spec.') && !sel.startsWith('.status.')) {
        this.error(undefined, p, 'scale labelSelectorPath must be under .spec or .status');
      }
    }
    if ((v.selectableFields?.length ?? 0) > 8)
      this.error(undefined, p, 'at most 8 selectable fields are allowed');
  }
}

/**
 * Checks a resource against the rules kube-apiserver enforces on a CRD (names, versions, printer
 * columns, scale paths and the structural-schema rules), returning every problem found.
 */
export function checkResource(r: ResourceModel): CodegenIssue[] {
  const c = new Checker(r.location);
  const where = `${r.plural}.${r.group}`;
  if (!DNS_SUBDOMAIN.test(r.group) || !r.group.includes('.')) {
    c.error(
      undefined,
      where,
      `group ${JSON.stringify(r.group)} must be a DNS subdomain with at least one dot, e.g. example.dev`,
    );
  }
  for (const [what, value] of [
    ['plural', r.plural],
    ['singular', r.singular],
  ] as const) {
    if (!DNS_LABEL.test(value))
      c.error(undefined, where, `${what} ${JSON.stringify(value)} must be a lower-case DNS label`);
  }
  for (const s of [...(r.shortNames ?? []), ...(r.categories ?? [])]) {
    if (!DNS_LABEL.test(s))
      c.error(undefined, where, `short name or category ${JSON.stringify(s)} must be a lower-case DNS label`);
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(r.kind))
    c.error(undefined, where, `kind ${JSON.stringify(r.kind)} must be UpperCamelCase`);
  if (r.kind === r.listKind) c.error(undefined, where, 'kind and listKind must differ');
  if (r.versions.length === 0) c.error(undefined, where, 'a CRD needs at least one version');
  const storage = r.versions.filter((v) => v.storage);
  if (r.versions.length > 0 && storage.length !== 1) {
    c.error(
      undefined,
      where,
      `exactly one version must be the storage version, found ${storage.length}${storage.length ? ` (${storage.map((v) => v.name).join(', ')})` : ''}`,
    );
  }
  const seen = new Set<string>();
  for (const v of r.versions) {
    if (seen.has(v.name)) c.error(undefined, where, `version ${v.name} is declared twice`);
    seen.add(v.name);
    if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v.name))
      c.error(undefined, where, `version ${JSON.stringify(v.name)} must be a DNS-1035 label`);
    c.version(r, v);
  }
  return c.issues;
}
