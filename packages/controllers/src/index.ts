/**
 * `@kubeloom/controllers`: see README.md.
 *
 * @packageDocumentation
 */
export {};
