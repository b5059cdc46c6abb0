/**
 * `@kubeloom/codegen/runtime`: what generated code needs at run time — the runtime validator
 * (schema + CEL) and the CEL evaluator. It never loads the TypeScript compiler.
 *
 * @packageDocumentation
 */
export { type CelBinaryOp, type CelExpr, type CelLiteral, CelSyntaxError } from '../cel/ast.ts';
export {
  type CelBindings,
  CelDuration,
  CelEvalError,
  CelTimestamp,
  CelUnsupportedError,
  type CelValue,
  celEquals,
  evaluate,
  parseDuration,
} from '../cel/evaluator.ts';
export { parseCel } from '../cel/parser.ts';
export { compileRe2, Re2UnsupportedError } from '../cel/re2.ts';
export type { UnevaluatedRule } from './cel-rules.ts';
export { applyDefaults, prune, pruneNulls } from './defaults.ts';
export { formatChecker, KUBERNETES_FORMATS } from './formats.ts';
export type { JsonSchemaProps, SchemaKeywords } from './json-schema.ts';
export type { ScalePaths } from './scale.ts';
export type { ValidationError } from './validation-error.ts';
export {
  createValidator,
  type ObjectValidator,
  type ValidateOptions,
  type ValidationResult,
  type ValidatorOptions,
} from './validator.ts';
