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
  compileRe2,
  evaluate,
  parseDuration,
} from '../cel/evaluator.ts';
export { parseCel } from '../cel/parser.ts';
export { applyDefaults, prune } from './defaults.ts';
export { formatChecker, KUBERNETES_FORMATS } from './formats.ts';
export type { JsonSchemaProps } from './json-schema.ts';
export {
  createValidator,
  type ObjectValidator,
  type UnevaluatedRule,
  type ValidateOptions,
  type ValidationError,
  type ValidationResult,
} from './validator.ts';
