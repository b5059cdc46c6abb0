/**
 * `@kubeloom/kclient/testing`.
 *
 * @packageDocumentation
 */
export {};
