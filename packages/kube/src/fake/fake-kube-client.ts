import type { KubeClient } from '../client.ts';
import type { KubeClientOptions } from '../create-kube-client.ts';
import type { FakeApiClient } from './fake-api-client.ts';
import type { FakeCluster } from './fake-cluster.ts';
import type { FakeClusterOptions } from './fake-cluster-options.ts';

/** Options of {@link createFakeKubeClient}: the cluster's (or an existing cluster) and the client's. */
export interface FakeKubeClientOptions
  extends FakeClusterOptions,
    Pick<KubeClientOptions, 'logger' | 'objectFilter' | 'tuning' | 'registry'> {
  /** Use this cluster instead of creating one from the cluster options. */
  readonly cluster?: FakeCluster | undefined;
}

/** A `KubeClient` on a {@link FakeCluster}; `cluster` holds the test controls. */
export interface FakeKubeClient extends KubeClient {
  /** The REST verbs, on the fake cluster. */
  readonly api: FakeApiClient;
  /** The in-memory cluster behind the client: seed, inject failures, expire watches, inspect. */
  readonly cluster: FakeCluster;
}
