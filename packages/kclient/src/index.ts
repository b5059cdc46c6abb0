/**
 * `@kubeloom/kclient`: see README.md.
 *
 * @packageDocumentation
 */
export {};
