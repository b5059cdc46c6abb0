/** Objects the sharding tests create on the fake cluster. */
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
