import { CodegenError } from './codegen-error.ts';
import { schemaToJson } from './crd-writer.ts';
import { quoteArg, renderDocComment } from './internal/jsdoc.ts';
import { enumInType, json, nodeMarkers } from './internal/node-markers.ts';
import { sortKeys } from './internal/sort-keys.ts';
import { duplicateModuleIssue, versionIndexFiles } from './internal/version-index.ts';
import type { ResourceModel, SchemaNode, VersionModel } from './ir.ts';

/** Options for {@link resourcesToTypeScript} and {@link versionToTypeScript}. */
export interface TypeScriptWriterOptions {
  /** Emit a runtime validator (`<Kind>Validator`). Default true. */
  readonly validator?: boolean;
  /** Emit typed client constructors for `@kubeloom/kclient`. Default true. */
  readonly client?: boolean;
  /**
   * Extension of the relative imports in generated code (each version's `index.ts`). Default
   * `.ts`. See {@link ImportExtension} for the compiler settings each choice needs.
   */
  readonly importExtension?: ImportExtension;
  /** Shown in the header comment, e.g. the CRD file name. */
  readonly source?: string;
}

/**
 * How generated modules write relative import specifiers, to fit the consumer's compiler settings:
 *
 * - `'.ts'` (`./widget.ts`): run the sources directly (Node's type stripping, `tsx`, Vitest) or
 *   compile with `allowImportingTsExtensions` and `rewriteRelativeImportExtensions` (or `noEmit`).
 * - `'.js'` (`./widget.js`): `tsc` with `module`/`moduleResolution` `nodenext` (or `node16`) in an
 *   ESM package scope, emitting JavaScript that Node runs as is.
 * - `''` (`./widget`): `moduleResolution: bundler` (esbuild, Vite, webpack and the like); Node's
 *   ESM loader and `nodenext` resolution reject extensionless relative specifiers.
 */
export type ImportExtension = '.ts' | '.js' | '';

/** One generated file: a path relative to the output directory and its content. */
export interface GeneratedFile {
  /** Relative path with `/` separators. */
  readonly path: string;
  /** The file content. */
  readonly content: string;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pascal(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) =>
    c ? c.toUpperCase() : '',
  );
  const p = cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
  return /^[0-9]/.test(p) ? `X${p}` : p || 'X';
}

function propKey(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

/**
 * The fields of an object in declaration order, except that the required ones take the order of
 * `required` among themselves (the TypeScript reader lists required fields in declaration order,
 * so `required` round-trips exactly).
 */
function fieldOrder(node: SchemaNode): Array<[string, SchemaNode]> {
  const fields = Object.entries(node.properties ?? {});
  const required = (node.required ?? []).filter((k) => node.properties?.[k]);
  const set = new Set(required);
  let next = 0;
  return fields.map(([name, sub]) => {
    if (!set.has(name)) return [name, sub];
    const k = required[next++]!;
    return [k, node.properties![k]!];
  });
}

/** Whether a node needs its own declaration to carry markers (in item or map-value position). */
function isTrivial(node: SchemaNode): boolean {
  const keys = Object.keys(node).filter(
    (k) => k !== 'location' && (node as Record<string, unknown>)[k] !== undefined,
  );
  if (node.type === 'object' && node.properties) return false;
  if (node.type === 'array')
    return keys.every((k) => k === 'type' || k === 'items') && isTrivial(node.items!);
  if (node.type === 'integer' || node.type === 'number') return false;
  return keys.every((k) => k === 'type');
}

/**
 * A `oneOf` or `anyOf` whose branches only require fields (`oneOf: [{required: [a]}, {required:
 * [b]}]`), when TypeScript can say the same: for `oneOf`, each branch must rule the others out by
 * the absence of one field each. Undefined otherwise (the constraint stays a marker only).
 */
function requiredSetJunction(node: SchemaNode): { kind: 'oneOf' | 'anyOf'; sets: string[][] } | undefined {
  if (!node.properties || (node.oneOf && node.anyOf)) return undefined;
  const kind = node.oneOf ? 'oneOf' : node.anyOf ? 'anyOf' : undefined;
  if (!kind || node.intOrString) return undefined;
  const branches = node[kind]!;
  const onlyRequired = (b: SchemaNode) =>
    Object.keys(b).every(
      (k) => k === 'required' || k === 'location' || b[k as keyof SchemaNode] === undefined,
    );
  if (branches.length < 2 || !branches.every((b) => onlyRequired(b) && (b.required?.length ?? 0) > 0))
    return undefined;
  const sets = branches.map((b) => b.required!);
  if (!sets.every((r) => r.every((f) => node.properties![f]))) return undefined;
  if (kind === 'oneOf') {
    for (const [i, r] of sets.entries())
      for (const [j, o] of sets.entries())
        if (i !== j && o.filter((f) => !r.includes(f)).length !== 1) return undefined;
  }
  return { kind, sets };
}

/** The union branches of {@link requiredSetJunction}: `{ a: …; b?: never } | { b: …; a?: never }`. */
function junctionBranches(fields: string, j: { kind: 'oneOf' | 'anyOf'; sets: string[][] }): string {
  return j.sets
    .map((r) => {
      const present = r.map((f) => `${propKey(f)}: Exclude<${fields}[${JSON.stringify(f)}], undefined>`);
      const others = j.kind === 'oneOf' ? [...new Set(j.sets.flat())].filter((f) => !r.includes(f)) : [];
      return `{ ${[...present, ...others.map((f) => `${propKey(f)}?: never`)].join('; ')} }`;
    })
    .join(' | ');
}

class Emitter {
  readonly decls: string[] = [];
  readonly names = new Set<string>();
  readonly kind: string;
  constructor(kind: string) {
    this.kind = kind;
  }

  unique(base: string): string {
    let name = base;
    for (let i = 2; this.names.has(name); i++) name = `${base}${i}`;
    this.names.add(name);
    return name;
  }

  childBase(parent: string, field: string): string {
    if (parent === `${this.kind}Spec`) return `${this.kind}${pascal(field)}`;
    return `${parent}${pascal(field)}`;
  }

  /** The TS type of a node; declares interfaces/aliases for nested structures. */
  typeOf(node: SchemaNode, base: string, position: 'field' | 'item'): string {
    let t: string;
    if (position === 'item' && !isTrivial(node) && !(node.type === 'object' && node.properties)) {
      const name = this.unique(base);
      const inner = this.bareType(node, name);
      this.decls.push(
        `${renderDocComment(node.description, nodeMarkers(node), '')}export type ${name} = ${inner};\n`,
      );
      return name;
    }
    if (node.type === 'object' && node.properties) {
      const name = this.unique(base);
      this.declareInterface(name, node, position === 'item' ? nodeMarkers(node) : []);
      t = name;
    } else {
      t = this.bareType(node, base);
    }
    return node.nullable && !t.endsWith('| null') ? `${t} | null` : t;
  }

  bareType(node: SchemaNode, base: string): string {
    let t: string;
    if (node.intOrString) t = 'number | string';
    else if (enumInType(node))
      t = node
        .enum!.filter((v) => v !== null)
        .map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)))
        .join(' | ');
    else {
      switch (node.type) {
        case 'string':
          t = 'string';
          break;
        case 'integer':
        case 'number':
          t = 'number';
          break;
        case 'boolean':
          t = 'boolean';
          break;
        case 'array': {
          const item = this.typeOf(node.items ?? {}, `${base}Item`, 'item');
          t = /[|&]/.test(item) ? `Array<${item}>` : `${item}[]`;
          break;
        }
        case 'object':
          if (node.properties) {
            const name = this.unique(base);
            this.declareInterface(name, node, []);
            t = name;
          } else if (node.additionalProperties && typeof node.additionalProperties === 'object') {
            t = `{ [key: string]: ${this.typeOf(node.additionalProperties, `${base}Value`, 'item')} }`;
          } else {
            t = '{ [key: string]: unknown }';
          }
          break;
        default:
          t = 'unknown';
      }
    }
    return node.nullable ? `${t} | null` : t;
  }

  fieldLines(node: SchemaNode, parentName: string, indent: string): string {
    let out = '';
    const required = new Set(node.required ?? []);
    for (const [name, sub] of fieldOrder(node)) {
      const type = this.typeOf(sub, this.childBase(parentName, name), 'field');
      out += renderDocComment(sub.description, nodeMarkers(sub), indent);
      out += `${indent}${propKey(name)}${required.has(name) ? '' : '?'}: ${type};\n`;
    }
    for (const name of node.required ?? []) {
      if (!node.properties?.[name])
        throw new CodegenError([
          {
            message: `required field ${name} of ${parentName} is not declared in properties`,
            ...(node.location ? { location: node.location } : {}),
          },
        ]);
    }
    return out;
  }

  /** Declares interface `name` for the object `node` (documented by its description and `markers`). */
  declareInterface(name: string, node: SchemaNode, markers: string[]): void {
    const slot = this.decls.length;
    this.decls.push('');
    const junction = requiredSetJunction(node);
    if (junction) {
      // oneOf/anyOf of required-field sets: the fields (undocumented), and a union the compiler checks
      const fields = this.unique(`${name}Fields`);
      this.declareInterface(
        fields,
        { ...node, oneOf: undefined, anyOf: undefined, description: undefined },
        [],
      );
      this.decls[slot] =
        `${renderDocComment(node.description, markers, '')}export type ${name} = ${fields} & (${junctionBranches(fields, junction)});\n`;
      return;
    }
    // x-kubernetes-preserve-unknown-fields keeps undeclared fields: an open type
    const open = node.preserveUnknownFields ? '  [key: string]: unknown;\n' : '';
    const body = this.fieldLines(node, name, '  ') + open;
    this.decls[slot] =
      `${renderDocComment(node.description, markers, '')}export interface ${name} {\n${body}}\n`;
  }
}

function resourceMarkers(r: ResourceModel, v: VersionModel): string[] {
  const m = [
    `@group ${r.group}`,
    `@version ${v.name}`,
    `@kind ${r.kind}`,
    `@scope ${r.scope}`,
    `@plural ${r.plural}`,
  ];
  if (r.singular !== r.kind.toLowerCase()) m.push(`@singular ${r.singular}`);
  if (r.listKind !== `${r.kind}List`) m.push(`@listKind ${r.listKind}`);
  for (const s of r.shortNames ?? []) m.push(`@shortName ${s}`);
  for (const c of r.categories ?? []) m.push(`@category ${c}`);
  if (v.storage) m.push('@storageVersion');
  if (!v.served) m.push('@served false');
  if (v.deprecated)
    m.push(
      v.deprecationWarning !== undefined
        ? `@deprecatedVersion warning=${JSON.stringify(v.deprecationWarning)}`
        : '@deprecatedVersion',
    );
  if (v.statusSubresource) m.push('@subresource status');
  if (v.explicitSubresources && !v.statusSubresource && !v.scale) m.push('@subresource none');
  if (v.scale) {
    const s = v.scale;
    m.push(
      `@subresource scale specPath=${quoteArg(s.specReplicasPath)} statusPath=${quoteArg(s.statusReplicasPath)}${s.labelSelectorPath ? ` selectorPath=${quoteArg(s.labelSelectorPath)}` : ''}`,
    );
  }
  for (const c of v.printerColumns ?? []) {
    const args = [`name=${quoteArg(c.name)}`, `type=${c.type}`, `jsonPath=${quoteArg(c.jsonPath)}`];
    if (c.description !== undefined) args.push(`description=${JSON.stringify(c.description)}`);
    if (c.format !== undefined) args.push(`format=${c.format}`);
    if (c.priority !== undefined) args.push(`priority=${c.priority}`);
    m.push(`@printColumn ${args.join(' ')}`);
  }
  for (const f of v.selectableFields ?? []) m.push(`@selectableField jsonPath=${quoteArg(f)}`);
  if (r.conversion) m.push(`@conversion ${json(r.conversion)}`);
  for (const [k, val] of Object.entries(r.annotations ?? {}).sort())
    m.push(`@crdAnnotation ${quoteArg(k)}=${quoteArg(val)}`);
  for (const [k, val] of Object.entries(r.labels ?? {}).sort())
    m.push(`@crdLabel ${quoteArg(k)}=${quoteArg(val)}`);
  return m;
}

/** The file name (kebab-free, lower-case kind) of a resource version's generated module. */
export function moduleFileName(r: ResourceModel): string {
  return `${r.kind.toLowerCase()}.ts`;
}

/** The names a version module declares besides its types. */
function reservedNames(kind: string): string[] {
  return [
    `${kind}Resource`,
    `${kind}Schema`,
    `${kind}Validator`,
    `${kind}List`,
    `${kind}Client`,
    `create${kind}Client`,
  ];
}

/** The first version of `r` before `v` with the same schema (descriptions included), if any. */
function schemaOwner(r: ResourceModel, v: VersionModel): VersionModel | undefined {
  const key = (x: VersionModel) => JSON.stringify(sortKeys(schemaToJson(x.schema)));
  const mine = key(v);
  for (const o of r.versions) {
    if (o === v) return undefined;
    if (key(o) === mine) return o;
  }
  return undefined;
}

/**
 * Generates the TypeScript module of one resource version: the object types (with markers, so
 * the module reads back into the same CRD), `<Kind>Resource` (a typed descriptor for
 * `@kubeloom/kclient`), `<Kind>Schema` and `<Kind>Validator`, and typed client constructors.
 */
export function versionToTypeScript(
  r: ResourceModel,
  v: VersionModel,
  options: TypeScriptWriterOptions = {},
): string {
  const kind = r.kind;
  const e = new Emitter(kind);
  e.names.add(kind);
  for (const reserved of reservedNames(kind)) e.names.add(reserved);
  const root = v.schema;
  const rootMarkers = [
    ...resourceMarkers(r, v),
    ...nodeMarkers(root).filter((m) => !m.startsWith('@object')),
  ];
  const slot = e.decls.length;
  e.decls.push('');
  let body = '';
  const required = new Set(root.required ?? []);
  for (const [name, sub] of fieldOrder(root)) {
    let type: string;
    let markers: string[];
    if (name === 'metadata') {
      type = 'ObjectMeta';
      markers = nodeMarkers(sub).filter((m) => m !== '@object');
    } else if (name === 'spec' || name === 'status') {
      type = e.typeOf(sub, `${kind}${pascal(name)}`, 'field');
      markers = nodeMarkers(sub);
    } else {
      type = e.typeOf(sub, `${kind}${pascal(name)}`, 'field');
      markers = nodeMarkers(sub);
    }
    body += renderDocComment(sub.description, markers, '  ');
    body += `  ${propKey(name)}${required.has(name) ? '' : '?'}: ${type};\n`;
  }
  // A root without apiVersion/kind/metadata in its schema still is a Kubernetes object.
  const plain = !['apiVersion', 'kind', 'metadata'].some((k) => root.properties?.[k]);
  e.decls[slot] =
    `${renderDocComment(root.description, rootMarkers, '')}export interface ${kind}${plain ? ' extends KubeObject' : ''} {\n${body}}\n`;

  const withValidator = options.validator !== false;
  const withClient = options.client !== false;
  // A version whose schema an earlier version already has imports that version's types.
  const owner = schemaOwner(r, v);
  let shared = '';
  if (owner) {
    const from = JSON.stringify(
      `../${owner.name}/${r.kind.toLowerCase()}${options.importExtension ?? '.ts'}`,
    );
    const types = [...e.names].filter((n) => n !== kind && !reservedNames(kind).includes(n)).sort();
    if (types.length > 0)
      shared += `import type { ${types.join(', ')} } from ${from};\nexport type { ${types.join(', ')} } from ${from};\n`;
    if (withValidator) shared += `import { ${kind}Schema } from ${from};\nexport { ${kind}Schema };\n`;
    e.decls.splice(slot + 1);
  }
  const hasStatus = v.statusSubresource === true;
  const imports = [
    `import { defineResource, type KubeObject, type ListMeta, type ObjectMeta, type TypedResourceDescriptor${withClient ? ', type KubeClient' : ''} } from '@kubeloom/kube';`,
  ];
  if (withValidator) {
    imports.push(
      `import { createValidator, ${owner ? '' : 'type JsonSchemaProps, '}type ObjectValidator } from '@kubeloom/codegen-runtime';`,
    );
  }
  if (withClient)
    imports.push(
      v.scale
        ? `import { type Client, type ClientOptions, createClient, type WithScale, withScale } from '@kubeloom/kclient';`
        : `import { type Client, type ClientOptions, createClient } from '@kubeloom/kclient';`,
    );
  const descriptor: string[] = [
    `  group: ${JSON.stringify(r.group)},`,
    `  version: ${JSON.stringify(v.name)},`,
    `  kind: ${JSON.stringify(kind)},`,
    `  plural: ${JSON.stringify(r.plural)},`,
    `  singular: ${JSON.stringify(r.singular)},`,
    `  namespaced: ${r.scope === 'Namespaced'},`,
    `  listKind: ${JSON.stringify(r.listKind)},`,
    `  subresources: { status: ${hasStatus}, scale: ${v.scale !== undefined} },`,
  ];
  if (r.shortNames?.length) descriptor.push(`  shortNames: ${JSON.stringify(r.shortNames)},`);
  const source = options.source ?? (r.location ? r.location.file.split(/[\\/]/).pop() : undefined);
  let out = `// Code generated by kubeloom-gen${source ? ` from ${source}` : ''}. DO NOT EDIT.\n`;
  out += `// ${r.plural}.${r.group}, version ${v.name}.\n\n`;
  out += `${imports.join('\n')}\n${shared}\n`;
  out += e.decls.join('\n');
  out += `\n/** A list of ${kind} objects. */\nexport interface ${kind}List {\n  apiVersion?: string;\n  kind?: string;\n  metadata?: ListMeta;\n  items: ${kind}[];\n}\n`;
  out += `\n/** The typed resource descriptor of ${kind} (${r.plural}.${r.group}/${v.name}). */\n`;
  out += `export const ${kind}Resource: TypedResourceDescriptor<${kind}> = defineResource<${kind}>({\n${descriptor.join('\n')}\n});\n`;
  if (withValidator) {
    if (!owner) {
      const schemaJson = JSON.stringify(sortKeys(schemaToJson(root, { dropDescriptions: true })));
      out += `\n/** The OpenAPI v3 schema of ${kind} ${v.name} (descriptions dropped). */\n`;
      out += `export const ${kind}Schema: JsonSchemaProps = ${schemaJson};\n`;
    }
    out += `\n/** Validates ${kind} objects as the apiserver does: schema, formats, defaults and CEL rules (unevaluable rules are reported, never passed silently). */\n`;
    const scale = v.scale
      ? `, { scale: { ${Object.entries(sortKeys({ ...v.scale }) as Record<string, string>)
          .map(([k, p]) => `${k}: ${JSON.stringify(p)}`)
          .join(', ')} } }`
      : '';
    out += `export const ${kind}Validator: ObjectValidator<${kind}> = createValidator<${kind}>(${kind}Schema${scale});\n`;
  }
  if (withClient) {
    const omitted = hasStatus ? '' : "'updateStatus' | 'patchStatus' | 'applyStatus'";
    const notes = [
      hasStatus ? 'status writes' : 'no status subresource, so no status writes',
      v.scale ? 'getScale/updateScale' : 'no scale subresource, so no scale methods',
    ];
    const base = omitted ? `Omit<Client<${kind}>, ${omitted}>` : `Client<${kind}>`;
    out += `\n/** A typed client for ${kind} (${notes.join('; ')}). */\n`;
    out += `export type ${kind}Client = ${v.scale ? `WithScale<${base}>` : base};\n`;
    out += `\n/** Creates a typed client for ${kind} (${r.plural}.${r.group}/${v.name}). */\n`;
    const make = `createClient(kube, ${kind}Resource, options)`;
    out += `export function create${kind}Client(kube: KubeClient, options?: ClientOptions<${kind}>): ${kind}Client {\n  return ${v.scale ? `withScale(${make})` : make};\n}\n`;
  }
  return out;
}

/** The directory of a resource version's module: `<group>/<version>`. */
export function versionDirectory(r: ResourceModel, v: VersionModel): string {
  return `${r.group}/${v.name}`;
}

/**
 * Generates the TypeScript modules of resources: one file per kind and version
 * (`<group>/<version>/<kind>.ts`) and an `index.ts` per version directory. Output is sorted and
 * deterministic.
 */
export function resourcesToTypeScript(
  resources: readonly ResourceModel[],
  options: TypeScriptWriterOptions = {},
): GeneratedFile[] {
  const files = new Map<string, string>();
  const owners = new Map<string, ResourceModel>();
  for (const r of resources) {
    for (const v of r.versions) {
      const file = `${versionDirectory(r, v)}/${moduleFileName(r)}`;
      const prev = owners.get(file);
      if (prev) throw new CodegenError([duplicateModuleIssue({ file, first: prev, again: r, version: v })]);
      owners.set(file, r);
      files.set(file, versionToTypeScript(r, v, options));
    }
  }
  for (const f of versionIndexFiles(owners.keys(), options.importExtension ?? '.ts'))
    files.set(f.path, f.content);
  return [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, content]) => ({ path, content }));
}
