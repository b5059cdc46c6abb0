// Reading the OpenAPI v3 schema of a CRD version into the model's SchemaNode: keywords, Kubernetes
// extensions and CEL rules, with each forbidden or malformed keyword an error at its location.
import { isMap, isSeq, type Node } from 'yaml';
import { isNumericKeyword } from './internal/numeric-keywords.ts';
import type { YamlContext } from './internal/yaml-context.ts';
import { bool, entries, js, num, str, strList } from './internal/yaml-read.ts';
import type { CelReason, CelRule, SchemaNode, SchemaType } from './ir.ts';

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
export function readSchemaNode(ctx: YamlContext, node: Node | null): SchemaNode {
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
