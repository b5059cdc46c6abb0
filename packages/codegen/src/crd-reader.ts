// Reading CRD YAML into the model: resources, versions, subresources, printer columns (the schema is read by crd-schema-reader.ts).
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, type Node, parseAllDocuments, type YAMLMap } from 'yaml';
import { CodegenError } from './codegen-error.ts';
import { readSchemaNode } from './crd-schema-reader.ts';
import { ruleCostIssues } from './internal/cel-cost/resource-costs.ts';
import { YamlContext } from './internal/yaml-context.ts';
import { getMap, getValue, js, onlyKeys, str, stringRecord } from './internal/yaml-read.ts';
import type { PrinterColumn, ResourceModel, VersionModel } from './ir.ts';
import { checkResource } from './structural.ts';

/** Options for {@link readCrds}. */
export interface ReadCrdsOptions {
  /** Skip the structural-schema checks (they run by default). */
  readonly skipStructuralChecks?: boolean;
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
    // a CRD kube-apiserver would reject for its rules' estimated cost
    if (ctx.issues.length === 0) for (const r of out) ctx.issues.push(...ruleCostIssues(r));
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
