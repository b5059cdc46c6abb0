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
