import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { CelExpr } from '../cel/ast.ts';
import { CelEvalError, CelUnsupportedError, type CelValue, compileRe2, evaluate } from '../cel/evaluator.ts';
import { parseCel } from '../cel/parser.ts';
import { applyDefaults, prune } from './defaults.ts';
import { formatChecker } from './formats.ts';
import type { JsonSchemaProps } from './json-schema.ts';

/** One reason an object is invalid. */
export interface ValidationError {
  /** JSON path of the offending value, e.g. `spec.rules[0].matches`. */
  readonly path: string;
  /** What is wrong, in the apiserver's words where possible. */
  readonly message: string;
  /** `schema` for OpenAPI keywords, `cel` for a failed rule, `cel-error` for a rule that errored. */
  readonly source: 'schema' | 'cel' | 'cel-error';
  /** The CEL rule, for CEL errors. */
  readonly rule?: string;
}

/** A CEL rule the runtime validator could not evaluate: the apiserver may still reject the object. */
export interface UnevaluatedRule {
  /** JSON path of the node that carries the rule. */
  readonly path: string;
  /** The rule. */
  readonly rule: string;
  /** Why it was not evaluated client-side. */
  readonly reason: string;
}

/** The result of validating one object. */
export interface ValidationResult {
  /** No error was found (check {@link ValidationResult.notEvaluated} for rules that were not checked). */
  readonly valid: boolean;
  /** The errors found. */
  readonly errors: readonly ValidationError[];
  /** Rules that were not evaluated client-side ("not evaluated client-side", never a silent pass). */
  readonly notEvaluated: readonly UnevaluatedRule[];
  /** The object after pruning and defaulting, as the apiserver would store it. */
  readonly object: unknown;
}

/** Options of one validation. */
export interface ValidateOptions {
  /** The previous object, for transition rules (`oldSelf`); omit for a create. */
  readonly oldObject?: unknown;
}

/**
 * A runtime validator for one resource version: prunes unknown fields, applies defaults, checks
 * the OpenAPI schema (with Ajv and the formats the apiserver checks) and evaluates the CEL rules.
 */
export interface ObjectValidator<T> {
  /** Validates `obj` as the apiserver would on create (or on update, with `oldObject`). */
  validate(obj: unknown, options?: ValidateOptions): ValidationResult;
  /** A type guard: valid per schema and every evaluated rule. */
  is(obj: unknown): obj is T;
  /** The schema the validator checks. */
  readonly schema: JsonSchemaProps;
}

const re2Engine = Object.assign((pattern: string) => compileRe2(pattern), { code: 'compileRe2' });

const DROP = new Set([
  'description',
  'example',
  'externalDocs',
  'title',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'default',
]);

/** Rewrites a CRD schema into a form Ajv checks with apiserver semantics. */
function toAjv(s: JsonSchemaProps, root: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (DROP.has(key)) continue;
    switch (key) {
      case 'properties': {
        const props: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value as Record<string, JsonSchemaProps>)) {
          props[k] = root && k === 'metadata' ? { type: 'object' } : toAjv(v, false);
        }
        out.properties = props;
        break;
      }
      case 'items':
      case 'not':
        out[key] = toAjv(value as JsonSchemaProps, false);
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : toAjv(value as JsonSchemaProps, false);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        out[key] = (value as JsonSchemaProps[]).map((x) => toAjv(x, false));
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        break;
      case 'minimum':
        out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = value;
        break;
      case 'maximum':
        out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = value;
        break;
      case 'format':
        if (formatChecker(String(value)))
          out.format = `k8s-${String(value).replaceAll('-', '').toLowerCase()}`;
        break;
      case 'nullable':
        if (value === true) out.nullable = true;
        break;
      default:
        out[key] = value;
    }
  }
  if (out.nullable && !out.type) delete out.nullable;
  if (out.nullable && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

function collectFormats(s: JsonSchemaProps, into: Set<string>): void {
  if (typeof s.format === 'string' && formatChecker(s.format)) into.add(s.format);
  for (const v of Object.values(s.properties ?? {})) collectFormats(v, into);
  if (s.items) collectFormats(s.items, into);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    collectFormats(s.additionalProperties, into);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const x of (s[key] as JsonSchemaProps[] | undefined) ?? []) collectFormats(x, into);
  if (s.not) collectFormats(s.not as JsonSchemaProps, into);
}

function ajvPath(e: ErrorObject): string {
  const p = e.instancePath
    .split('/')
    .slice(1)
    .map((seg) => seg.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join('');
  const extra =
    e.keyword === 'required' ? `.${(e.params as { missingProperty: string }).missingProperty}` : '';
  return `${p}${extra}`.replace(/^\./, '') || '<root>';
}

function ajvMessage(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'Required value';
    case 'enum':
      return `Unsupported value: supported values: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `Invalid value: must be of type ${(e.params as { type: string }).type}`;
    default:
      return `Invalid value: ${e.message ?? e.keyword}`;
  }
}

/** Converts a JSON value to a CEL value, typing numbers by the schema (integers become int). */
function toCel(value: unknown, schema: JsonSchemaProps | undefined): CelValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    if (schema?.type === 'integer' || Number.isInteger(value)) return BigInt(Math.trunc(value));
    return value;
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema?.items));
  const out: { [key: string]: CelValue } = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const sub =
      schema?.properties?.[k] ??
      (schema?.additionalProperties && typeof schema.additionalProperties === 'object'
        ? schema.additionalProperties
        : undefined);
    out[k] = toCel(v, sub);
  }
  return out;
}

interface CompiledRule {
  readonly rule: string;
  readonly message?: string | undefined;
  readonly messageExpression?: CelExpr | undefined;
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

interface CelWalk {
  readonly errors: ValidationError[];
  readonly notEvaluated: UnevaluatedRule[];
}

function listMapKey(item: unknown, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => (item as Record<string, unknown> | null)?.[k]));
}

function walkCel(
  value: unknown,
  old: unknown,
  hasOld: boolean,
  schema: JsonSchemaProps,
  path: string,
  out: CelWalk,
): void {
  if (value === undefined) return;
  for (const r of rulesOf(schema)) {
    const where = path || '<root>';
    if (r.usesOldSelf && !hasOld && !r.optionalOldSelf) continue; // a transition rule: not run on create
    if (r.parseError) {
      out.notEvaluated.push({
        path: where,
        rule: r.rule,
        reason: `not evaluated client-side: ${r.parseError}`,
      });
      continue;
    }
    if (r.optionalOldSelf && !hasOld) {
      out.notEvaluated.push({
        path: where,
        rule: r.rule,
        reason: 'not evaluated client-side: optionalOldSelf is not supported',
      });
      continue;
    }
    const vars: Record<string, CelValue> = { self: toCel(value, schema) };
    if (hasOld) vars.oldSelf = toCel(old, schema);
    try {
      const result = evaluate(r.expr!, vars);
      if (result !== true) {
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
          message: `Invalid value: ${message}`,
          source: 'cel',
          rule: r.rule,
        });
      }
    } catch (e) {
      if (e instanceof CelUnsupportedError) {
        out.notEvaluated.push({
          path: where,
          rule: r.rule,
          reason: `not evaluated client-side: ${e.message}`,
        });
      } else {
        out.errors.push({
          path: where,
          message: `rule evaluation error: ${(e as Error).message}`,
          source: 'cel-error',
          rule: r.rule,
        });
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
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
        oldItem = oldList.find((o) => JSON.stringify(o) === JSON.stringify(item));
        found = oldItem !== undefined;
      }
      walkCel(item, oldItem, found, schema.items!, `${path}[${i}]`, out);
    });
    return;
  }
  if (value !== null && typeof value === 'object') {
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
        walkCel(obj[k], oldObj?.[k], childHasOld, sub, path ? `${path}.${k}` : k, out);
      }
    } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      for (const k of Object.keys(obj)) {
        const childHasOld =
          hasOld &&
          schema['x-kubernetes-map-type'] !== 'atomic' &&
          oldObj !== undefined &&
          oldObj[k] !== undefined;
        walkCel(
          obj[k],
          oldObj?.[k],
          childHasOld,
          schema.additionalProperties,
          `${path}[${JSON.stringify(k)}]`,
          out,
        );
      }
    }
  }
}

/**
 * Creates a runtime validator from a CRD version's `openAPIV3Schema` (JSON form). The Ajv
 * schema is compiled on first use.
 */
export function createValidator<T>(schema: JsonSchemaProps): ObjectValidator<T> {
  let compiled: ValidateFunction | undefined;
  const compile = (): ValidateFunction => {
    if (compiled) return compiled;
    const ajv = new Ajv({ allErrors: true, strict: false, logger: false, code: { regExp: re2Engine } });
    const formats = new Set<string>();
    collectFormats(schema, formats);
    for (const f of formats) {
      const check = formatChecker(f)!;
      ajv.addFormat(`k8s-${f.replaceAll('-', '').toLowerCase()}`, { type: 'string', validate: check });
    }
    compiled = ajv.compile(toAjv(schema, true));
    return compiled;
  };
  const validate = (obj: unknown, options: ValidateOptions = {}): ValidationResult => {
    const object = applyDefaults(prune(structuredClone(obj), schema), schema);
    const fn = compile();
    const errors: ValidationError[] = [];
    if (!fn(object)) {
      const seen = new Set<string>();
      for (const e of fn.errors ?? []) {
        const err: ValidationError = { path: ajvPath(e), message: ajvMessage(e), source: 'schema' };
        const key = `${err.path}|${err.message}`;
        if (!seen.has(key)) errors.push(err);
        seen.add(key);
      }
    }
    const walk: CelWalk = { errors, notEvaluated: [] };
    const hasOld = options.oldObject !== undefined;
    const old = hasOld ? applyDefaults(prune(structuredClone(options.oldObject), schema), schema) : undefined;
    walkCel(object, old, hasOld, schema, '', walk);
    return { valid: errors.length === 0, errors, notEvaluated: walk.notEvaluated, object };
  };
  return {
    schema,
    validate,
    is: (obj: unknown): obj is T => validate(obj).valid,
  };
}
