import type { SourceLocation } from './ir.ts';

/** One problem found in an input: what is wrong, where, and (usually) what to do. */
export interface CodegenIssue {
  /** The message, including what to do about it. */
  readonly message: string;
  /** Where it is, when known. */
  readonly location?: SourceLocation | undefined;
  /**
   * The path of the offending field within the input document, when the reader knows it, e.g.
   * `spec.versions[0].schema.openAPIV3Schema.properties.spec.type` in a CRD file.
   */
  readonly path?: string | undefined;
}

/** Formats a location as `file:line:column` (the form editors and terminals link). */
export function formatLocation(loc: SourceLocation | undefined): string {
  if (!loc) return '<unknown location>';
  return loc.column ? `${loc.file}:${loc.line}:${loc.column}` : `${loc.file}:${loc.line}`;
}

/**
 * Formats one issue as `file:line:col: path: message`, without the parts it lacks (and without
 * the path when the message already names it).
 */
export function formatIssue(issue: CodegenIssue): string {
  const message =
    issue.path && !issue.message.includes(issue.path) ? `${issue.path}: ${issue.message}` : issue.message;
  return issue.location ? `${formatLocation(issue.location)}: ${message}` : message;
}

/**
 * Thrown by the front ends and back ends when the input is invalid. It carries every issue
 * found (not just the first), each with its location; `message` lists them one per line.
 */
export class CodegenError extends Error {
  /** Every problem found. */
  readonly issues: readonly CodegenIssue[];

  /** Creates the error from one or more issues. */
  constructor(issues: readonly CodegenIssue[]) {
    const lines = issues.map(formatIssue);
    super(issues.length === 1 ? lines[0]! : `${issues.length} problems:\n${lines.join('\n')}`);
    this.name = 'CodegenError';
    this.issues = issues;
  }
}
