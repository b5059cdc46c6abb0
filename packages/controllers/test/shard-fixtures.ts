/** Objects the sharding tests create on the fake cluster. */
import { builtins, type KubeClient, noopLogger } from '@kubeloom/kube';
import { RING_LABEL } from '../src/shard-labels.ts';

/** A shard Lease of ring `web` in `default`, held by `holder` for `seconds`. */
export const lease = (name: string, holder: string, seconds: number) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', labels: { [RING_LABEL]: 'web' } },
  spec: { holderIdentity: holder, leaseDurationSeconds: seconds },
});

/** A ConfigMap in `default` with `labels`: the sharded object of the tests. */
export const configMap = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels },
});

/** Lease timings of a test sharder, in ms. */
export interface SharderTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly resyncPeriodMs?: number;
}

/** `createSharder` options of the tests: ring `web` in `default`, assigning its ConfigMaps. */
export const webSharderOptions = (kube: KubeClient, timings: SharderTimings) => ({
  kube,
  ring: 'web',
  namespace: 'default',
  resources: [{ resource: builtins.ConfigMap, namespace: 'default' }],
  ...timings,
  logger: noopLogger,
});

/**
 * `kube` whose api calls go through `intercept` first, given the method, the object's name and
 * the call itself: return `serve()` to serve it, or a rejection to refuse it.
 */
export const interceptApi = (
  kube: KubeClient,
  intercept: (method: string, name: string | undefined, serve: () => unknown) => unknown,
): KubeClient => {
  const api = new Proxy(kube.api, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const first = args[0] as { name?: string; metadata?: { name?: string } } | undefined;
        const second = args[1] as { metadata?: { name?: string } } | undefined;
        const name = first?.name ?? first?.metadata?.name ?? second?.metadata?.name;
        return intercept(String(prop), name, () =>
          (value as (...a: unknown[]) => unknown).apply(target, args),
        );
      };
    },
  });
  return new Proxy(kube, {
    get(target, prop) {
      if (prop === 'api') return api;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
};
