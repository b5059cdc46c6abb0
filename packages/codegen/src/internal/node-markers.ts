// The markers that carry a schema node's value constraints in generated TypeScript (everything
// but its TS type), and whether an enum is expressed in the type itself.
import { schemaToJson } from '../crd-writer.ts';
import type { SchemaNode } from '../ir.ts';
import { isIntOrStringJunctor } from './int-or-string.ts';
import { quoteArg } from './jsdoc.ts';
import { sortKeys } from './sort-keys.ts';

/** Compact JSON with sorted keys (marker arguments). */
export function json(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

/** Markers that describe the value of a schema node (everything but its TS type). */
export function nodeMarkers(node: SchemaNode): string[] {
  const m: string[] = [];
  if (node.type === 'integer' && !(node.format === 'int32' || node.format === 'int64')) m.push('@integer');
  if (node.type === 'number' && !(node.format === 'float' || node.format === 'double')) m.push('@float');
  if (node.format !== undefined) m.push(`@format ${quoteRaw(node.format)}`);
  if (node.title !== undefined) m.push(`@title ${quoteRaw(node.title)}`);
  if (node.enum !== undefined && !enumInType(node)) m.push(`@enum ${json(node.enum)}`);
  if (node.minimum !== undefined) m.push(`@minimum ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined)
    m.push(node.exclusiveMinimum ? '@exclusiveMinimum' : '@exclusiveMinimum false');
  if (node.maximum !== undefined) m.push(`@maximum ${node.maximum}`);
  if (node.exclusiveMaximum !== undefined)
    m.push(node.exclusiveMaximum ? '@exclusiveMaximum' : '@exclusiveMaximum false');
  if (node.multipleOf !== undefined) m.push(`@multipleOf ${node.multipleOf}`);
  if (node.minLength !== undefined) m.push(`@minLength ${node.minLength}`);
  if (node.maxLength !== undefined) m.push(`@maxLength ${node.maxLength}`);
  if (node.pattern !== undefined) m.push(`@pattern ${quoteRaw(node.pattern)}`);
  if (node.minItems !== undefined) m.push(`@minItems ${node.minItems}`);
  if (node.maxItems !== undefined) m.push(`@maxItems ${node.maxItems}`);
  if (node.minProperties !== undefined) m.push(`@minProperties ${node.minProperties}`);
  if (node.maxProperties !== undefined) m.push(`@maxProperties ${node.maxProperties}`);
  if (node.default !== undefined) m.push(`@default ${json(node.default)}`);
  if (node.example !== undefined) m.push(`@example ${json(node.example)}`);
  if (node.intOrString) m.push('@intOrString');
  if (node.preserveUnknownFields) m.push('@preserveUnknownFields');
  if (node.embeddedResource) m.push('@embeddedResource');
  if (node.listType) m.push(`@listType ${node.listType}`);
  for (const k of node.listMapKeys ?? []) m.push(`@listMapKey ${k}`);
  if (node.mapType) m.push(`@mapType ${node.mapType}`);
  if (node.type === 'object' && !node.properties && !node.additionalProperties && !node.preserveUnknownFields)
    m.push('@object');
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (node[key] && !(node.intOrString && isIntOrStringJunctor(node, key))) {
      m.push(`@${key} ${json(node[key]!.map((s) => schemaToJson(s)))}`);
    }
  }
  if (node.not) m.push(`@not ${json(schemaToJson(node.not))}`);
  if (node.externalDocs) {
    const args = Object.entries(node.externalDocs).map(([k, v]) => `${k}=${quoteArg(String(v))}`);
    m.push(`@externalDocs ${args.join(' ')}`);
  }
  for (const r of node.validations ?? []) {
    const args = [`rule=${JSON.stringify(r.rule)}`];
    if (r.message !== undefined) args.push(`message=${JSON.stringify(r.message)}`);
    if (r.messageExpression !== undefined)
      args.push(`messageExpression=${JSON.stringify(r.messageExpression)}`);
    if (r.reason !== undefined) args.push(`reason=${r.reason}`);
    if (r.fieldPath !== undefined) args.push(`fieldPath=${JSON.stringify(r.fieldPath)}`);
    if (r.optionalOldSelf) args.push('optionalOldSelf=true');
    m.push(`@validation ${args.join(' ')}`);
  }
  return m;
}

function quoteRaw(s: string): string {
  return s === '' || /^\s|\s$|^"|\n|\*\//.test(s) ? JSON.stringify(s) : s;
}

/** Whether the node's enum is written as a union of literals (then no `@enum` marker). */
export function enumInType(node: SchemaNode): boolean {
  if (!node.enum || node.enum.length === 0) return false;
  if (node.type === 'string')
    return node.enum.every((v) => typeof v === 'string' || (v === null && node.nullable));
  if (node.type === 'integer' || node.type === 'number') {
    return node.enum.every(
      (v) => (typeof v === 'number' && Number.isFinite(v)) || (v === null && node.nullable),
    );
  }
  return false;
}
