import path from 'node:path';
import ts from 'typescript';
import { parseCel } from './cel/parser.ts';
import { CodegenError, type CodegenIssue } from './codegen-error.ts';
import { compareVersions } from './internal/compare-versions.ts';
import { type DocComment, type DocTag, parseArgs, parseDocComment } from './internal/jsdoc.ts';
import { jsonToSchema } from './internal/json-to-schema.ts';
import { knownType } from './internal/known-types.ts';
import { IGNORED_TAGS, MARKERS_BY_NAME, suggestMarker } from './internal/marker-lookup.ts';
import { isNumericKeyword, isSizeKeyword } from './internal/numeric-keywords.ts';
import type {
  ApiModel,
  CelReason,
  CelRule,
  PolicyRuleModel,
  PrinterColumn,
  ResourceModel,
  SchemaNode,
  SchemaType,
  SourceLocation,
  VersionModel,
} from './ir.ts';
import type { MarkerTarget } from './markers.ts';
import { checkResource } from './structural.ts';

/** Options for {@link readTypeScript}. */
export interface ReadTypeScriptOptions {
  /** Compiler options for the program (module resolution of imports). Defaults suit ESM/NodeNext. */
  readonly compilerOptions?: ts.CompilerOptions;
  /** File names in messages are made relative to this directory. Default: the current directory. */
  readonly baseDir?: string;
  /** An existing program to read from (the files must be part of it). */
  readonly program?: ts.Program;
}

const DEFAULT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  customConditions: ['@kubeloom/source'],
};

const RESOURCE_TAGS = new Set([
  'group',
  'version',
  'kind',
  'scope',
  'plural',
  'singular',
  'listKind',
  'shortName',
  'category',
  'storageVersion',
  'served',
  'deprecatedVersion',
  'subresource',
  'printColumn',
  'selectableField',
  'crdAnnotation',
  'crdLabel',
  'conversion',
]);
const CEL_REASONS = new Set([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);

type Pending = 'number' | 'intOrString' | 'unknown' | 'unknownMap';

interface Doc {
  readonly comment: DocComment;
  readonly file: string;
}

class Reader {
  readonly issues: CodegenIssue[] = [];
  readonly pending = new WeakMap<SchemaNode, Pending>();
  readonly stack: ts.Declaration[] = [];
  readonly checker: ts.TypeChecker;
  readonly inputs: Set<string>;
  readonly baseDir: string;
  constructor(checker: ts.TypeChecker, inputs: Set<string>, baseDir: string) {
    this.checker = checker;
    this.inputs = inputs;
    this.baseDir = baseDir;
  }

  display(file: string): string {
    const rel = path.relative(this.baseDir, file);
    return rel.startsWith('..') ? file : rel;
  }

  loc(node: ts.Node): SourceLocation {
    const sf = node.getSourceFile();
    const pos = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    return { file: this.display(sf.fileName), line: pos.line + 1, column: pos.character + 1 };
  }

  tagLoc(doc: Doc, tag: DocTag): SourceLocation {
    return { file: doc.file, line: tag.line, column: tag.column };
  }

  error(at: ts.Node | SourceLocation, message: string): void {
    this.issues.push({
      message,
      location: 'kind' in at || 'getSourceFile' in at ? this.loc(at as ts.Node) : (at as SourceLocation),
    });
  }

  /** The last `/** … *\/` comment directly before a node. */
  docOf(node: ts.Node): Doc | undefined {
    const sf = node.getSourceFile();
    const ranges = [
      ...(ts.getTrailingCommentRanges(sf.text, node.getFullStart()) ?? []),
      ...(ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? []),
    ];
    const r = [...ranges]
      .reverse()
      .find((c) => sf.text.startsWith('/**', c.pos) && !sf.text.startsWith('/**/', c.pos));
    if (!r) return undefined;
    const start = sf.getLineAndCharacterOfPosition(r.pos);
    return {
      comment: parseDocComment(sf.text.slice(r.pos, r.end), start.line + 1, start.character + 1),
      file: this.display(sf.fileName),
    };
  }

  /** Checks every tag of a doc comment exists and may appear at `target`. */
  checkTags(doc: Doc | undefined, target: MarkerTarget, isResource = false): void {
    if (!doc) return;
    const counts = new Map<string, number>();
    for (const tag of doc.comment.tags) {
      if (IGNORED_TAGS.has(tag.name)) continue;
      const base = tag.name.startsWith('items.') ? tag.name.slice(6) : tag.name;
      const spec = MARKERS_BY_NAME.get(base);
      if (!spec || (tag.name.startsWith('items.') && !spec.targets.includes('type'))) {
        const s = suggestMarker(tag.name);
        this.error(
          this.tagLoc(doc, tag),
          `unknown marker @${tag.name}${s ? `; did you mean @${s}?` : ''} (see the marker list in the @kubeloom/codegen README)`,
        );
        continue;
      }
      const allowed =
        spec.targets.includes(target) ||
        (isResource && spec.targets.includes('resource')) ||
        (target === 'resource' && spec.targets.includes('type'));
      if (!allowed) {
        const where = spec.targets.includes('resource')
          ? "on a resource's root interface (the one with @group and @version)"
          : spec.targets.includes('field')
            ? 'on a field'
            : 'on an interface, a type alias or a field';
        this.error(this.tagLoc(doc, tag), `misplaced marker @${tag.name}: it belongs ${where}`);
        continue;
      }
      counts.set(tag.name, (counts.get(tag.name) ?? 0) + 1);
      if (!spec.repeatable && counts.get(tag.name) === 2)
        this.error(this.tagLoc(doc, tag), `marker @${tag.name} appears twice`);
    }
  }

  num(doc: Doc, tag: DocTag): number | undefined {
    const n = Number(tag.value);
    if (tag.value === '' || !Number.isFinite(n)) {
      this.error(this.tagLoc(doc, tag), `@${tag.name} needs a number, got ${JSON.stringify(tag.value)}`);
      return undefined;
    }
    return n;
  }

  str(doc: Doc, tag: DocTag): string | undefined {
    const v = tag.value;
    if (v.startsWith('"')) {
      try {
        return JSON.parse(v) as string;
      } catch {
        this.error(this.tagLoc(doc, tag), `@${tag.name}: invalid quoted string ${v} (use a JSON string)`);
        return undefined;
      }
    }
    if (v.startsWith("'") && v.endsWith("'") && v.length > 1) {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name}: single quotes would be kept literally; write the value bare or as a JSON "string"`,
      );
      return undefined;
    }
    if (v === '') {
      this.error(this.tagLoc(doc, tag), `@${tag.name} needs a value`);
      return undefined;
    }
    return v;
  }

  json(doc: Doc, tag: DocTag): unknown {
    try {
      return JSON.parse(tag.value);
    } catch {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name} takes a JSON value, got ${JSON.stringify(tag.value)} (strings need double quotes)`,
      );
      return undefined;
    }
  }

  args(doc: Doc, tag: DocTag): ReturnType<typeof parseArgs> | undefined {
    try {
      return parseArgs(tag.value);
    } catch (e) {
      this.error(this.tagLoc(doc, tag), `@${tag.name}: ${(e as Error).message}`);
      return undefined;
    }
  }

  celRule(doc: Doc, tag: DocTag, rule: CelRule): CelRule {
    try {
      parseCel(rule.rule);
    } catch (e) {
      this.error(
        this.tagLoc(doc, tag),
        `@${tag.name}: the CEL rule ${JSON.stringify(rule.rule)} does not parse: ${(e as Error).message}`,
      );
    }
    return rule;
  }

  /** Applies schema markers of a doc comment to a node. */
  applyMarkers(node: SchemaNode, doc: Doc | undefined, field: boolean): { optional?: boolean } {
    const out: { optional?: boolean } = {};
    if (!doc) return out;
    const checks: Array<{ target: SchemaNode; tag: DocTag; applies: readonly string[] }> = [];
    for (const tag of doc.comment.tags) {
      if (RESOURCE_TAGS.has(tag.name) || IGNORED_TAGS.has(tag.name) || tag.name === 'rbac') continue;
      let target = node;
      let name = tag.name;
      if (name.startsWith('items.')) {
        if (node.type !== 'array' || !node.items) {
          this.error(this.tagLoc(doc, tag), `misplaced marker @${name}: items.* markers apply to lists`);
          continue;
        }
        target = node.items;
        name = name.slice(6);
      }
      const spec = MARKERS_BY_NAME.get(name);
      if (!spec) continue; // reported by checkTags
      if (name === 'optional' || name === 'required') {
        if (field) out.optional = name === 'optional';
        continue;
      }
      this.applyMarker(target, name, doc, tag);
      if (spec.appliesTo) checks.push({ target, tag, applies: spec.appliesTo });
    }
    for (const { target, tag, applies } of checks) {
      const t = target.intOrString ? ['integer', 'string'] : target.type ? [target.type] : [];
      const pendingUnknownMap = this.pending.get(target) === 'unknownMap' && applies.includes('object');
      if (!t.some((x) => (applies as readonly string[]).includes(x)) && !pendingUnknownMap) {
        this.error(
          this.tagLoc(doc, tag),
          `misplaced marker @${tag.name}: it applies to ${applies.join(' or ')} values, but this is ${target.intOrString ? 'int-or-string' : (target.type ?? 'untyped')}`,
        );
      }
    }
    return out;
  }

  applyMarker(node: SchemaNode, name: string, doc: Doc, tag: DocTag): void {
    const at = this.tagLoc(doc, tag);
    const setNumberType = (t: 'integer' | 'number') => {
      if (this.pending.get(node) === 'number' || node.type === 'integer' || node.type === 'number') {
        node.type = t;
        this.pending.delete(node);
      }
    };
    if (isNumericKeyword(name)) {
      const n = this.num(doc, tag);
      if (n === undefined) return;
      if (isSizeKeyword(name) && (!Number.isInteger(n) || n < 0)) {
        this.error(at, `@${name} needs a non-negative integer, got ${tag.value}`);
        return;
      }
      if ((name === 'minimum' || name === 'maximum') && node.type === 'integer' && !Number.isInteger(n)) {
        this.error(at, `@${name} ${n} is not an integer, but the field is an integer`);
      }
      node[name] = n;
      return;
    }
    switch (name) {
      case 'integer':
        setNumberType('integer');
        break;
      case 'float':
        setNumberType('number');
        break;
      case 'format': {
        const f = this.str(doc, tag);
        if (f === undefined) break;
        node.format = f;
        if (f === 'int32' || f === 'int64') setNumberType('integer');
        if (f === 'float' || f === 'double') setNumberType('number');
        break;
      }
      case 'title':
      case 'pattern': {
        const s = this.str(doc, tag);
        if (s !== undefined) node[name] = s;
        break;
      }
      case 'enum': {
        const v = this.json(doc, tag);
        if (v !== undefined && !Array.isArray(v))
          this.error(at, '@enum takes a JSON array, e.g. @enum ["A", "B"]');
        else if (Array.isArray(v)) node.enum = v;
        break;
      }
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const bound = name === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (tag.value === '' || tag.value === 'true') node[name] = true;
        else if (tag.value === 'false') node[name] = false;
        else {
          const n = this.num(doc, tag);
          if (n !== undefined) {
            node[bound] = n;
            node[name] = true;
          }
        }
        break;
      }
      case 'default':
      case 'example': {
        const v = this.json(doc, tag);
        if (v !== undefined) node[name] = v;
        break;
      }
      case 'nullable':
        node.nullable = true;
        break;
      case 'listType':
      case 'mapType': {
        const s = this.str(doc, tag);
        const allowed = name === 'listType' ? ['atomic', 'set', 'map'] : ['atomic', 'granular'];
        if (s !== undefined && !allowed.includes(s))
          this.error(at, `@${name} must be one of ${allowed.join(', ')}, got ${s}`);
        else if (s !== undefined) (node as Record<string, unknown>)[name] = s;
        break;
      }
      case 'listMapKey': {
        const s = this.str(doc, tag);
        if (s !== undefined) node.listMapKeys = [...(node.listMapKeys ?? []), s];
        break;
      }
      case 'preserveUnknownFields': {
        const p = this.pending.get(node);
        if (p === 'unknown' || p === 'unknownMap') this.pending.delete(node);
        if (p === 'unknownMap') delete node.additionalProperties;
        node.preserveUnknownFields = true;
        break;
      }
      case 'object': {
        if (this.pending.get(node) === 'unknownMap') {
          this.pending.delete(node);
          delete node.additionalProperties;
        } else if (node.type !== 'object')
          this.error(at, 'misplaced marker @object: it applies to Record<string, unknown> / object values');
        break;
      }
      case 'embeddedResource':
        node.embeddedResource = true;
        break;
      case 'intOrString':
        if (this.pending.get(node) === 'intOrString') this.pending.delete(node);
        else if (node.type !== 'string' && node.type !== 'integer' && this.pending.get(node) !== 'number') {
          this.error(at, 'misplaced marker @intOrString: it applies to `number | string`');
          break;
        }
        this.pending.delete(node);
        delete node.type;
        node.intOrString = true;
        node.anyOf = [{ type: 'integer' }, { type: 'string' }];
        break;
      case 'immutable':
        node.validations = [
          ...(node.validations ?? []),
          { rule: 'self == oldSelf', message: 'field is immutable' },
        ];
        break;
      case 'validation': {
        const a = this.args(doc, tag);
        if (!a) break;
        const rule = a.named.get('rule');
        if (rule === undefined) {
          this.error(at, '@validation needs rule="…" (a CEL expression)');
          break;
        }
        for (const k of a.named.keys()) {
          if (
            !['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'].includes(k)
          ) {
            this.error(
              at,
              `@validation: unknown argument ${k} (rule, message, messageExpression, reason, fieldPath, optionalOldSelf)`,
            );
          }
        }
        if (a.positional.length > 0)
          this.error(at, `@validation: unexpected ${JSON.stringify(a.positional[0])}; write rule="…"`);
        const r: { -readonly [K in keyof CelRule]?: CelRule[K] } = { rule };
        const message = a.named.get('message');
        if (message !== undefined) r.message = message;
        const me = a.named.get('messageExpression');
        if (me !== undefined) r.messageExpression = me;
        const reason = a.named.get('reason');
        if (reason !== undefined) {
          if (!CEL_REASONS.has(reason))
            this.error(at, `@validation reason must be one of ${[...CEL_REASONS].join(', ')}`);
          else r.reason = reason as CelReason;
        }
        const fp = a.named.get('fieldPath');
        if (fp !== undefined) r.fieldPath = fp;
        const oos = a.named.get('optionalOldSelf');
        if (oos === 'true') r.optionalOldSelf = true;
        node.validations = [...(node.validations ?? []), this.celRule(doc, tag, r as CelRule)];
        break;
      }
      case 'exactlyOneOf':
      case 'atMostOneOf':
      case 'atLeastOneOf': {
        const s = this.str(doc, tag);
        if (s === undefined) break;
        const fields = s
          .split(/[,;]/)
          .map((x) => x.trim())
          .filter(Boolean);
        for (const f of fields)
          if (!node.properties?.[f]) this.error(at, `@${name}: ${f} is not a field of this object`);
        const list = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
        const [op, what] =
          name === 'exactlyOneOf'
            ? ['== 1', 'exactly one']
            : name === 'atMostOneOf'
              ? ['<= 1', 'at most one']
              : ['>= 1', 'at least one'];
        node.validations = [
          ...(node.validations ?? []),
          { rule: `${list} ${op}`, message: `${what} of the fields in [${fields.join(' ')}] must be set` },
        ];
        break;
      }
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        const v = this.json(doc, tag);
        if (v !== undefined && !Array.isArray(v)) this.error(at, `@${name} takes a JSON array of schemas`);
        else if (Array.isArray(v)) node[name] = v.map((x) => jsonToSchema(x as Record<string, unknown>));
        break;
      }
      case 'not': {
        const v = this.json(doc, tag);
        if (v !== undefined) node.not = jsonToSchema(v as Record<string, unknown>);
        break;
      }
      case 'externalDocs': {
        const a = this.args(doc, tag);
        if (!a) break;
        node.externalDocs = {
          ...(a.named.has('description') ? { description: a.named.get('description')! } : {}),
          ...(a.named.has('url') ? { url: a.named.get('url')! } : {}),
        };
        break;
      }
    }
  }

  /** Reports a node whose type needs a marker that never came. */
  finish(node: SchemaNode, at: ts.Node): void {
    const p = this.pending.get(node);
    if (!p) return;
    this.pending.delete(node);
    const messages: Record<Pending, string> = {
      number:
        '`number` needs an explicit integer or float choice: add @format int32, @format int64 or @integer, or @float (floats are discouraged in Kubernetes APIs)',
      intOrString:
        '`number | string` needs @intOrString (x-kubernetes-int-or-string); other mixed unions cannot be expressed in a CRD schema',
      unknown:
        '`unknown`/`any` needs @preserveUnknownFields (the apiserver would prune every field otherwise)',
      unknownMap:
        '`Record<string, unknown>` needs @preserveUnknownFields (keep arbitrary fields) or @object (an opaque empty object)',
    };
    this.error(at, messages[p]);
  }

  isInput(decl: ts.Node): boolean {
    return this.inputs.has(path.resolve(decl.getSourceFile().fileName));
  }

  resolveSymbol(name: ts.EntityName): ts.Symbol | undefined {
    let sym = this.checker.getSymbolAtLocation(name);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = this.checker.getAliasedSymbol(sym);
    return sym;
  }

  /** Maps a type node to a schema node (markers of referenced aliases/interfaces included). */
  mapTypeNode(node: ts.TypeNode, owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.loc(owner);
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { schema: { type: 'string', location }, optional: false };
      case ts.SyntaxKind.BooleanKeyword:
        return { schema: { type: 'boolean', location }, optional: false };
      case ts.SyntaxKind.NumberKeyword: {
        const schema: SchemaNode = { type: 'number', location };
        this.pending.set(schema, 'number');
        return { schema, optional: false };
      }
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.AnyKeyword: {
        const schema: SchemaNode = { location };
        this.pending.set(schema, 'unknown');
        return { schema, optional: false };
      }
      case ts.SyntaxKind.ParenthesizedType:
        return this.mapTypeNode((node as ts.ParenthesizedTypeNode).type, owner);
      case ts.SyntaxKind.TypeOperator: {
        const op = node as ts.TypeOperatorNode;
        if (op.operator === ts.SyntaxKind.ReadonlyKeyword) return this.mapTypeNode(op.type, owner);
        break;
      }
      case ts.SyntaxKind.ArrayType: {
        const items = this.mapTypeNode((node as ts.ArrayTypeNode).elementType, owner);
        return { schema: { type: 'array', items: items.schema, location }, optional: false };
      }
      case ts.SyntaxKind.LiteralType:
      case ts.SyntaxKind.UnionType:
        return this.mapUnion(
          node.kind === ts.SyntaxKind.UnionType ? [...(node as ts.UnionTypeNode).types] : [node],
          owner,
        );
      case ts.SyntaxKind.TypeLiteral:
        return {
          schema: this.objectFromMembers((node as ts.TypeLiteralNode).members, owner, []),
          optional: false,
        };
      case ts.SyntaxKind.IntersectionType: {
        const parts = (node as ts.IntersectionTypeNode).types.map((t) => this.mapTypeNode(t, owner).schema);
        return { schema: this.mergeObjects(parts, node), optional: false };
      }
      case ts.SyntaxKind.TypeReference:
        return this.mapReference(node as ts.TypeReferenceNode, owner);
      case ts.SyntaxKind.TupleType:
        this.error(node, 'tuples cannot be expressed in a CRD schema (lists have one item type); use T[]');
        return { schema: { type: 'array', items: { type: 'string' }, location }, optional: false };
      case ts.SyntaxKind.UndefinedKeyword:
        return { schema: { location }, optional: true };
      default:
        break;
    }
    this.error(
      node,
      `the type \`${node.getText()}\` cannot be expressed in a CRD schema (functions, symbols, bigint, tuples, conditional and mapped types are not supported)`,
    );
    return { schema: { type: 'string', location }, optional: false };
  }

  mapUnion(members: ts.TypeNode[], owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.loc(owner);
    let optional = false;
    let nullable = false;
    const strings: string[] = [];
    const numbers: number[] = [];
    const bools = new Set<boolean>();
    const others: ts.TypeNode[] = [];
    for (const m of members) {
      if (m.kind === ts.SyntaxKind.UndefinedKeyword) optional = true;
      else if (ts.isLiteralTypeNode(m)) {
        const lit = m.literal;
        if (lit.kind === ts.SyntaxKind.NullKeyword) nullable = true;
        else if (ts.isStringLiteral(lit) || ts.isNoSubstitutionTemplateLiteral(lit)) strings.push(lit.text);
        else if (ts.isNumericLiteral(lit)) numbers.push(Number(lit.text));
        else if (ts.isPrefixUnaryExpression(lit) && ts.isNumericLiteral(lit.operand))
          numbers.push(-Number(lit.operand.text));
        else if (lit.kind === ts.SyntaxKind.TrueKeyword) bools.add(true);
        else if (lit.kind === ts.SyntaxKind.FalseKeyword) bools.add(false);
        else others.push(m);
      } else others.push(m);
    }
    const kinds = [strings.length > 0, numbers.length > 0, bools.size > 0, others.length > 0].filter(
      Boolean,
    ).length;
    let schema: SchemaNode;
    if (kinds === 0) {
      schema = { location };
      if (!nullable) this.error(owner, 'a field cannot be only `undefined`');
    } else if (kinds > 1) {
      this.error(
        owner,
        'a union of different kinds of values cannot be expressed in a CRD schema (only `number | string` with @intOrString)',
      );
      schema = { type: 'string', location };
    } else if (strings.length > 0) {
      schema = { type: 'string', enum: strings, location };
    } else if (numbers.length > 0) {
      schema = { type: numbers.every(Number.isInteger) ? 'integer' : 'number', enum: numbers, location };
    } else if (bools.size > 0) {
      schema =
        bools.size === 2 ? { type: 'boolean', location } : { type: 'boolean', enum: [...bools], location };
    } else if (others.length === 1) {
      const inner = this.mapTypeNode(others[0]!, owner);
      schema = inner.schema;
      optional ||= inner.optional;
    } else if (
      others.length === 2 &&
      others.every((o) => o.kind === ts.SyntaxKind.NumberKeyword || o.kind === ts.SyntaxKind.StringKeyword)
    ) {
      schema = { location };
      this.pending.set(schema, 'intOrString');
    } else {
      schema = this.objectUnion(others, owner);
    }
    if (nullable) {
      schema.nullable = true;
      if (schema.enum) schema.enum = [...schema.enum, null];
    }
    return { schema, optional };
  }

  /** A union of object types: merged fields; a literal discriminator or an exactly-one-of rule keeps members apart. */
  objectUnion(members: ts.TypeNode[], owner: ts.Node): SchemaNode {
    const objs = members.map((m) => this.mapTypeNode(m, owner).schema);
    if (objs.some((o) => o.type !== 'object' || !o.properties)) {
      this.error(
        owner,
        'a union of non-literal types can only combine object types (e.g. `A | B` of interfaces), or `number | string` with @intOrString',
      );
      return { type: 'string', location: this.loc(owner) };
    }
    const merged: SchemaNode = { type: 'object', properties: {}, location: this.loc(owner) };
    const props = merged.properties!;
    for (const o of objs) {
      for (const [k, v] of Object.entries(o.properties!)) {
        const prev = props[k];
        if (!prev) props[k] = { ...v, ...(v.enum ? { enum: [...v.enum] } : {}) };
        else if (prev.enum && v.enum && prev.type === v.type)
          prev.enum = [...new Set([...prev.enum, ...v.enum])];
        else if (JSON.stringify({ ...prev, location: 0 }) !== JSON.stringify({ ...v, location: 0 })) {
          this.error(
            owner,
            `union members declare field ${k} with different types; a CRD schema needs one type per field`,
          );
        }
      }
    }
    const requiredSets = objs.map((o) => new Set(o.required ?? []));
    const common = [...requiredSets[0]!].filter((k) => requiredSets.every((s) => s.has(k)));
    if (common.length > 0) merged.required = common;
    const disc = common.find((k) => objs.every((o) => o.properties![k]?.enum?.length === 1));
    const rules: CelRule[] = [];
    if (disc) {
      objs.forEach((o) => {
        const value = JSON.stringify(o.properties![disc]!.enum![0]);
        const extra = [...(o.required ?? [])].filter((k) => !common.includes(k));
        const forbidden = Object.keys(props).filter((k) => !o.properties![k]);
        const conds = [...extra.map((k) => `has(self.${k})`), ...forbidden.map((k) => `!has(self.${k})`)];
        if (conds.length > 0) {
          rules.push({
            rule: `self.${disc} != ${value} || (${conds.join(' && ')})`,
            message: `fields for ${disc} ${value}: ${[...extra.map((k) => `${k} is required`), ...forbidden.map((k) => `${k} is not allowed`)].join(', ')}`,
          });
        }
      });
    } else {
      const keys = objs.map((o) =>
        (o.required ?? []).find(
          (k) => !common.includes(k) && objs.filter((x) => x.required?.includes(k)).length === 1,
        ),
      );
      if (keys.some((k) => k === undefined)) {
        this.error(
          owner,
          'each member of an object union needs a required field of its own (or a shared literal discriminator field) so the members can be told apart',
        );
      } else {
        rules.push({
          rule: `[${keys.map((k) => `has(self.${k})`).join(',')}].filter(x,x==true).size() == 1`,
          message: `exactly one of the fields in [${keys.join(' ')}] must be set`,
        });
      }
    }
    if (rules.length > 0) merged.validations = rules;
    return merged;
  }

  mergeObjects(parts: SchemaNode[], at: ts.Node): SchemaNode {
    const out: SchemaNode = { type: 'object', properties: {}, location: this.loc(at) };
    for (const p of parts) {
      if (p.type !== 'object' || !p.properties) {
        this.error(at, 'an intersection can only combine object types');
        continue;
      }
      Object.assign(out.properties!, p.properties);
      if (p.required) out.required = [...new Set([...(out.required ?? []), ...p.required])];
      if (p.validations) out.validations = [...(out.validations ?? []), ...p.validations];
    }
    return out;
  }

  mapReference(node: ts.TypeReferenceNode, owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.loc(owner);
    const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
    const args = node.typeArguments ?? [];
    if ((name === 'Array' || name === 'ReadonlyArray') && args.length === 1) {
      return {
        schema: { type: 'array', items: this.mapTypeNode(args[0]!, owner).schema, location },
        optional: false,
      };
    }
    if ((name === 'Record' || name === 'ReadonlyMap') && args.length === 2) {
      if (args[0]!.kind !== ts.SyntaxKind.StringKeyword)
        this.error(node, 'map keys must be `string` (Record<string, T>)');
      return { schema: this.mapOf(args[1]!, owner), optional: false };
    }
    const sym = this.resolveSymbol(node.typeName);
    const decl = sym?.declarations?.[0];
    const known = knownType(name, decl ? this.isInput(decl) : false, decl !== undefined);
    if (known) return { schema: { ...known, location }, optional: false };
    if (!decl) {
      this.error(node, `cannot resolve the type ${name}; is it imported?`);
      return { schema: { type: 'string', location }, optional: false };
    }
    if (args.length > 0) {
      this.error(
        node,
        `generic type ${node.getText()} is not supported; declare a concrete interface or alias`,
      );
      return { schema: { type: 'string', location }, optional: false };
    }
    if (this.stack.includes(decl)) {
      this.error(
        node,
        `recursive type ${name} cannot be expressed in a CRD schema (no $ref); bound the recursion by hand`,
      );
      return { schema: { type: 'object', location }, optional: false };
    }
    this.stack.push(decl);
    try {
      if (ts.isTypeAliasDeclaration(decl)) {
        const doc = this.docOf(decl);
        this.checkTags(
          doc,
          'type',
          doc?.comment.tags.some((t) => t.name === 'group'),
        );
        const inner = this.mapTypeNode(decl.type, decl);
        const schema = { ...inner.schema };
        const p = this.pending.get(inner.schema);
        if (p) this.pending.set(schema, p);
        if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
        this.applyMarkers(schema, doc, false);
        return { schema, optional: inner.optional };
      }
      if (ts.isInterfaceDeclaration(decl)) {
        const schema = this.interfaceSchema(decl);
        return { schema, optional: false };
      }
      if (ts.isEnumDeclaration(decl)) {
        const values = decl.members.map((m) => {
          const v = this.checker.getConstantValue(m);
          if (v === undefined) this.error(m, 'enum members need constant values');
          return v;
        });
        const type: SchemaType = values.every((v) => typeof v === 'string')
          ? 'string'
          : values.every((v) => typeof v === 'number' && Number.isInteger(v))
            ? 'integer'
            : 'string';
        const doc = this.docOf(decl);
        const schema: SchemaNode = { type, enum: values, location };
        if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
        return { schema, optional: false };
      }
      if (ts.isClassDeclaration(decl)) {
        this.error(node, `class ${name} is not supported; declare API types as interfaces`);
      } else {
        this.error(node, `${name} is not an interface, type alias or enum`);
      }
      return { schema: { type: 'string', location }, optional: false };
    } finally {
      this.stack.pop();
    }
  }

  mapOf(valueNode: ts.TypeNode, owner: ts.Node): SchemaNode {
    const location = this.loc(owner);
    if (valueNode.kind === ts.SyntaxKind.UnknownKeyword || valueNode.kind === ts.SyntaxKind.AnyKeyword) {
      const schema: SchemaNode = { type: 'object', location };
      this.pending.set(schema, 'unknownMap');
      return schema;
    }
    const value = this.mapTypeNode(valueNode, owner).schema;
    this.finish(value, owner);
    return { type: 'object', additionalProperties: value, location };
  }

  interfaceSchema(decl: ts.InterfaceDeclaration, resource = false): SchemaNode {
    const doc = this.docOf(decl);
    const isRes = resource || (doc?.comment.tags.some((t) => t.name === 'group') ?? false);
    this.checkTags(doc, isRes ? 'resource' : 'type', isRes);
    const bases: SchemaNode[] = [];
    for (const clause of decl.heritageClauses ?? []) {
      for (const t of clause.types) {
        if (!ts.isIdentifier(t.expression)) continue;
        // `extends KubeObject` only says "a Kubernetes object": its fields are not part of the schema
        if (resource && t.expression.text === 'KubeObject') continue;
        const sym = this.resolveSymbol(t.expression);
        const base = sym?.declarations?.find(ts.isInterfaceDeclaration);
        if (!base) {
          this.error(t, `cannot resolve the base interface ${t.getText()}`);
          continue;
        }
        bases.push(this.interfaceSchema(base));
      }
    }
    const own = this.objectFromMembers(decl.members, decl, [], resource);
    const schema = bases.length > 0 ? this.mergeObjects([...bases, own], decl) : own;
    if (bases.length > 0) {
      schema.properties = { ...schema.properties };
    }
    if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
    this.applyMarkers(schema, doc, false);
    return schema;
  }

  objectFromMembers(
    members: ts.NodeArray<ts.TypeElement>,
    owner: ts.Node,
    _path: string[],
    root = false,
  ): SchemaNode {
    const schema: SchemaNode = { type: 'object', location: this.loc(owner) };
    const props: Record<string, SchemaNode> = {};
    const required: string[] = [];
    let index: SchemaNode | undefined;
    for (const m of members) {
      if (ts.isIndexSignatureDeclaration(m)) {
        const param = m.parameters[0];
        if (param?.type?.kind !== ts.SyntaxKind.StringKeyword)
          this.error(m, 'index signatures must have string keys');
        index = this.mapOf(m.type, m);
        continue;
      }
      if (!ts.isPropertySignature(m)) {
        this.error(
          m,
          'only properties can be part of an API type (no methods, call or construct signatures)',
        );
        continue;
      }
      const name = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : undefined;
      if (name === undefined) {
        this.error(m, 'computed property names are not supported');
        continue;
      }
      const doc = this.docOf(m);
      this.checkTags(doc, 'field');
      let field: SchemaNode;
      let optional = m.questionToken !== undefined;
      if (root && name === 'metadata') {
        field = { type: 'object', location: this.loc(m) };
      } else if (!m.type) {
        this.error(m, `field ${name} needs a type annotation`);
        continue;
      } else {
        const mapped = this.mapTypeNode(m.type, m);
        field = { ...mapped.schema, location: this.loc(m) };
        const p = this.pending.get(mapped.schema);
        if (p) this.pending.set(field, p);
        if (mapped.optional) optional = true;
      }
      if (doc?.comment.description !== undefined) field.description = doc.comment.description;
      const o = this.applyMarkers(field, doc, true);
      if (o.optional !== undefined) optional = o.optional;
      this.finish(field, m);
      if (field.items) this.finish(field.items, m);
      props[name] = field;
      if (!optional) required.push(name);
    }
    if (index && Object.keys(props).length > 0) {
      this.error(owner, 'an object cannot have both named fields and an index signature in a CRD schema');
    }
    if (index && Object.keys(props).length === 0) return { ...index, location: schema.location };
    schema.properties = props;
    if (required.length > 0) schema.required = required;
    return schema;
  }

  readResource(
    decl: ts.InterfaceDeclaration | ts.TypeAliasDeclaration,
    doc: Doc,
  ): { resource: ResourceModel; version: VersionModel } | undefined {
    const tags = (n: string) => doc.comment.tags.filter((t) => t.name === n);
    const one = (n: string) => {
      const t = tags(n)[0];
      return t ? this.str(doc, t) : undefined;
    };
    const group = one('group');
    const versionName = one('version');
    const kind = one('kind') ?? decl.name.text;
    if (!versionName) {
      this.error(decl.name, `resource ${kind} has @group but no @version`);
      return undefined;
    }
    let schema: SchemaNode;
    if (ts.isInterfaceDeclaration(decl)) {
      this.stack.push(decl);
      schema = this.interfaceSchema(decl, true);
      this.stack.pop();
    } else {
      this.checkTags(doc, 'resource', true);
      schema = this.mapTypeNode(decl.type, decl).schema;
      if (doc.comment.description !== undefined) schema.description = doc.comment.description;
      this.applyMarkers(schema, doc, false);
    }
    const scopeRaw = one('scope') ?? 'Namespaced';
    if (scopeRaw !== 'Namespaced' && scopeRaw !== 'Cluster')
      this.error(
        this.tagLoc(doc, tags('scope')[0]!),
        `@scope must be Namespaced or Cluster, got ${scopeRaw}`,
      );
    const version: VersionModel = {
      name: versionName,
      served: one('served') !== 'false',
      storage: tags('storageVersion').length > 0,
      schema,
      location: this.loc(decl.name),
    };
    const served = one('served');
    if (served !== undefined && served !== 'true' && served !== 'false')
      this.error(this.tagLoc(doc, tags('served')[0]!), '@served takes true or false');
    for (const t of tags('deprecatedVersion')) {
      version.deprecated = true;
      const a = this.args(doc, t);
      const w = a?.named.get('warning');
      if (w !== undefined) version.deprecationWarning = w;
    }
    for (const t of tags('subresource')) {
      const a = this.args(doc, t);
      if (!a) continue;
      const what = a.positional[0];
      if (what === 'status') version.statusSubresource = true;
      else if (what === 'none') version.explicitSubresources = true;
      else if (what === 'scale') {
        const spec = a.named.get('specPath');
        const status = a.named.get('statusPath');
        if (!spec || !status) {
          this.error(
            this.tagLoc(doc, t),
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
        this.error(
          this.tagLoc(doc, t),
          `@subresource takes status, scale or none, got ${JSON.stringify(what ?? '')}`,
        );
    }
    for (const t of tags('printColumn')) {
      const a = this.args(doc, t);
      if (!a) continue;
      const name = a.named.get('name');
      const type = a.named.get('type');
      const jsonPath = a.named.get('jsonPath') ?? a.named.get('JSONPath');
      if (!name || !type || !jsonPath) {
        this.error(this.tagLoc(doc, t), '@printColumn needs name=…, type=… and jsonPath=…');
        continue;
      }
      const col: { -readonly [K in keyof PrinterColumn]: PrinterColumn[K] } = { name, type, jsonPath };
      if (a.named.has('description')) col.description = a.named.get('description')!;
      if (a.named.has('format')) col.format = a.named.get('format')!;
      if (a.named.has('priority')) col.priority = Number(a.named.get('priority'));
      version.printerColumns = [...(version.printerColumns ?? []), col];
    }
    for (const t of tags('selectableField')) {
      const jp = this.args(doc, t)?.named.get('jsonPath');
      if (!jp) this.error(this.tagLoc(doc, t), '@selectableField needs jsonPath=…');
      else version.selectableFields = [...(version.selectableFields ?? []), jp];
    }
    const kv = (n: string): Record<string, string> | undefined => {
      const out: Record<string, string> = {};
      for (const t of tags(n)) {
        const a = this.args(doc, t);
        if (!a) continue;
        if (a.named.size === 0) this.error(this.tagLoc(doc, t), `@${n} takes key=value`);
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
      location: this.loc(decl.name),
    };
    const shortNames = tags('shortName').flatMap((t) => this.str(doc, t) ?? []);
    if (shortNames.length) resource.shortNames = shortNames;
    const categories = tags('category').flatMap((t) => this.str(doc, t) ?? []);
    if (categories.length) resource.categories = categories;
    const annotations = kv('crdAnnotation');
    if (annotations) resource.annotations = annotations;
    const labels = kv('crdLabel');
    if (labels) resource.labels = labels;
    const conv = tags('conversion')[0];
    if (conv) {
      const c = this.json(doc, conv);
      if (c !== undefined && (c === null || typeof c !== 'object' || Array.isArray(c)))
        this.error(this.tagLoc(doc, conv), '@conversion takes a JSON object, e.g. {"strategy": "None"}');
      else if (c !== undefined) resource.conversion = c as Record<string, unknown>;
    }
    return { resource, version };
  }

  permissions(doc: Doc): PolicyRuleModel[] {
    const out: PolicyRuleModel[] = [];
    for (const t of doc.comment.tags.filter((x) => x.name === 'rbac')) {
      const a = this.args(doc, t);
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
        this.error(
          this.tagLoc(doc, t),
          '@rbac needs groups=… (use groups="" for the core group), resources=… and verbs=…, lists separated by ;',
        );
        continue;
      }
      for (const k of a.named.keys()) {
        if (!['groups', 'resources', 'verbs', 'resourceNames'].includes(k))
          this.error(this.tagLoc(doc, t), `@rbac: unknown argument ${k}`);
      }
      const rule: PolicyRuleModel = {
        apiGroups: groups.map((g) => (g === 'core' ? '' : g)),
        resources,
        verbs,
        location: this.tagLoc(doc, t),
      };
      const names = list('resourceNames');
      if (names) rule.resourceNames = names;
      out.push(rule);
    }
    return out;
  }
}

function mergeResources(
  found: Array<{ resource: ResourceModel; version: VersionModel }>,
  issues: CodegenIssue[],
): ResourceModel[] {
  const byKey = new Map<string, ResourceModel>();
  for (const { resource, version } of found) {
    const key = `${resource.group}/${resource.kind}`;
    const prev = byKey.get(key);
    if (!prev) {
      byKey.set(key, resource);
      continue;
    }
    if (prev.versions.some((v) => v.name === version.name)) {
      issues.push({
        message: `${resource.kind} version ${version.name} is declared twice (also at ${prev.location?.file}:${prev.location?.line})`,
        location: resource.location,
      });
      continue;
    }
    for (const k of ['plural', 'singular', 'listKind', 'scope'] as const) {
      if (prev[k] !== resource[k]) {
        issues.push({
          message: `versions of ${resource.kind} disagree on ${k}: ${prev[k]} vs ${resource[k]}`,
          location: resource.location,
        });
      }
    }
    prev.versions.push(version);
    if (resource.shortNames)
      prev.shortNames = [...new Set([...(prev.shortNames ?? []), ...resource.shortNames])];
    if (resource.categories)
      prev.categories = [...new Set([...(prev.categories ?? []), ...resource.categories])];
    if (resource.annotations) prev.annotations = { ...prev.annotations, ...resource.annotations };
    if (resource.labels) prev.labels = { ...prev.labels, ...resource.labels };
    if (resource.conversion) {
      if (prev.conversion && JSON.stringify(prev.conversion) !== JSON.stringify(resource.conversion)) {
        issues.push({
          message: `versions of ${resource.kind} disagree on @conversion`,
          location: resource.location,
        });
      }
      prev.conversion = resource.conversion;
    }
  }
  const out = [...byKey.values()];
  for (const r of out) {
    if (r.versions.length === 1) r.versions[0]!.storage = true;
    r.versions.sort((a, b) => compareVersions(b.name, a.name));
  }
  return out.sort((a, b) => (`${a.group}/${a.kind}` < `${b.group}/${b.kind}` ? -1 : 1));
}

/**
 * Reads resources and permissions from TypeScript source files. A resource is an exported
 * interface whose doc comment has `@group` and `@version`; its fields and every type they use
 * are mapped with the marker vocabulary (see {@link MARKERS}).
 *
 * @throws {@link CodegenError} listing every problem with file:line:column (unknown, misspelled or
 *   misplaced markers, types a CRD cannot express, a `number` without integer/float choice,
 *   rules a CRD would be rejected for).
 */
export function readTypeScript(files: readonly string[], options: ReadTypeScriptOptions = {}): ApiModel {
  const resolved = files.map((f) => path.resolve(f));
  const program =
    options.program ?? ts.createProgram(resolved, { ...DEFAULT_OPTIONS, ...options.compilerOptions });
  const baseDir = options.baseDir ?? process.cwd();
  const reader = new Reader(program.getTypeChecker(), new Set(resolved), baseDir);
  const found: Array<{ resource: ResourceModel; version: VersionModel }> = [];
  const permissions: PolicyRuleModel[] = [];
  for (const file of resolved) {
    const sf = program.getSourceFile(file);
    if (!sf) {
      reader.issues.push({
        message: `cannot read ${reader.display(file)}`,
        location: { file: reader.display(file), line: 1 },
      });
      continue;
    }
    for (const d of program.getSyntacticDiagnostics(sf)) {
      const pos =
        d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      reader.issues.push({
        message: `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        location: { file: reader.display(file), line: pos.line + 1, column: pos.character + 1 },
      });
    }
    for (const stmt of sf.statements) {
      const doc = reader.docOf(stmt);
      if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt)) {
        const isResource = doc?.comment.tags.some((t) => t.name === 'group' || t.name === 'version') ?? false;
        if (doc) permissions.push(...reader.permissions(doc));
        if (isResource && doc) {
          const exported = stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
          if (!exported) reader.error(stmt.name, `resource ${stmt.name.text} must be exported`);
          const r = reader.readResource(stmt, doc);
          if (r) found.push(r);
        } else if (ts.isInterfaceDeclaration(stmt)) {
          // check the markers of types no resource uses too, so typos never hide
          reader.checkTags(doc, 'type');
          for (const m of stmt.members) reader.checkTags(reader.docOf(m), 'field');
        } else {
          reader.checkTags(doc, 'type');
        }
      } else if (doc) {
        for (const t of doc.comment.tags) {
          if (t.name === 'rbac') continue;
          const spec = MARKERS_BY_NAME.get(t.name);
          if (spec && !IGNORED_TAGS.has(t.name) && stmt.kind !== ts.SyntaxKind.FunctionDeclaration) {
            reader.error(
              { file: doc.file, line: t.line, column: t.column },
              `misplaced marker @${t.name}: markers belong on exported interfaces, type aliases and their fields`,
            );
          }
        }
        permissions.push(...reader.permissions(doc));
      }
    }
  }
  const resources = mergeResources(found, reader.issues);
  if (reader.issues.length === 0) for (const r of resources) reader.issues.push(...checkResource(r));
  if (reader.issues.length > 0) throw new CodegenError(dedupe(reader.issues));
  return { resources, permissions };
}

function dedupe(issues: CodegenIssue[]): CodegenIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.location?.file}:${i.location?.line}:${i.location?.column}:${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The default plural of a lower-case kind (English rules, as kubebuilder applies them). */
export function pluralize(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
