/**
 * Whether a regular expression uses something RE2 (the apiserver's engine) rejects: look-around
 * or back-references. Returns the reason, or undefined when the pattern is acceptable.
 */
export function re2Incompatibility(pattern: string): string | undefined {
  if (/\(\?[=!]|\(\?<[=!]/.test(pattern)) return 'look-around assertions are not supported by RE2';
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(pattern)) return 'back-references are not supported by RE2';
  try {
    new RegExp(pattern, 'u');
  } catch {
    try {
      new RegExp(pattern);
    } catch (e) {
      return `it does not compile: ${(e as Error).message}`;
    }
  }
  return undefined;
}
