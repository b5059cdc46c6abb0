import { ignoreNotFound as kubeIgnoreNotFound } from '@kubeloom/kube';

/**
 * Resolves to `undefined` when the API call fails with NotFound and rethrows anything else:
 * `const pod = await ignoreNotFound(api.get(builtins.Pod, name, ns))`. The same function as
 * `@kubeloom/kube`'s, re-exported so a reconciler needs one import.
 */
export const ignoreNotFound: <T>(promise: Promise<T>) => Promise<T | undefined> = kubeIgnoreNotFound;
