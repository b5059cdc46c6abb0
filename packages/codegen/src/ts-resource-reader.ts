import ts from 'typescript';
import type { Doc, ReadContext } from './internal/read-context.ts';
import type { PolicyRuleModel, PrinterColumn, ResourceModel, SchemaNode, VersionModel } from './ir.ts';
import { applyMarkers, checkTags } from './marker-schema.ts';
import type { ResourceVersion } from './merge-versions.ts';
import type { TypeMapper } from './ts-type-mapper.ts';

/** The root declaration of a resource version and its doc comment (see {@link readResource}). */
export interface ResourceDeclaration {
  /** An interface or type alias. */
  readonly decl: ts.InterfaceDeclaration | ts.TypeAliasDeclaration;
  /** Its doc comment, which has `@group` and `@version`. */
  readonly doc: Doc;
}

/**
 * Reads one version of a resource from its root declaration: the schema, mapped by `types`, and
 * the resource and version markers (names, scope, subresources, printer columns, …).
 */
export function readResource(
  ctx: ReadContext,
  types: TypeMapper,
  { decl, doc }: ResourceDeclaration,
): ResourceVersion | undefined {
  const tags = (n: string) => doc.comment.tags.filter((t) => t.name === n);
  const one = (n: string) => {
    const t = tags(n)[0];
    return t ? ctx.str(doc, t) : undefined;
  };
  const group = one('group');
  const versionName = one('version');
  const kind = one('kind') ?? decl.name.text;
  if (!versionName) {
    ctx.error(decl.name, `resource ${kind} has @group but no @version`);
    return undefined;
  }
  let schema: SchemaNode;
  if (ts.isInterfaceDeclaration(decl)) {
    ctx.stack.push(decl);
    schema = types.interfaceSchema(decl, true);
    ctx.stack.pop();
  } else {
    checkTags(ctx, doc, { target: 'resource', isResource: true });
    schema = types.mapTypeNode(decl.type, decl).schema;
    if (doc.comment.description !== undefined) schema.description = doc.comment.description;
    applyMarkers(ctx, schema, { doc, field: false });
  }
  const scopeRaw = one('scope') ?? 'Namespaced';
  if (scopeRaw !== 'Namespaced' && scopeRaw !== 'Cluster')
    ctx.error(ctx.tagLoc(doc, tags('scope')[0]!), `@scope must be Namespaced or Cluster, got ${scopeRaw}`);
  const version: VersionModel = {
    name: versionName,
    served: one('served') !== 'false',
    storage: tags('storageVersion').length > 0,
    schema,
    location: ctx.loc(decl.name),
  };
  const served = one('served');
  if (served !== undefined && served !== 'true' && served !== 'false')
    ctx.error(ctx.tagLoc(doc, tags('served')[0]!), '@served takes true or false');
  for (const t of tags('deprecatedVersion')) {
    version.deprecated = true;
    const a = ctx.args(doc, t);
    const w = a?.named.get('warning');
    if (w !== undefined) version.deprecationWarning = w;
  }
  for (const t of tags('subresource')) {
    const a = ctx.args(doc, t);
    if (!a) continue;
    const what = a.positional[0];
    if (what === 'status') version.statusSubresource = true;
    else if (what === 'none') version.explicitSubresources = true;
    else if (what === 'scale') {
      const spec = a.named.get('specPath');
      const status = a.named.get('statusPath');
      if (!spec || !status) {
        ctx.error(
          ctx.tagLoc(doc, t),
          '@subresource scale needs specPath=… and statusPath=… (selectorPath=… is optional)',
        );
        continue;
      }
      const sel = a.named.get('selectorPath');
      version.scale = {
        specReplicasPath: spec,
        statusReplicasPath: status,
        ...(sel ? { labelSelectorPath: sel } : {}),
      };
    } else
      ctx.error(
        ctx.tagLoc(doc, t),
        `@subresource takes status, scale or none, got ${JSON.stringify(what ?? '')}`,
      );
  }
  for (const t of tags('printColumn')) {
    const a = ctx.args(doc, t);
    if (!a) continue;
    const name = a.named.get('name');
    const type = a.named.get('type');
    const jsonPath = a.named.get('jsonPath') ?? a.named.get('JSONPath');
    if (!name || !type || !jsonPath) {
      ctx.error(ctx.tagLoc(doc, t), '@printColumn needs name=…, type=… and jsonPath=…');
      continue;
    }
    const col: { -readonly [K in keyof PrinterColumn]: PrinterColumn[K] } = { name, type, jsonPath };
    if (a.named.has('description')) col.description = a.named.get('description')!;
    if (a.named.has('format')) col.format = a.named.get('format')!;
    if (a.named.has('priority')) col.priority = Number(a.named.get('priority'));
    version.printerColumns = [...(version.printerColumns ?? []), col];
  }
  for (const t of tags('selectableField')) {
    const jp = ctx.args(doc, t)?.named.get('jsonPath');
    if (!jp) ctx.error(ctx.tagLoc(doc, t), '@selectableField needs jsonPath=…');
    else version.selectableFields = [...(version.selectableFields ?? []), jp];
  }
  const kv = (n: string): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    for (const t of tags(n)) {
      const a = ctx.args(doc, t);
      if (!a) continue;
      if (a.named.size === 0) ctx.error(ctx.tagLoc(doc, t), `@${n} takes key=value`);
      for (const [k, v] of a.named) out[k] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const resource: ResourceModel = {
    group: group ?? '',
    kind,
    plural: one('plural') ?? pluralize(kind.toLowerCase()),
    singular: one('singular') ?? kind.toLowerCase(),
    listKind: one('listKind') ?? `${kind}List`,
    scope: scopeRaw === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions: [version],
    location: ctx.loc(decl.name),
  };
  const shortNames = tags('shortName').flatMap((t) => ctx.str(doc, t) ?? []);
  if (shortNames.length) resource.shortNames = shortNames;
  const categories = tags('category').flatMap((t) => ctx.str(doc, t) ?? []);
  if (categories.length) resource.categories = categories;
  const annotations = kv('crdAnnotation');
  if (annotations) resource.annotations = annotations;
  const labels = kv('crdLabel');
  if (labels) resource.labels = labels;
  const conv = tags('conversion')[0];
  if (conv) {
    const c = ctx.json(doc, conv);
    if (c !== undefined && (c === null || typeof c !== 'object' || Array.isArray(c)))
      ctx.error(ctx.tagLoc(doc, conv), '@conversion takes a JSON object, e.g. {"strategy": "None"}');
    else if (c !== undefined) resource.conversion = c as Record<string, unknown>;
  }
  return { resource, version };
}

/** The `@rbac` permissions of a doc comment. */
export function readPermissions(ctx: ReadContext, doc: Doc): PolicyRuleModel[] {
  const out: PolicyRuleModel[] = [];
  for (const t of doc.comment.tags.filter((x) => x.name === 'rbac')) {
    const a = ctx.args(doc, t);
    if (!a) continue;
    const list = (k: string) =>
      a.named
        .get(k)
        ?.split(/[;,]/)
        .map((s) => s.trim()) ?? undefined;
    const groups = list('groups');
    const resources = list('resources');
    const verbs = list('verbs');
    if (groups === undefined || !resources?.length || !verbs?.length) {
      ctx.error(
        ctx.tagLoc(doc, t),
        '@rbac needs groups=… (use groups="" for the core group), resources=… and verbs=…, lists separated by ;',
      );
      continue;
    }
    for (const k of a.named.keys()) {
      if (!['groups', 'resources', 'verbs', 'resourceNames'].includes(k))
        ctx.error(ctx.tagLoc(doc, t), `@rbac: unknown argument ${k}`);
    }
    const rule: PolicyRuleModel = {
      apiGroups: groups.map((g) => (g === 'core' ? '' : g)),
      resources,
      verbs,
      location: ctx.tagLoc(doc, t),
    };
    const names = list('resourceNames');
    if (names) rule.resourceNames = names;
    out.push(rule);
  }
  return out;
}

/** The default plural of a lower-case kind (English rules, as kubebuilder applies them). */
function pluralize(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
