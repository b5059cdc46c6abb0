import { type CelExpr, celChildren } from './cel/ast.ts';
import { CelEvalError, CelUnsupportedError, type CelValue, evaluate } from './cel/evaluator.ts';
import { CelOptional, OPTIONAL_NONE } from './cel/optional.ts';
import { parseCel } from './cel/parser.ts';
import { toCel } from './cel-values.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import { planOf, type SchemaPlan } from './schema-plan.ts';
import { childPath, goJson, keyPath, ROOT_PATH, type ValidationError } from './validation-error.ts';

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

/** The rules of a schema node, parsed once. */
interface CompiledRules {
  readonly rules: readonly CompiledRule[];
  /**
   * The fields of `self` and `oldSelf` the rules and message expressions read (`self.x`,
   * `has(self.x)`), or undefined when one uses the whole value: only these are converted to CEL.
   */
  readonly fields: ReadonlySet<string> | undefined;
}

const compiledRules = new WeakMap<object, CompiledRules>();

/** The fields of `self`/`oldSelf` the expressions select, or undefined when one uses either whole. */
function selectedFields(exprs: readonly CelExpr[]): Set<string> | undefined {
  const fields = new Set<string>();
  let whole = false;
  const isSelf = (e: CelExpr) => e.kind === 'ident' && (e.name === 'self' || e.name === 'oldSelf');
  const visit = (e: CelExpr): void => {
    if (isSelf(e)) whole = true;
    else if (e.kind === 'select' && isSelf(e.operand)) fields.add(e.field);
    else for (const c of celChildren(e)) visit(c);
  };
  for (const e of exprs) visit(e);
  return whole ? undefined : fields;
}

function compileRule(r: NonNullable<JsonSchemaProps['x-kubernetes-validations']>[number]): CompiledRule {
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
}

const NO_RULES: CompiledRules = { rules: [], fields: new Set() };

function rulesOf(schema: JsonSchemaProps): CompiledRules {
  const rules = schema['x-kubernetes-validations'];
  if (!rules?.length) return NO_RULES;
  let compiled = compiledRules.get(rules);
  if (!compiled) {
    const parsed = rules.map(compileRule);
    const exprs = parsed.flatMap((r) => [r.expr, r.messageExpression].filter((e) => e !== undefined));
    compiled = { rules: parsed, fields: selectedFields(exprs) };
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
}

/**
 * A value with the old value it correlates with (undefined on create or when none correlates)
 * and its schema plan: the apiserver's `CorrelatedObject`.
 */
interface Correlated {
  readonly value: unknown;
  readonly oldValue: unknown;
  readonly plan: SchemaPlan;
}

function listMapKey(item: unknown, keys: readonly string[]): string {
  return goJson(keys.map((k) => (item as Record<string, unknown> | null)?.[k]));
}

/**
 * The apiserver's wording of a failed rule: `Invalid value: <value>: message` (the value left out
 * for objects and lists), `Forbidden: message`, `Required value: message`, or for
 * `FieldValueDuplicate` the value alone (`Duplicate value: <value>`, as `field.Duplicate` writes it).
 */
function failure(r: CompiledRule, message: string, { value, plan }: Correlated): string {
  const type = plan.schema.type ?? '';
  const shown = type === 'object' || type === 'array' ? '' : `: ${goJson(value)}`;
  switch (r.reason) {
    case 'FieldValueForbidden':
      return `Forbidden: ${message}`;
    case 'FieldValueRequired':
      return `Required value: ${message}`;
    case 'FieldValueDuplicate':
      return `Duplicate value${shown}`;
    default:
      return `Invalid value${shown}: ${message}`;
  }
}

/** Runs the rules of one node. */
function runRules(node: Correlated, path: string, out: CelWalk): void {
  const { value, oldValue: old, plan } = node;
  const hasOld = old !== undefined;
  const where = path || ROOT_PATH;
  const pattern = plan.uncheckedPattern;
  if (pattern !== undefined && typeof value === 'string') {
    out.notEvaluated.push({
      path: where,
      rule: pattern.split(':')[0]!,
      reason: `not evaluated client-side: ${pattern}`,
    });
  }
  if (!plan.hasRules) return;
  const schema = plan.schema;
  const { rules, fields } = rulesOf(schema);
  let vars: Record<string, CelValue> | undefined;
  for (const r of rules) {
    if (r.usesOldSelf && !hasOld && !r.optionalOldSelf) continue; // a transition rule: not run on create
    const skip = (why: string) =>
      out.notEvaluated.push({ path: where, rule: r.rule, reason: `not evaluated client-side: ${why}` });
    if (r.parseError) {
      skip(r.parseError);
      continue;
    }
    if (!vars) {
      vars = { self: toCel(value, plan, fields) };
      if (hasOld) vars.oldSelf = toCel(old, plan, fields);
    }
    // With optionalOldSelf, oldSelf is an optional: none on create (the rule runs), of(old) on update.
    const ruleVars = r.optionalOldSelf
      ? { ...vars, oldSelf: hasOld ? new CelOptional(vars.oldSelf!) : OPTIONAL_NONE }
      : vars;
    try {
      const result = evaluate(r.expr!, ruleVars);
      if (result === true) continue;
      if (typeof result !== 'boolean') throw new CelEvalError(`rule returned ${typeof result}, not bool`);
      let message = r.message ?? `failed rule: ${r.rule}`;
      if (r.messageExpression) {
        try {
          const m = evaluate(r.messageExpression, ruleVars);
          // an empty, blank or multi-line message falls back to `message`, as on the apiserver
          if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m)) message = m;
        } catch {
          // the apiserver falls back to the message too
        }
      }
      const fp = r.fieldPath ? `${path}${r.fieldPath}`.replace(/^\./, '') : where;
      out.errors.push({
        path: fp || ROOT_PATH,
        message: failure(r, message, node),
        source: 'cel',
        rule: r.rule,
        rulePath: where,
      });
    } catch (e) {
      if (e instanceof CelUnsupportedError) skip(e.message);
      else
        out.errors.push({
          path: where,
          message: `Invalid value: ${goJson(schema.type ?? '')}: ${(e as Error).message} evaluating rule: ${r.message?.trim() || r.rule.trim()}`,
          source: 'cel-error',
          rule: r.rule,
          rulePath: where,
        });
    }
  }
}

/** The item of the old list that correlates with `item` (same map keys, or the same value in a set). */
function oldItemOf(item: unknown, oldList: readonly unknown[], plan: SchemaPlan): unknown {
  const keys = plan.listMapKeys;
  if (plan.listType === 'map' && keys) {
    const k = listMapKey(item, keys);
    return oldList.find((o) => listMapKey(o, keys) === k);
  }
  if (plan.listType === 'set') {
    const j = goJson(item);
    return oldList.find((o) => goJson(o) === j);
  }
  return undefined;
}

function walk(node: Correlated, path: string, out: CelWalk): void {
  const { value, oldValue: old, plan } = node;
  if (value === undefined) return;
  runRules(node, path, out);
  if (Array.isArray(value)) {
    const items = plan.items;
    if (!items?.celBelow) return;
    const oldList = Array.isArray(old) ? old : undefined;
    for (let i = 0; i < value.length; i++) {
      const oldItem = old === undefined ? undefined : oldItemOf(value[i], oldList ?? [], plan);
      walk({ value: value[i], oldValue: oldItem, plan: items }, childPath(path, i), out);
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const oldObj =
    old !== null && typeof old === 'object' && !Array.isArray(old)
      ? (old as Record<string, unknown>)
      : undefined;
  if (plan.schema.properties) {
    for (const [k, sub] of plan.properties) {
      if (!sub.celBelow || (!path && k === 'metadata')) continue;
      if (obj[k] !== undefined)
        walk({ value: obj[k], oldValue: oldObj?.[k], plan: sub }, childPath(path, k), out);
    }
  } else if (plan.values?.celBelow) {
    const values = plan.values;
    const correlated = plan.schema['x-kubernetes-map-type'] === 'atomic' ? undefined : oldObj;
    for (const k of Object.keys(obj))
      walk({ value: obj[k], oldValue: correlated?.[k], plan: values }, keyPath(path, k), out);
  }
}

/**
 * Evaluates the `x-kubernetes-validations` rules of every node that has a value, as the apiserver
 * does: transition rules (`oldSelf`) only on update and only where the old value correlates (same
 * field, same key of a map, same keys of a `map` list, same item of a `set`); `oldObject` is the
 * previous object on update, undefined on create. Nodes whose `pattern` has no faithful
 * translation are reported as not evaluated.
 */
export function walkCel(
  { object, oldObject }: { readonly object: unknown; readonly oldObject: unknown },
  schema: JsonSchemaProps,
  out: CelWalk,
): void {
  const plan = planOf(schema);
  if (plan.celBelow) walk({ value: object, oldValue: oldObject, plan }, '', out);
}
