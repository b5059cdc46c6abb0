/**
 * `@kubeloom/krt`: see README.md.
 *
 * @packageDocumentation
 */
export {};
