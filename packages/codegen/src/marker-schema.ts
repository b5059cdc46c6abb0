/**
 * What the markers of {@link MARKERS} do, for the TypeScript reader: which tags may appear
 * where, and how each schema marker changes the schema node it annotates.
 */

import type ts from 'typescript';
import type { DocTag } from './internal/jsdoc.ts';
import { jsonToSchema } from './internal/json-to-schema.ts';
import { IGNORED_TAGS, MARKERS_BY_NAME, suggestMarker } from './internal/marker-lookup.ts';
import { isNumericKeyword, isSizeKeyword } from './internal/numeric-keywords.ts';
import type { Doc, Pending, ReadContext } from './internal/read-context.ts';
import type { CelReason, CelRule, SchemaNode } from './ir.ts';
import type { MarkerTarget } from './markers.ts';

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

/** Checks every tag of a doc comment exists and may appear at `target`. */
export function checkTags(
  ctx: ReadContext,
  doc: Doc | undefined,
  {
    target,
    isResource = false,
  }: { readonly target: MarkerTarget; readonly isResource?: boolean | undefined },
): void {
  if (!doc) return;
  const counts = new Map<string, number>();
  for (const tag of doc.comment.tags) {
    if (IGNORED_TAGS.has(tag.name)) continue;
    const base = tag.name.startsWith('items.') ? tag.name.slice(6) : tag.name;
    const spec = MARKERS_BY_NAME.get(base);
    if (!spec || (tag.name.startsWith('items.') && !spec.targets.includes('type'))) {
      const s = suggestMarker(tag.name);
      ctx.error(
        ctx.tagLoc(doc, tag),
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
      ctx.error(ctx.tagLoc(doc, tag), `misplaced marker @${tag.name}: it belongs ${where}`);
      continue;
    }
    counts.set(tag.name, (counts.get(tag.name) ?? 0) + 1);
    if (!spec.repeatable && counts.get(tag.name) === 2)
      ctx.error(ctx.tagLoc(doc, tag), `marker @${tag.name} appears twice`);
  }
}

/** Applies schema markers of a doc comment to a node. */
export function applyMarkers(
  ctx: ReadContext,
  node: SchemaNode,
  { doc, field }: { readonly doc: Doc | undefined; readonly field: boolean },
): { optional?: boolean } {
  const out: { optional?: boolean } = {};
  if (!doc) return out;
  const checks: Array<{ target: SchemaNode; tag: DocTag; applies: readonly string[] }> = [];
  for (const tag of doc.comment.tags) {
    if (RESOURCE_TAGS.has(tag.name) || IGNORED_TAGS.has(tag.name) || tag.name === 'rbac') continue;
    let target = node;
    let name = tag.name;
    if (name.startsWith('items.')) {
      if (node.type !== 'array' || !node.items) {
        ctx.error(ctx.tagLoc(doc, tag), `misplaced marker @${name}: items.* markers apply to lists`);
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
    applyMarker(ctx, target, { name, doc, tag });
    if (spec.appliesTo) checks.push({ target, tag, applies: spec.appliesTo });
  }
  for (const { target, tag, applies } of checks) {
    const t = target.intOrString ? ['integer', 'string'] : target.type ? [target.type] : [];
    const pendingUnknownMap = ctx.pending.get(target) === 'unknownMap' && applies.includes('object');
    if (!t.some((x) => (applies as readonly string[]).includes(x)) && !pendingUnknownMap) {
      ctx.error(
        ctx.tagLoc(doc, tag),
        `misplaced marker @${tag.name}: it applies to ${applies.join(' or ')} values, but this is ${target.intOrString ? 'int-or-string' : (target.type ?? 'untyped')}`,
      );
    }
  }
  return out;
}

/** Applies one schema marker (its name without `items.`) to `node`. */
function applyMarker(
  ctx: ReadContext,
  node: SchemaNode,
  { name, doc, tag }: { readonly name: string; readonly doc: Doc; readonly tag: DocTag },
): void {
  const at = ctx.tagLoc(doc, tag);
  const setNumberType = (t: 'integer' | 'number') => {
    if (ctx.pending.get(node) === 'number' || node.type === 'integer' || node.type === 'number') {
      node.type = t;
      ctx.pending.delete(node);
    }
  };
  if (isNumericKeyword(name)) {
    const n = ctx.num(doc, tag);
    if (n === undefined) return;
    if (isSizeKeyword(name) && (!Number.isInteger(n) || n < 0)) {
      ctx.error(at, `@${name} needs a non-negative integer, got ${tag.value}`);
      return;
    }
    if ((name === 'minimum' || name === 'maximum') && node.type === 'integer' && !Number.isInteger(n)) {
      ctx.error(at, `@${name} ${n} is not an integer, but the field is an integer`);
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
      const f = ctx.str(doc, tag);
      if (f === undefined) break;
      node.format = f;
      if (f === 'int32' || f === 'int64') setNumberType('integer');
      if (f === 'float' || f === 'double') setNumberType('number');
      break;
    }
    case 'title':
    case 'pattern': {
      const s = ctx.str(doc, tag);
      if (s !== undefined) node[name] = s;
      break;
    }
    case 'enum': {
      const v = ctx.json(doc, tag);
      if (v !== undefined && !Array.isArray(v))
        ctx.error(at, '@enum takes a JSON array, e.g. @enum ["A", "B"]');
      else if (Array.isArray(v)) node.enum = v;
      break;
    }
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const bound = name === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (tag.value === '' || tag.value === 'true') node[name] = true;
      else if (tag.value === 'false') node[name] = false;
      else {
        const n = ctx.num(doc, tag);
        if (n !== undefined) {
          node[bound] = n;
          node[name] = true;
        }
      }
      break;
    }
    case 'default':
    case 'example': {
      const v = ctx.json(doc, tag);
      if (v !== undefined) node[name] = v;
      break;
    }
    case 'nullable':
      node.nullable = true;
      break;
    case 'listType':
    case 'mapType': {
      const s = ctx.str(doc, tag);
      const allowed = name === 'listType' ? ['atomic', 'set', 'map'] : ['atomic', 'granular'];
      if (s !== undefined && !allowed.includes(s))
        ctx.error(at, `@${name} must be one of ${allowed.join(', ')}, got ${s}`);
      else if (s !== undefined) (node as Record<string, unknown>)[name] = s;
      break;
    }
    case 'listMapKey': {
      const s = ctx.str(doc, tag);
      if (s !== undefined) node.listMapKeys = [...(node.listMapKeys ?? []), s];
      break;
    }
    case 'preserveUnknownFields': {
      const p = ctx.pending.get(node);
      if (p === 'unknown' || p === 'unknownMap') ctx.pending.delete(node);
      if (p === 'unknownMap') delete node.additionalProperties;
      node.preserveUnknownFields = true;
      break;
    }
    case 'object': {
      if (ctx.pending.get(node) === 'unknownMap') {
        ctx.pending.delete(node);
        delete node.additionalProperties;
      } else if (node.type !== 'object')
        ctx.error(at, 'misplaced marker @object: it applies to Record<string, unknown> / object values');
      break;
    }
    case 'embeddedResource':
      node.embeddedResource = true;
      break;
    case 'intOrString':
      if (ctx.pending.get(node) === 'intOrString') ctx.pending.delete(node);
      else if (node.type !== 'string' && node.type !== 'integer' && ctx.pending.get(node) !== 'number') {
        ctx.error(at, 'misplaced marker @intOrString: it applies to `number | string`');
        break;
      }
      ctx.pending.delete(node);
      delete node.type;
      node.intOrString = true;
      node.anyOf = [{ type: 'integer' }, { type: 'string' }];
      break;
    case 'immutable':
      node.validations = [
        ...(node.validations ?? []),
        ctx.celRule(doc, tag, { rule: 'self == oldSelf', message: 'field is immutable' }),
      ];
      break;
    case 'validation': {
      const a = ctx.args(doc, tag);
      if (!a) break;
      const rule = a.named.get('rule');
      if (rule === undefined) {
        ctx.error(at, '@validation needs rule="…" (a CEL expression)');
        break;
      }
      for (const k of a.named.keys()) {
        if (!['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'].includes(k)) {
          ctx.error(
            at,
            `@validation: unknown argument ${k} (rule, message, messageExpression, reason, fieldPath, optionalOldSelf)`,
          );
        }
      }
      if (a.positional.length > 0)
        ctx.error(at, `@validation: unexpected ${JSON.stringify(a.positional[0])}; write rule="…"`);
      const r: { -readonly [K in keyof CelRule]?: CelRule[K] } = { rule };
      const message = a.named.get('message');
      if (message !== undefined) r.message = message;
      const me = a.named.get('messageExpression');
      if (me !== undefined) r.messageExpression = me;
      const reason = a.named.get('reason');
      if (reason !== undefined) {
        if (!CEL_REASONS.has(reason))
          ctx.error(at, `@validation reason must be one of ${[...CEL_REASONS].join(', ')}`);
        else r.reason = reason as CelReason;
      }
      const fp = a.named.get('fieldPath');
      if (fp !== undefined) r.fieldPath = fp;
      const oos = a.named.get('optionalOldSelf');
      if (oos === 'true') r.optionalOldSelf = true;
      node.validations = [...(node.validations ?? []), ctx.celRule(doc, tag, r as CelRule)];
      break;
    }
    case 'exactlyOneOf':
    case 'atMostOneOf':
    case 'atLeastOneOf': {
      const s = ctx.str(doc, tag);
      if (s === undefined) break;
      const fields = s
        .split(/[,;]/)
        .map((x) => x.trim())
        .filter(Boolean);
      for (const f of fields)
        if (!node.properties?.[f]) ctx.error(at, `@${name}: ${f} is not a field of this object`);
      const list = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
      const [op, what] =
        name === 'exactlyOneOf'
          ? ['== 1', 'exactly one']
          : name === 'atMostOneOf'
            ? ['<= 1', 'at most one']
            : ['>= 1', 'at least one'];
      node.validations = [
        ...(node.validations ?? []),
        ctx.celRule(doc, tag, {
          rule: `${list} ${op}`,
          message: `${what} of the fields in [${fields.join(' ')}] must be set`,
        }),
      ];
      break;
    }
    case 'anyOf':
    case 'oneOf':
    case 'allOf': {
      const v = ctx.json(doc, tag);
      if (v !== undefined && !Array.isArray(v)) ctx.error(at, `@${name} takes a JSON array of schemas`);
      else if (Array.isArray(v)) node[name] = v.map((x) => jsonToSchema(x as Record<string, unknown>));
      break;
    }
    case 'not': {
      const v = ctx.json(doc, tag);
      if (v !== undefined) node.not = jsonToSchema(v as Record<string, unknown>);
      break;
    }
    case 'externalDocs': {
      const a = ctx.args(doc, tag);
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
export function finishPending(ctx: ReadContext, node: SchemaNode, at: ts.Node): void {
  const p = ctx.pending.get(node);
  if (!p) return;
  ctx.pending.delete(node);
  const messages: Record<Pending, string> = {
    number:
      '`number` needs an explicit integer or float choice: add @format int32, @format int64 or @integer, or @float (floats are discouraged in Kubernetes APIs)',
    intOrString:
      '`number | string` needs @intOrString (x-kubernetes-int-or-string); other mixed unions cannot be expressed in a CRD schema',
    unknown: '`unknown`/`any` needs @preserveUnknownFields (the apiserver would prune every field otherwise)',
    unknownMap:
      '`Record<string, unknown>` needs @preserveUnknownFields (keep arbitrary fields) or @object (an opaque empty object)',
  };
  ctx.error(at, messages[p]);
}
