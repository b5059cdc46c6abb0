/**
 * `@kubeloom/kube/fake`: an in-memory cluster behind the `KubeClient` interface.
 *
 * @packageDocumentation
 */
export {};
