/**
 * `@kubeloom/codegen`: see README.md.
 *
 * @packageDocumentation
 */
export {};
