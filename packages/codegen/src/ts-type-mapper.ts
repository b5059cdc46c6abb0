import ts from 'typescript';
import { knownType } from './internal/known-types.ts';
import type { ReadContext } from './internal/read-context.ts';
import type { CelRule, SchemaNode, SchemaType } from './ir.ts';
import { applyMarkers, checkTags, finishPending } from './marker-schema.ts';

/**
 * Maps TypeScript types to CRD schema nodes: primitives, literal unions, arrays, maps, object
 * types and unions, intersections, and the interfaces, aliases and enums they reference (with
 * the markers on those declarations). What a CRD cannot express is reported on the context.
 */
export class TypeMapper {
  readonly #ctx: ReadContext;

  /** A mapper reporting to `ctx`. */
  constructor(ctx: ReadContext) {
    this.#ctx = ctx;
  }

  /** Maps a type node to a schema node (markers of referenced aliases/interfaces included). */
  mapTypeNode(node: ts.TypeNode, owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.#ctx.loc(owner);
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { schema: { type: 'string', location }, optional: false };
      case ts.SyntaxKind.BooleanKeyword:
        return { schema: { type: 'boolean', location }, optional: false };
      case ts.SyntaxKind.NumberKeyword: {
        const schema: SchemaNode = { type: 'number', location };
        this.#ctx.pending.set(schema, 'number');
        return { schema, optional: false };
      }
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.AnyKeyword: {
        const schema: SchemaNode = { location };
        this.#ctx.pending.set(schema, 'unknown');
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
          schema: this.objectFromMembers((node as ts.TypeLiteralNode).members, owner),
          optional: false,
        };
      case ts.SyntaxKind.IntersectionType: {
        const junction = this.requiredSetJunction(node as ts.IntersectionTypeNode, owner);
        if (junction) return { schema: junction, optional: false };
        const parts = (node as ts.IntersectionTypeNode).types.map((t) => this.mapTypeNode(t, owner).schema);
        return { schema: this.mergeObjects(parts, node), optional: false };
      }
      case ts.SyntaxKind.TypeReference:
        return this.mapReference(node as ts.TypeReferenceNode, owner);
      case ts.SyntaxKind.TupleType:
        this.#ctx.error(
          node,
          'tuples cannot be expressed in a CRD schema (lists have one item type); use T[]',
        );
        return { schema: { type: 'array', items: { type: 'string' }, location }, optional: false };
      case ts.SyntaxKind.UndefinedKeyword:
        return { schema: { location }, optional: true };
      default:
        break;
    }
    this.#ctx.error(
      node,
      `the type \`${node.getText()}\` cannot be expressed in a CRD schema (functions, symbols, bigint, tuples, conditional and mapped types are not supported)`,
    );
    return { schema: { type: 'string', location }, optional: false };
  }

  /**
   * `Fields & ({ a: … } | { b: …; a?: never })`, what the writer emits for a `oneOf`/`anyOf` of
   * required-field sets: the fields' object with `oneOf` (branches that rule each other out with
   * `?: never`) or `anyOf` of the branches' required fields. Undefined for other intersections.
   */
  requiredSetJunction(node: ts.IntersectionTypeNode, owner: ts.Node): SchemaNode | undefined {
    if (node.types.length !== 2) return undefined;
    let union = node.types[1]!;
    while (ts.isParenthesizedTypeNode(union)) union = union.type;
    const branches = ts.isUnionTypeNode(union) ? [...union.types] : [];
    if (branches.length < 2 || !branches.every(ts.isTypeLiteralNode)) return undefined;
    const sets: string[][] = [];
    let excludes = false;
    for (const b of branches as ts.TypeLiteralNode[]) {
      const required: string[] = [];
      for (const m of b.members) {
        if (!ts.isPropertySignature(m) || !m.type || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)))
          return undefined;
        if (m.type.kind === ts.SyntaxKind.NeverKeyword && m.questionToken) excludes = true;
        else if (!m.questionToken) required.push(m.name.text);
        else return undefined;
      }
      if (required.length === 0) return undefined;
      sets.push(required);
    }
    const schema = { ...this.mapTypeNode(node.types[0]!, owner).schema };
    if (schema.type !== 'object' || !schema.properties) return undefined;
    schema[excludes ? 'oneOf' : 'anyOf'] = sets.map((required) => ({ required }));
    return schema;
  }

  /** Maps a union: literals to an enum, `| undefined` to optional, `| null` to nullable, `number | string` pending @intOrString, object types to {@link TypeMapper.objectUnion}. */
  mapUnion(members: ts.TypeNode[], owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.#ctx.loc(owner);
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
      if (!nullable) this.#ctx.error(owner, 'a field cannot be only `undefined`');
    } else if (kinds > 1) {
      this.#ctx.error(
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
      this.#ctx.pending.set(schema, 'intOrString');
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
      this.#ctx.error(
        owner,
        'a union of non-literal types can only combine object types (e.g. `A | B` of interfaces), or `number | string` with @intOrString',
      );
      return { type: 'string', location: this.#ctx.loc(owner) };
    }
    const merged: SchemaNode = { type: 'object', properties: {}, location: this.#ctx.loc(owner) };
    const props = merged.properties!;
    for (const o of objs) {
      for (const [k, v] of Object.entries(o.properties!)) {
        const prev = props[k];
        if (!prev) props[k] = { ...v, ...(v.enum ? { enum: [...v.enum] } : {}) };
        else if (prev.enum && v.enum && prev.type === v.type)
          prev.enum = [...new Set([...prev.enum, ...v.enum])];
        else if (JSON.stringify({ ...prev, location: 0 }) !== JSON.stringify({ ...v, location: 0 })) {
          this.#ctx.error(
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
        this.#ctx.error(
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

  /** Merges object schemas (an intersection or `extends`): fields, required fields and rules. */
  mergeObjects(parts: SchemaNode[], at: ts.Node): SchemaNode {
    const out: SchemaNode = { type: 'object', properties: {}, location: this.#ctx.loc(at) };
    for (const p of parts) {
      if (p.type !== 'object' || !p.properties) {
        this.#ctx.error(at, 'an intersection can only combine object types');
        continue;
      }
      Object.assign(out.properties!, p.properties);
      if (p.required) out.required = [...new Set([...(out.required ?? []), ...p.required])];
      if (p.validations) out.validations = [...(out.validations ?? []), ...p.validations];
    }
    return out;
  }

  /** Maps a type reference: arrays, records, known types, and the interfaces, aliases and enums it names. */
  mapReference(node: ts.TypeReferenceNode, owner: ts.Node): { schema: SchemaNode; optional: boolean } {
    const location = this.#ctx.loc(owner);
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
        this.#ctx.error(node, 'map keys must be `string` (Record<string, T>)');
      return { schema: this.mapOf(args[1]!, owner), optional: false };
    }
    const sym = this.#ctx.resolveSymbol(node.typeName);
    const decl = sym?.declarations?.[0];
    const known = knownType(name, decl ? this.#ctx.isInput(decl) : false, decl !== undefined);
    if (known) return { schema: { ...known, location }, optional: false };
    if (!decl) {
      this.#ctx.error(node, `cannot resolve the type ${name}; is it imported?`);
      return { schema: { type: 'string', location }, optional: false };
    }
    if (args.length > 0) {
      this.#ctx.error(
        node,
        `generic type ${node.getText()} is not supported; declare a concrete interface or alias`,
      );
      return { schema: { type: 'string', location }, optional: false };
    }
    if (this.#ctx.stack.includes(decl)) {
      this.#ctx.error(
        node,
        `recursive type ${name} cannot be expressed in a CRD schema (no $ref); bound the recursion by hand`,
      );
      return { schema: { type: 'object', location }, optional: false };
    }
    this.#ctx.stack.push(decl);
    try {
      if (ts.isTypeAliasDeclaration(decl)) {
        const doc = this.#ctx.docOf(decl);
        checkTags(this.#ctx, doc, {
          target: 'type',
          isResource: doc?.comment.tags.some((t) => t.name === 'group'),
        });
        const inner = this.mapTypeNode(decl.type, decl);
        const schema = { ...inner.schema };
        const p = this.#ctx.pending.get(inner.schema);
        if (p) this.#ctx.pending.set(schema, p);
        if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
        applyMarkers(this.#ctx, schema, { doc, field: false });
        return { schema, optional: inner.optional };
      }
      if (ts.isInterfaceDeclaration(decl)) {
        const schema = this.interfaceSchema(decl);
        return { schema, optional: false };
      }
      if (ts.isEnumDeclaration(decl)) {
        const values = decl.members.map((m) => {
          const v = this.#ctx.checker.getConstantValue(m);
          if (v === undefined) this.#ctx.error(m, 'enum members need constant values');
          return v;
        });
        const type: SchemaType = values.every((v) => typeof v === 'string')
          ? 'string'
          : values.every((v) => typeof v === 'number' && Number.isInteger(v))
            ? 'integer'
            : 'string';
        const doc = this.#ctx.docOf(decl);
        const schema: SchemaNode = { type, enum: values, location };
        if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
        return { schema, optional: false };
      }
      if (ts.isClassDeclaration(decl)) {
        this.#ctx.error(node, `class ${name} is not supported; declare API types as interfaces`);
      } else {
        this.#ctx.error(node, `${name} is not an interface, type alias or enum`);
      }
      return { schema: { type: 'string', location }, optional: false };
    } finally {
      this.#ctx.stack.pop();
    }
  }

  /** Maps a map (`Record<string, T>` or an index signature) to `additionalProperties`. */
  mapOf(valueNode: ts.TypeNode, owner: ts.Node): SchemaNode {
    const location = this.#ctx.loc(owner);
    if (valueNode.kind === ts.SyntaxKind.UnknownKeyword || valueNode.kind === ts.SyntaxKind.AnyKeyword) {
      const schema: SchemaNode = { type: 'object', location };
      this.#ctx.pending.set(schema, 'unknownMap');
      return schema;
    }
    const value = this.mapTypeNode(valueNode, owner).schema;
    finishPending(this.#ctx, value, owner);
    return { type: 'object', additionalProperties: value, location };
  }

  /** Maps an interface (with its bases), applying its markers; `resource` for the root of a resource. */
  interfaceSchema(decl: ts.InterfaceDeclaration, resource = false): SchemaNode {
    const doc = this.#ctx.docOf(decl);
    const isRes = resource || (doc?.comment.tags.some((t) => t.name === 'group') ?? false);
    checkTags(this.#ctx, doc, { target: isRes ? 'resource' : 'type', isResource: isRes });
    const bases: SchemaNode[] = [];
    for (const clause of decl.heritageClauses ?? []) {
      for (const t of clause.types) {
        if (!ts.isIdentifier(t.expression)) continue;
        // `extends KubeObject` only says "a Kubernetes object": its fields are not part of the schema
        if (resource && t.expression.text === 'KubeObject') continue;
        const sym = this.#ctx.resolveSymbol(t.expression);
        const base = sym?.declarations?.find(ts.isInterfaceDeclaration);
        if (!base) {
          this.#ctx.error(t, `cannot resolve the base interface ${t.getText()}`);
          continue;
        }
        bases.push(this.interfaceSchema(base));
      }
    }
    const own = this.objectFromMembers(decl.members, decl, resource);
    const schema = bases.length > 0 ? this.mergeObjects([...bases, own], decl) : own;
    if (bases.length > 0) {
      schema.properties = { ...schema.properties };
    }
    if (doc?.comment.description !== undefined) schema.description = doc.comment.description;
    applyMarkers(this.#ctx, schema, { doc, field: false });
    return schema;
  }

  /** Maps the members of an interface or type literal to an object schema. */
  objectFromMembers(members: ts.NodeArray<ts.TypeElement>, owner: ts.Node, root = false): SchemaNode {
    const schema: SchemaNode = { type: 'object', location: this.#ctx.loc(owner) };
    const props: Record<string, SchemaNode> = {};
    const required: string[] = [];
    let index: SchemaNode | undefined;
    for (const m of members) {
      if (ts.isIndexSignatureDeclaration(m)) {
        const param = m.parameters[0];
        if (param?.type?.kind !== ts.SyntaxKind.StringKeyword)
          this.#ctx.error(m, 'index signatures must have string keys');
        index = this.mapOf(m.type, m);
        continue;
      }
      if (!ts.isPropertySignature(m)) {
        this.#ctx.error(
          m,
          'only properties can be part of an API type (no methods, call or construct signatures)',
        );
        continue;
      }
      const name = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : undefined;
      if (name === undefined) {
        this.#ctx.error(m, 'computed property names are not supported');
        continue;
      }
      const doc = this.#ctx.docOf(m);
      checkTags(this.#ctx, doc, { target: 'field' });
      let field: SchemaNode;
      let optional = m.questionToken !== undefined;
      if (root && name === 'metadata') {
        field = { type: 'object', location: this.#ctx.loc(m) };
      } else if (!m.type) {
        this.#ctx.error(m, `field ${name} needs a type annotation`);
        continue;
      } else {
        const mapped = this.mapTypeNode(m.type, m);
        field = { ...mapped.schema, location: this.#ctx.loc(m) };
        const p = this.#ctx.pending.get(mapped.schema);
        if (p) this.#ctx.pending.set(field, p);
        if (mapped.optional) optional = true;
      }
      if (doc?.comment.description !== undefined) field.description = doc.comment.description;
      const o = applyMarkers(this.#ctx, field, { doc, field: true });
      if (o.optional !== undefined) optional = o.optional;
      finishPending(this.#ctx, field, m);
      if (field.items) finishPending(this.#ctx, field.items, m);
      props[name] = field;
      if (!optional) required.push(name);
    }
    if (index && Object.keys(props).length > 0) {
      if (this.#ctx.pending.get(index) === 'unknownMap') {
        // declared fields and `[key: string]: unknown`: an open object, x-kubernetes-preserve-unknown-fields
        this.#ctx.pending.delete(index);
        schema.preserveUnknownFields = true;
        index = undefined;
      } else {
        this.#ctx.error(
          owner,
          'an object cannot have both named fields and an index signature in a CRD schema (except `[key: string]: unknown`, which keeps unknown fields)',
        );
      }
    }
    if (index && Object.keys(props).length === 0) return { ...index, location: schema.location };
    schema.properties = props;
    if (required.length > 0) schema.required = required;
    return schema;
  }
}
