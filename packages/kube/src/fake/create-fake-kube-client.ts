import { createKubeClient } from '../create-kube-client.ts';
import { createFakeApiClient } from './fake-api-client.ts';
import { FakeCluster } from './fake-cluster.ts';
import type { FakeKubeClient, FakeKubeClientOptions } from './fake-kube-client.ts';

/** Reconnect quickly in unit tests: the fake answers at once, so waiting 800 ms only slows tests down. */
const FAST_TUNING = { initialBackoffMs: 5, maxBackoffMs: 100 } as const;

/**
 * A `KubeClient` on an in-memory cluster: the same informers, registry (discovery served
 * by the fake, CRDs included) and CRD watcher as a real client, with `cluster` for test controls.
 * Informer reconnect backoff defaults to 5 ms → 100 ms (override with `tuning`).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createFakeKubeClient}
 */
export function createFakeKubeClient(options: FakeKubeClientOptions = {}): FakeKubeClient {
  const { cluster: given, logger, objectFilter, tuning, registry, ...clusterOptions } = options;
  const cluster = given ?? new FakeCluster(clusterOptions);
  const api = createFakeApiClient(cluster);
  const client = createKubeClient({
    api,
    ...(logger ? { logger } : {}),
    ...(objectFilter ? { objectFilter } : {}),
    ...(registry ? { registry } : {}),
    tuning: { ...FAST_TUNING, ...tuning },
  });
  Object.defineProperty(client, 'cluster', { value: cluster, enumerable: true });
  return client as FakeKubeClient;
}
