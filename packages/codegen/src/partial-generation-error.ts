import { CodegenError, type CodegenIssue } from './codegen-error.ts';
import type { GenerateTypesResult } from './generate.ts';

/**
 * Thrown by {@link generateTypes} when some inputs have problems. It is a {@link CodegenError}
 * listing every issue (each with its file, location and path), and it carries in `result` the
 * outputs of the inputs that were fine, so a caller can write those and still fail.
 */
export class PartialGenerationError extends CodegenError {
  /** What the inputs without problems generate (possibly nothing), as a successful call returns it. */
  readonly result: GenerateTypesResult;
  /** The inputs (as named in the issues) that generated nothing because of a problem, sorted. */
  readonly failedInputs: readonly string[];

  /** Creates the error from the issues, the partial result and the inputs that failed. */
  constructor(issues: readonly CodegenIssue[], result: GenerateTypesResult, failedInputs: readonly string[]) {
    super(issues);
    this.name = 'PartialGenerationError';
    this.result = result;
    this.failedInputs = failedInputs;
  }
}
