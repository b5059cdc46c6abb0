import { readFileSync } from 'node:fs';
import {
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseAllDocuments,
  type YAMLMap,
} from 'yaml';
import { CodegenError } from './codegen-error.ts';
import { isNumericKeyword } from './internal/numeric-keywords.ts';
import { YamlContext } from './internal/yaml-context.ts';
import type {
  CelReason,
  CelRule,
  PrinterColumn,
  ResourceModel,
  SchemaNode,
  SchemaType,
  VersionModel,
} from './ir.ts';
import { checkResource } from './structural.ts';

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const CEL_REASONS = new Set([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);
const FORBIDDEN_KEYWORDS: Record<string, string> = {
  $ref: 'CRD schemas cannot use $ref: inline the referenced schema',
  definitions: 'CRD schemas cannot use definitions: inline the schemas where they are used',
  id: 'CRD schemas cannot use id',
  $schema: 'CRD schemas cannot use $schema',
  dependencies: 'CRD schemas cannot use dependencies',
  patternProperties: 'CRD schemas cannot use patternProperties: use additionalProperties',
  additionalItems: 'CRD schemas cannot use additionalItems',
  const: 'CRD schemas have no const: use a single-value enum',
  examples: 'CRD schemas have no examples: use example',
};

/** Options for {@link readCrds}. */
export interface ReadCrdsOptions {
  /** Skip the structural-schema checks (they run by default). */
  readonly skipStructuralChecks?: boolean;
}

function entries(map: YAMLMap): Array<[string, Node | null, Pair]> {
  const out: Array<[string, Node | null, Pair]> = [];
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    out.push([key, (pair.value as Node | null) ?? null, pair]);
  }
  return out;
}

function js(node: Node | null): unknown {
  return node === null ? null : node.toJSON();
}

function num(ctx: YamlContext, node: Node | null, key: string): number | undefined {
  const v = js(node);
  if (typeof v !== 'number') {
    ctx.error(node, `${key} must be a number, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function bool(ctx: YamlContext, node: Node | null, key: string): boolean | undefined {
  const v = js(node);
  if (typeof v !== 'boolean') {
    ctx.error(node, `${key} must be true or false, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function str(ctx: YamlContext, node: Node | null, key: string): string | undefined {
  const v = js(node);
  if (typeof v !== 'string') {
    ctx.error(node, `${key} must be a string, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function strList(ctx: YamlContext, node: Node | null, key: string): string[] | undefined {
  const v = js(node);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    ctx.error(node, `${key} must be a list of strings`);
    return undefined;
  }
  return v as string[];
}

function schemaList(ctx: YamlContext, node: Node | null, key: string): SchemaNode[] | undefined {
  if (!isSeq(node)) {
    ctx.error(node, `${key} must be a list of schemas`);
    return undefined;
  }
  return node.items.map((item) => readSchemaNode(ctx, item as Node));
}

function readRules(ctx: YamlContext, node: Node | null): CelRule[] | undefined {
  if (!isSeq(node)) {
    ctx.error(node, 'x-kubernetes-validations must be a list of {rule, message, …}');
    return undefined;
  }
  const out: CelRule[] = [];
  for (const item of node.items) {
    if (!isMap(item)) {
      ctx.error(item as Node, 'each x-kubernetes-validations entry must be a map with a rule');
      continue;
    }
    const rule: { -readonly [K in keyof CelRule]?: CelRule[K] } = {};
    for (const [key, value, pair] of entries(item)) {
      switch (key) {
        case 'rule':
        case 'message':
        case 'messageExpression':
        case 'fieldPath': {
          const s = str(ctx, value, key);
          if (s !== undefined) rule[key] = s;
          break;
        }
        case 'reason': {
          const s = str(ctx, value, key);
          if (s !== undefined && !CEL_REASONS.has(s)) {
            ctx.error(value, `reason must be one of ${[...CEL_REASONS].join(', ')}, got ${s}`);
          } else if (s !== undefined) rule.reason = s as CelReason;
          break;
        }
        case 'optionalOldSelf': {
          const b = bool(ctx, value, key);
          if (b !== undefined) rule.optionalOldSelf = b;
          break;
        }
        default:
          ctx.error(pair, `unknown field ${key} in an x-kubernetes-validations rule`);
      }
    }
    if (rule.rule === undefined) ctx.error(item, 'an x-kubernetes-validations entry needs a rule');
    else out.push(rule as CelRule);
  }
  return out;
}

/** Reads one schema node from YAML, recursively. */
function readSchemaNode(ctx: YamlContext, node: Node | null): SchemaNode {
  const out: SchemaNode = { location: ctx.loc(node) };
  if (!isMap(node)) {
    ctx.error(node, `a schema must be a map, got ${JSON.stringify(js(node))}`);
    return out;
  }
  for (const [key, value, pair] of entries(node)) {
    if (isNumericKeyword(key)) {
      const n = num(ctx, value, key);
      if (n !== undefined) out[key] = n;
      continue;
    }
    switch (key) {
      case 'type': {
        const t = str(ctx, value, key);
        if (t === 'null') ctx.error(value, 'type: null is not allowed in a CRD schema; use nullable: true');
        else if (t !== undefined && !SCHEMA_TYPES.has(t)) {
          ctx.error(value, `type must be one of ${[...SCHEMA_TYPES].join(', ')}, got ${t}`);
        } else if (t !== undefined) out.type = t as SchemaType;
        break;
      }
      case 'description':
      case 'title':
      case 'format':
      case 'pattern': {
        const s = str(ctx, value, key);
        if (s !== undefined) out[key] = s;
        break;
      }
      case 'nullable':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
      case 'uniqueItems': {
        const b = bool(ctx, value, key);
        if (b !== undefined) out[key] = b;
        break;
      }
      case 'default':
      case 'example':
        out[key] = js(value);
        break;
      case 'enum': {
        const v = js(value);
        if (!Array.isArray(v)) ctx.error(value, 'enum must be a list');
        else out.enum = v;
        break;
      }
      case 'properties': {
        if (!isMap(value)) {
          ctx.error(value, 'properties must be a map of field name to schema');
          break;
        }
        out.properties = {};
        for (const [name, sub] of entries(value)) out.properties[name] = readSchemaNode(ctx, sub);
        break;
      }
      case 'required': {
        const l = strList(ctx, value, key);
        if (l) out.required = l;
        break;
      }
      case 'additionalProperties': {
        const v = js(value);
        if (typeof v === 'boolean') out.additionalProperties = v;
        else out.additionalProperties = readSchemaNode(ctx, value);
        break;
      }
      case 'items':
        if (isSeq(value))
          ctx.error(value, 'items must be a single schema; tuple (array-form) items are not allowed in CRDs');
        else out.items = readSchemaNode(ctx, value);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        const l = schemaList(ctx, value, key);
        if (l) out[key] = l;
        break;
      }
      case 'not':
        out.not = readSchemaNode(ctx, value);
        break;
      case 'x-kubernetes-int-or-string': {
        const b = bool(ctx, value, key);
        if (b) out.intOrString = true;
        break;
      }
      case 'x-kubernetes-preserve-unknown-fields': {
        const b = bool(ctx, value, key);
        if (b === false) ctx.error(value, 'x-kubernetes-preserve-unknown-fields must be true or absent');
        if (b) out.preserveUnknownFields = true;
        break;
      }
      case 'x-kubernetes-embedded-resource': {
        const b = bool(ctx, value, key);
        if (b) out.embeddedResource = true;
        break;
      }
      case 'x-kubernetes-list-type': {
        const s = str(ctx, value, key);
        if (s !== undefined && s !== 'atomic' && s !== 'set' && s !== 'map') {
          ctx.error(value, `x-kubernetes-list-type must be atomic, set or map, got ${s}`);
        } else if (s !== undefined) out.listType = s;
        break;
      }
      case 'x-kubernetes-list-map-keys': {
        const l = strList(ctx, value, key);
        if (l) out.listMapKeys = l;
        break;
      }
      case 'x-kubernetes-map-type': {
        const s = str(ctx, value, key);
        if (s !== undefined && s !== 'atomic' && s !== 'granular') {
          ctx.error(value, `x-kubernetes-map-type must be atomic or granular, got ${s}`);
        } else if (s !== undefined) out.mapType = s;
        break;
      }
      case 'x-kubernetes-validations': {
        const r = readRules(ctx, value);
        if (r) out.validations = r;
        break;
      }
      case 'externalDocs': {
        const v = js(value) as { description?: string; url?: string };
        out.externalDocs = {
          ...(v.description ? { description: v.description } : {}),
          ...(v.url ? { url: v.url } : {}),
        };
        break;
      }
      default: {
        const why = FORBIDDEN_KEYWORDS[key];
        ctx.error(pair, why ?? `unknown schema keyword ${key}`);
      }
    }
  }
  return out;
}

/** Which map entry {@link getMap} reads: `key` of the map at `where`, required unless said otherwise. */
interface MapEntryRef {
  readonly key: string;
  readonly where: string;
  readonly required?: boolean;
}

function getMap(
  ctx: YamlContext,
  map: YAMLMap,
  { key, where, required = true }: MapEntryRef,
): YAMLMap | undefined {
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
  const value = pair?.value as Node | undefined;
  if (!value) {
    if (required) ctx.error(map, `${where} lacks ${key}`);
    return undefined;
  }
  if (!isMap(value)) {
    ctx.error(value, `${where}.${key} must be a map`);
    return undefined;
  }
  return value;
}

function getValue(map: YAMLMap | undefined, key: string): Node | null {
  const pair = map?.items.find((p) => isScalar(p.key) && p.key.value === key);
  return (pair?.value as Node | undefined) ?? null;
}

/**
 * Reports keys of a CRD-level map the model does not carry (so nothing is dropped silently):
 * `where` names the map, `allowed` its known keys.
 */
function onlyKeys(
  ctx: YamlContext,
  { map, where }: { map: YAMLMap; where: string },
  allowed: readonly string[],
): void {
  for (const [key, , pair] of entries(map)) {
    if (!allowed.includes(key))
      ctx.error(
        pair,
        `unknown field ${where}.${key} (known: ${allowed.join(', ')}); kubeloom-gen would drop it`,
      );
  }
}

const VERSION_KEYS = [
  'name',
  'served',
  'storage',
  'deprecated',
  'deprecationWarning',
  'schema',
  'subresources',
  'additionalPrinterColumns',
  'selectableFields',
];

function readVersion(ctx: YamlContext, node: Node): VersionModel | undefined {
  if (!isMap(node)) {
    ctx.error(node, 'each spec.versions entry must be a map');
    return undefined;
  }
  onlyKeys(ctx, { map: node, where: 'spec.versions[]' }, VERSION_KEYS);
  const name = str(ctx, getValue(node, 'name'), 'spec.versions[].name') ?? '?';
  const where = `version ${name}`;
  const schemaWrapper = getMap(ctx, node, { key: 'schema', where });
  const openAPI = schemaWrapper ? getValue(schemaWrapper, 'openAPIV3Schema') : null;
  if (schemaWrapper && !openAPI) ctx.error(schemaWrapper, `${where} has no schema.openAPIV3Schema`);
  const v: VersionModel = {
    name,
    served: js(getValue(node, 'served')) === true,
    storage: js(getValue(node, 'storage')) === true,
    schema: openAPI ? readSchemaNode(ctx, openAPI) : { type: 'object' },
    location: ctx.loc(node),
  };
  const deprecated = js(getValue(node, 'deprecated'));
  if (deprecated === true) v.deprecated = true;
  const warning = js(getValue(node, 'deprecationWarning'));
  if (typeof warning === 'string') v.deprecationWarning = warning;
  const sub = getMap(ctx, node, { key: 'subresources', where, required: false });
  if (sub) {
    onlyKeys(ctx, { map: sub, where: 'subresources' }, ['status', 'scale']);
    if (sub.items.length === 0) v.explicitSubresources = true;
    if (getValue(sub, 'status')) v.statusSubresource = true;
    const scale = getValue(sub, 'scale');
    if (scale) {
      const s = js(scale) as Record<string, unknown>;
      if (typeof s.specReplicasPath !== 'string' || typeof s.statusReplicasPath !== 'string') {
        ctx.error(scale, 'subresources.scale needs specReplicasPath and statusReplicasPath');
      } else {
        v.scale = {
          specReplicasPath: s.specReplicasPath,
          statusReplicasPath: s.statusReplicasPath,
          ...(typeof s.labelSelectorPath === 'string' ? { labelSelectorPath: s.labelSelectorPath } : {}),
        };
      }
    }
  }
  const colsNode = getValue(node, 'additionalPrinterColumns');
  if (isSeq(colsNode)) {
    for (const c of colsNode.items)
      if (isMap(c))
        onlyKeys(ctx, { map: c, where: 'additionalPrinterColumns[]' }, [
          'name',
          'type',
          'jsonPath',
          'description',
          'format',
          'priority',
        ]);
  }
  const cols = js(colsNode);
  if (Array.isArray(cols)) {
    v.printerColumns = (cols as Array<Record<string, unknown>>).map((c) => {
      const col: { -readonly [K in keyof PrinterColumn]: PrinterColumn[K] } = {
        name: String(c.name),
        type: String(c.type),
        jsonPath: String(c.jsonPath),
      };
      if (typeof c.description === 'string') col.description = c.description;
      if (typeof c.format === 'string') col.format = c.format;
      if (typeof c.priority === 'number') col.priority = c.priority;
      return col;
    });
  }
  const sel = js(getValue(node, 'selectableFields'));
  if (Array.isArray(sel)) v.selectableFields = (sel as Array<{ jsonPath: string }>).map((s) => s.jsonPath);
  return v;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = String(val);
  return Object.keys(out).length > 0 ? out : undefined;
}

function readResource(ctx: YamlContext, root: YAMLMap): ResourceModel | undefined {
  const metadata = js(getValue(root, 'metadata')) as {
    name?: string;
    annotations?: unknown;
    labels?: unknown;
  } | null;
  const where = `CRD ${metadata?.name ?? '(unnamed)'}`;
  const spec = getMap(ctx, root, { key: 'spec', where });
  if (!spec) return undefined;
  onlyKeys(ctx, { map: spec, where: 'spec' }, [
    'group',
    'names',
    'scope',
    'versions',
    'conversion',
    'preserveUnknownFields',
    'validation',
  ]);
  const names = getMap(ctx, spec, { key: 'names', where: `${where} spec` });
  if (names)
    onlyKeys(ctx, { map: names, where: 'spec.names' }, [
      'kind',
      'listKind',
      'plural',
      'singular',
      'shortNames',
      'categories',
    ]);
  const group = str(ctx, getValue(spec, 'group'), 'spec.group');
  const scope = str(ctx, getValue(spec, 'scope'), 'spec.scope');
  if (scope !== undefined && scope !== 'Namespaced' && scope !== 'Cluster') {
    ctx.error(getValue(spec, 'scope'), `spec.scope must be Namespaced or Cluster, got ${scope}`);
  }
  const versionsNode = getValue(spec, 'versions');
  if (!isSeq(versionsNode) || versionsNode.items.length === 0) {
    ctx.error(versionsNode ?? spec, `${where}: spec.versions must be a non-empty list`);
    return undefined;
  }
  if (getValue(spec, 'validation')) {
    ctx.error(
      getValue(spec, 'validation'),
      'spec.validation is apiextensions v1beta1; move the schema into each version',
    );
  }
  if (js(getValue(spec, 'preserveUnknownFields')) === true) {
    ctx.error(
      getValue(spec, 'preserveUnknownFields'),
      'spec.preserveUnknownFields: true is not allowed in apiextensions v1; use x-kubernetes-preserve-unknown-fields on a sub-schema',
    );
  }
  if (!names || group === undefined) return undefined;
  const kind = str(ctx, getValue(names, 'kind'), 'spec.names.kind') ?? '';
  const plural = str(ctx, getValue(names, 'plural'), 'spec.names.plural') ?? '';
  const singularRaw = js(getValue(names, 'singular'));
  const listKindRaw = js(getValue(names, 'listKind'));
  const versions = versionsNode.items.flatMap((item) => readVersion(ctx, item as Node) ?? []);
  const model: ResourceModel = {
    group,
    kind,
    plural,
    singular: typeof singularRaw === 'string' ? singularRaw : kind.toLowerCase(),
    listKind: typeof listKindRaw === 'string' ? listKindRaw : `${kind}List`,
    scope: scope === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions,
    location: ctx.loc(root),
  };
  const shortNames = js(getValue(names, 'shortNames'));
  if (Array.isArray(shortNames) && shortNames.length > 0) model.shortNames = shortNames.map(String);
  const categories = js(getValue(names, 'categories'));
  if (Array.isArray(categories) && categories.length > 0) model.categories = categories.map(String);
  const annotations = stringRecord(metadata?.annotations);
  if (annotations) model.annotations = annotations;
  const labels = stringRecord(metadata?.labels);
  if (labels) model.labels = labels;
  const conversion = getValue(spec, 'conversion');
  if (conversion !== null) {
    if (!isMap(conversion)) ctx.error(conversion, 'spec.conversion must be a map');
    else model.conversion = js(conversion) as Record<string, unknown>;
  }
  if (metadata?.name && metadata.name !== `${plural}.${group}`) {
    ctx.error(
      getValue(root, 'metadata'),
      `metadata.name must be <plural>.<group> = ${plural}.${group}, got ${metadata.name}`,
    );
  }
  return model;
}

/**
 * Reads every `CustomResourceDefinition` in a YAML text (multi-document; other kinds are skipped)
 * into the model, checking the structural-schema rules the apiserver enforces.
 *
 * @param text - YAML (or JSON) text.
 * @param file - the file name used in error locations.
 * @throws {@link CodegenError} listing every problem with `file:line:column`: malformed YAML, a
 *   v1beta1 CRD, an unknown or forbidden schema keyword, a non-structural schema.
 */
export function readCrds(text: string, file: string, options: ReadCrdsOptions = {}): ResourceModel[] {
  const lc = new LineCounter();
  const ctx = new YamlContext(file, lc);
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [];
  if (!Array.isArray(docs)) {
    ctx.issues.push({ message: 'not a YAML stream', location: { file, line: 1 } });
  }
  const out: ResourceModel[] = [];
  for (const doc of list) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const pos = lc.linePos(e.pos[0]);
        ctx.issues.push({
          message: `malformed YAML: ${e.message.split('\n')[0]}`,
          location: { file, line: pos.line, column: pos.col },
        });
      }
      continue;
    }
    const root = doc.contents as Node | null;
    if (root === null) continue;
    if (!isMap(root)) {
      ctx.error(root, 'expected a Kubernetes object (a YAML map)');
      continue;
    }
    ctx.addDocument(root);
    const kind = js(getValue(root, 'kind'));
    const apiVersion = js(getValue(root, 'apiVersion'));
    if (kind !== 'CustomResourceDefinition') continue;
    if (apiVersion !== 'apiextensions.k8s.io/v1') {
      ctx.error(
        getValue(root, 'apiVersion'),
        `apiVersion ${String(apiVersion)} is not supported; convert the CRD to apiextensions.k8s.io/v1`,
      );
      continue;
    }
    const model = readResource(ctx, root);
    if (model) out.push(model);
  }
  if (ctx.issues.length === 0 && out.length === 0) {
    ctx.issues.push({
      message: 'no apiextensions.k8s.io/v1 CustomResourceDefinition in this file',
      location: { file, line: 1 },
    });
  }
  if (ctx.issues.length === 0 && !options.skipStructuralChecks) {
    for (const r of out) ctx.issues.push(...checkResource(r));
  }
  if (ctx.issues.length > 0) throw new CodegenError(ctx.issues);
  return out;
}

/** Reads the CRDs of one file; see {@link readCrds}. */
export function readCrdFile(file: string, options: ReadCrdsOptions = {}): ResourceModel[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CodegenError([{ message: `cannot read ${file}: ${(e as Error).message}` }]);
  }
  return readCrds(text, file, options);
}
