import { CodegenError, type CodegenIssue } from './codegen-error.ts';
import type { GenerateCrdsResult, GenerateTypesResult } from './generate.ts';

/**
 * Thrown by {@link generateTypes} when some inputs have problems, and by {@link generateCrds}
 * when some resources do (rules kube-apiserver would reject for their cost). It is a
 * {@link CodegenError} listing every issue (each with its file, location and path), and it
 * carries in `result` the outputs of the inputs that were fine, so a caller can write those and
 * still fail.
 */
export class PartialGenerationError<
  R extends GenerateTypesResult | GenerateCrdsResult = GenerateTypesResult,
> extends CodegenError {
  /** What the inputs without problems generate (possibly nothing), as a successful call returns it. */
  readonly result: R;
  /**
   * The inputs (as named in the issues) that generated nothing because of a problem, sorted; for
   * {@link generateCrds}, the CRDs (`<plural>.<group>`) not generated.
   */
  readonly failedInputs: readonly string[];

  /** Creates the error from the issues, the partial result and the inputs that failed. */
  constructor(issues: readonly CodegenIssue[], result: R, failedInputs: readonly string[]) {
    super(issues);
    this.name = 'PartialGenerationError';
    this.result = result;
    this.failedInputs = failedInputs;
  }
}
