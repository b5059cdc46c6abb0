/** CEL's keywords that are values or operators: `true`, `false`, `null` and `in`. */
export const CEL_KEYWORDS: readonly string[] = ['true', 'false', 'null', 'in'];

/** The words CEL reserves for future use: no identifier may be one of them. */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
