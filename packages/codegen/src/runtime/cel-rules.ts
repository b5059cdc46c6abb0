import type { CelExpr } from '../cel/ast.ts';
import { CelEvalError, CelUnsupportedError, type CelValue, evaluate } from '../cel/evaluator.ts';
import { parseCel } from '../cel/parser.ts';
import { toCel } from './cel-values.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import { childPath, goJson, keyPath, type ValidationError } from './validation-error.ts';

/** A CEL rule (or another check) the runtime validator could not evaluate: the apiserver may still reject the object. */
export interface UnevaluatedRule {
  /** JSON path of the node that carries the rule. */
  readonly path: string;
  /** The rule. */
  readonly rule: string;
  /** Why it was not evaluated client-side (starts with `not evaluated client-side`). */
  readonly reason: string;
}

interface CompiledRule {
  readonly rule: string;
  readonly message?: string | undefined;
  readonly messageExpression?: CelExpr | undefined;
  readonly reason?: string | undefined;
  readonly fieldPath?: string | undefined;
  readonly expr?: CelExpr;
  readonly parseError?: string;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
}

const compiledRules = new WeakMap<object, CompiledRule[]>();

function rulesOf(schema: JsonSchemaProps): CompiledRule[] {
  const rules = schema['x-kubernetes-validations'];
  if (!rules?.length) return [];
  let compiled = compiledRules.get(rules);
  if (!compiled) {
    compiled = rules.map((r) => {
      const base = {
        rule: r.rule,
        message: r.message,
        reason: r.reason,
        fieldPath: r.fieldPath,
        usesOldSelf: /\boldSelf\b/.test(r.rule),
        optionalOldSelf: r.optionalOldSelf === true,
      };
      let messageExpression: CelExpr | undefined;
      try {
        if (r.messageExpression) messageExpression = parseCel(r.messageExpression);
      } catch {
        messageExpression = undefined;
      }
      try {
        return { ...base, messageExpression, expr: parseCel(r.rule) };
      } catch (e) {
        return { ...base, messageExpression, parseError: (e as Error).message };
      }
    });
    compiledRules.set(rules, compiled);
  }
  return compiled;
}

/** What a walk collects. */
export interface CelWalk {
  /** Failed rules. */
  readonly errors: ValidationError[];
  /** Rules (and patterns) that could not be evaluated client-side. */
  readonly notEvaluated: UnevaluatedRule[];
  /** Schema nodes whose `pattern` is not checked client-side, with the reason. */
  readonly uncheckedPatterns: ReadonlyMap<JsonSchemaProps, string>;
}

function listMapKey(item: unknown, keys: readonly string[]): string {
  return goJson(keys.map((k) => (item as Record<string, unknown> | null)?.[k]));
}

/** The apiserver's wording of a failed rule: the reason, or `Invalid value: "<schema type>": message`. */
function failure(r: CompiledRule, message: string, type: string): string {
  switch (r.reason) {
    case 'FieldValueForbidden':
      return `Forbidden: ${message}`;
    case 'FieldValueRequired':
      return `Required value: ${message}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${message}`;
    default:
      return `Invalid value: ${goJson(type)}: ${message}`;
  }
}

function runRules(
  value: unknown,
  old: unknown,
  hasOld: boolean,
  schema: JsonSchemaProps,
  path: string,
  out: CelWalk,
): void {
  const where = path || '<root>';
  const pattern = out.uncheckedPatterns.get(schema);
  if (pattern !== undefined && typeof value === 'string') {
    out.notEvaluated.push({
      path: where,
      rule: pattern.split(':')[0]!,
      reason: `not evaluated client-side: ${pattern}`,
    });
  }
  for (const r of rulesOf(schema)) {
    if (r.usesOldSelf && !hasOld && !r.optionalOldSelf) continue; // a transition rule: not run on create
    const skip = (why: string) =>
      out.notEvaluated.push({ path: where, rule: r.rule, reason: `not evaluated client-side: ${why}` });
    if (r.parseError) {
      skip(r.parseError);
      continue;
    }
    if (r.optionalOldSelf && !hasOld) {
      skip('optionalOldSelf is not supported');
      continue;
    }
    const vars: Record<string, CelValue> = { self: toCel(value, schema) };
    if (hasOld) vars.oldSelf = toCel(old, schema);
    try {
      const result = evaluate(r.expr!, vars);
      if (result === true) continue;
      if (typeof result !== 'boolean') throw new CelEvalError(`rule returned ${typeof result}, not bool`);
      let message = r.message ?? `failed rule: ${r.rule}`;
      if (r.messageExpression) {
        try {
          const m = evaluate(r.messageExpression, vars);
          if (typeof m === 'string' && m.trim() !== '') message = m;
        } catch {
          // the apiserver falls back to the message too
        }
      }
      const fp = r.fieldPath ? `${path}${r.fieldPath}`.replace(/^\./, '') : where;
      out.errors.push({
        path: fp || '<root>',
        message: failure(r, message, schema.type ?? ''),
        source: 'cel',
        rule: r.rule,
        rulePath: where,
      });
    } catch (e) {
      if (e instanceof CelUnsupportedError) skip(e.message);
      else
        out.errors.push({
          path: where,
          message: `Invalid value: ${goJson(schema.type ?? '')}: rule evaluation error: ${(e as Error).message}`,
          source: 'cel-error',
          rule: r.rule,
          rulePath: where,
        });
    }
  }
}

/**
 * Evaluates the `x-kubernetes-validations` rules of every node that has a value, as the apiserver
 * does: transition rules (`oldSelf`) only on update and only where the old value correlates (same
 * field, same key of a map, same keys of a `map` list, same item of a `set`).
 */
export function walkCel(
  value: unknown,
  old: unknown,
  hasOld: boolean,
  schema: JsonSchemaProps,
  path: string,
  out: CelWalk,
): void {
  if (value === undefined) return;
  runRules(value, old, hasOld, schema, path, out);
  if (Array.isArray(value)) {
    if (!schema.items) return;
    const keys = schema['x-kubernetes-list-map-keys'];
    const type = schema['x-kubernetes-list-type'];
    const oldList = Array.isArray(old) ? old : [];
    value.forEach((item, i) => {
      let oldItem: unknown;
      let found = false;
      if (hasOld && type === 'map' && keys) {
        const k = listMapKey(item, keys);
        oldItem = oldList.find((o) => listMapKey(o, keys) === k);
        found = oldItem !== undefined;
      } else if (hasOld && type === 'set') {
        oldItem = oldList.find((o) => goJson(o) === goJson(item));
        found = oldItem !== undefined;
      }
      walkCel(item, oldItem, found, schema.items!, childPath(path, i), out);
    });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const oldObj =
    old !== null && typeof old === 'object' && !Array.isArray(old)
      ? (old as Record<string, unknown>)
      : undefined;
  if (schema.properties) {
    for (const [k, sub] of Object.entries(schema.properties)) {
      if (!path && k === 'metadata') continue;
      if (obj[k] === undefined) continue;
      const childHasOld = hasOld && oldObj !== undefined && oldObj[k] !== undefined;
      walkCel(obj[k], oldObj?.[k], childHasOld, sub, childPath(path, k), out);
    }
  } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const k of Object.keys(obj)) {
      const childHasOld =
        hasOld &&
        schema['x-kubernetes-map-type'] !== 'atomic' &&
        oldObj !== undefined &&
        oldObj[k] !== undefined;
      walkCel(obj[k], oldObj?.[k], childHasOld, schema.additionalProperties, keyPath(path, k), out);
    }
  }
}
