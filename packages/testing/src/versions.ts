/**
 * The Kubernetes and etcd versions that `npx kubeloom-testing assets` builds from the Go module
 * proxy. Keep in step with `control-plane/build.sh` and its wrapper modules (`cli.test.ts` checks).
 */
export const KUBERNETES_VERSION = '1.37.2';

/** The etcd version paired with {@link KUBERNETES_VERSION} (Kubernetes 1.37 ships etcd 3.7). */
export const ETCD_VERSION = '3.7.3';

/**
 * The kwok version (simulated Nodes and Pods for the plane that runs workloads) that
 * `npx kubeloom-testing assets` builds. Keep in step with `control-plane/build.sh` and `kwok/go.mod`.
 */
export const KWOK_VERSION = '0.8.0';
