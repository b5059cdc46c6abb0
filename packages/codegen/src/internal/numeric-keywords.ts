import type { SchemaKeywords } from '@kubeloom/codegen-runtime';

/** The schema keywords whose value is a number. */
export type NumericKeyword =
  | 'minimum'
  | 'maximum'
  | 'multipleOf'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems'
  | 'minProperties'
  | 'maxProperties';

/** The numeric keywords that bound or divide a value; any number. */
const BOUNDS: ReadonlySet<string> = new Set(['minimum', 'maximum', 'multipleOf']);

/** The numeric keywords that limit a size: a non-negative integer. */
const SIZES: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);

/** Whether `key` is a schema keyword whose value is a number. */
export function isNumericKeyword(key: string): key is NumericKeyword & keyof SchemaKeywords {
  return BOUNDS.has(key) || SIZES.has(key);
}

/** Whether `key` is a size keyword (`minLength`, `maxItems`, …), whose value is a non-negative integer. */
export function isSizeKeyword(key: string): boolean {
  return SIZES.has(key);
}
