import { type CelWalk, type UnevaluatedRule, walkCel } from './cel-rules.ts';
import { decodeCopy } from './defaults.ts';
import { validateEmbeddedResources } from './embedded-resources.ts';
import type { JsonSchemaProps } from './json-schema.ts';
import { validateListTypes } from './list-types.ts';
import { type ScalePaths, validateScale } from './scale.ts';
import { compileSchemaCheck, type SchemaCheck } from './schema-check.ts';
import { ROOT_PATH, type ValidationError } from './validation-error.ts';

/** The result of validating one object. */
export interface ValidationResult {
  /**
   * No error was found. When {@link ValidationResult.notEvaluated} is not empty, some rules were
   * not checked, so the apiserver may still reject the object: see {@link ValidationResult.complete}.
   */
  readonly valid: boolean;
  /** Every check ran client-side (`notEvaluated` is empty): `valid` is then the apiserver's answer. */
  readonly complete: boolean;
  /**
   * The errors found, in the apiserver's order: schema, embedded resources, list uniqueness, CEL.
   * As on the apiserver, CEL rules are not run when the object has type, required, enum or
   * maximum-size errors (an error says so).
   */
  readonly errors: readonly ValidationError[];
  /** Rules (and untranslatable patterns) not evaluated client-side: never a silent pass. */
  readonly notEvaluated: readonly UnevaluatedRule[];
  /** The object after pruning and defaulting, as the apiserver would store it. */
  readonly object: unknown;
}

/** Options of {@link createValidator}. */
export interface ValidatorOptions {
  /** The scale subresource of the version: its replica and selector paths are checked too. */
  readonly scale?: ScalePaths | undefined;
}

/** Options of one validation. */
export interface ValidateOptions {
  /** The previous object, for transition rules (`oldSelf`); omit for a create. */
  readonly oldObject?: unknown;
  /**
   * `'status'` for a write to the status subresource: the apiserver then checks `status` with its
   * own schema, so OpenAPI messages name fields relative to `status` (`conditions[0].reason in
   * body …`) and errors it reports for the whole checked value sit at `status` instead of `<nil>`.
   */
  readonly subresource?: 'status' | undefined;
}

/**
 * A runtime validator for one resource version: prunes unknown fields and non-nullable nulls,
 * applies defaults, checks the OpenAPI schema (with Ajv, the formats the apiserver checks and RE2
 * patterns), embedded resources and list-type uniqueness, and evaluates the CEL rules.
 */
export interface ObjectValidator<T> {
  /** Validates `obj` as the apiserver would on create (or on update, with `oldObject`). */
  validate(obj: unknown, options?: ValidateOptions): ValidationResult;
  /**
   * A type guard that never over-promises: true only when the object is valid **and** every rule
   * was evaluated client-side ({@link ValidationResult.complete}). An object whose rules could not
   * all be evaluated is not narrowed, even if the apiserver would accept it.
   */
  is(obj: unknown): obj is T;
  /** The schema the validator checks. */
  readonly schema: JsonSchemaProps;
}

/** The error types after which the apiserver skips CEL rules (`hasBlockingErr`). */
const BLOCKING =
  /^(Required value|Unsupported value|Too long|Too many|Invalid value: "[a-z]+": .* must be of type)/;

const CEL_SKIPPED: ValidationError = {
  path: ROOT_PATH,
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  source: 'cel',
};

/** Whether a schema has `x-kubernetes-validations` anywhere (apiextensions `hasXValidations`). */
function hasCelRules(s: JsonSchemaProps | undefined): boolean {
  if (!s) return false;
  if ((s['x-kubernetes-validations']?.length ?? 0) > 0) return true;
  if (hasCelRules(s.items)) return true;
  if (typeof s.additionalProperties === 'object' && hasCelRules(s.additionalProperties)) return true;
  return Object.values(s.properties ?? {}).some(hasCelRules);
}

/**
 * Creates a runtime validator from a CRD version's `openAPIV3Schema` (JSON form) and, when the
 * version has one, its scale subresource. The schema check is compiled on first use.
 *
 * @example
 * {@includeCode ./defaults.test.ts#createValidator}
 */
export function createValidator<T>(
  schema: JsonSchemaProps,
  options: ValidatorOptions = {},
): ObjectValidator<T> {
  let compiled: SchemaCheck | undefined;
  let hasRules: boolean | undefined;
  const scale = options.scale;
  const validate = (obj: unknown, options: ValidateOptions = {}): ValidationResult => {
    compiled ??= compileSchemaCheck(schema);
    const object = decodeCopy(obj, schema);
    const embedded = validateEmbeddedResources(object, schema);
    const schemaErrors = compiled.check(object, options.subresource);
    const lists = validateListTypes(object, schema);
    const errors: ValidationError[] = [
      ...schemaErrors.map(({ blocking: _, ...e }) => e),
      ...(scale ? validateScale(object, scale) : []),
      ...embedded,
      ...lists,
    ];
    const notEvaluated: UnevaluatedRule[] = [];
    const blocked = schemaErrors.some((e) => e.blocking) || embedded.some((e) => BLOCKING.test(e.message));
    // the apiserver says so only when the schema has rules to skip (it has no CEL validator otherwise)
    if (blocked) {
      hasRules ??= hasCelRules(schema);
      if (hasRules) errors.push(CEL_SKIPPED);
    } else {
      const walk: CelWalk = { errors, notEvaluated };
      const oldObject = options.oldObject === undefined ? undefined : decodeCopy(options.oldObject, schema);
      walkCel({ object, oldObject }, schema, walk);
    }
    return {
      valid: errors.length === 0,
      complete: notEvaluated.length === 0,
      errors,
      notEvaluated,
      object,
    };
  };
  return {
    schema,
    validate,
    is: (obj: unknown): obj is T => {
      const r = validate(obj);
      return r.valid && r.complete;
    },
  };
}
