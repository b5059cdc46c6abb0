/**
 * `@kubeloom/krt/testing`.
 *
 * @packageDocumentation
 */
export {};
