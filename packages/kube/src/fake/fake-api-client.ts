import type { ApiClient } from '../api.ts';
import { type FrozenWatch, WATCH_FROZEN } from '../internal/frozen-watch.ts';
import { FakeCluster } from './fake-cluster.ts';
import type { FakeClusterOptions } from './fake-cluster-options.ts';
import { frozenWatchOptions } from './internal/frozen-watches.ts';

/** An `ApiClient` backed by a {@link FakeCluster}, with the cluster at hand for test controls. */
export interface FakeApiClient extends ApiClient {
  /** The cluster behind this client. */
  readonly cluster: FakeCluster;
}

/**
 * An `ApiClient` on an in-memory {@link FakeCluster}: pass a cluster to share it between
 * clients, or cluster options to create a new one. `close()` and disposal end the watches opened
 * through this client (a real client's `close()` leaves in-flight requests alone; the fake has no
 * idle connections to close, so it ends what would otherwise keep a test alive). The cluster
 * stays usable by its other clients.
 *
 * @example
 * {@includeCode ../example.test.ts#over-api}
 */
export function createFakeApiClient(cluster: FakeCluster | FakeClusterOptions = {}): FakeApiClient {
  const c = cluster instanceof FakeCluster ? cluster : new FakeCluster(cluster);
  const owner = {};
  const api: FakeApiClient = {
    cluster: c,
    get: (ref, opts) => c.get(ref, opts) as never,
    list: (resource, opts) => c.list(resource, opts) as never,
    watch: (resource, opts) => c.watch(resource, opts, owner) as never,
    create: (resource, obj, opts) => c.create(resource, obj, opts) as never,
    update: (resource, obj, opts) => c.update(resource, obj, opts) as never,
    patch: (ref, data, opts) => c.patch(ref, data, opts) as never,
    delete: (ref, opts) => c.delete(ref, opts),
    request: (req) => c.request(req),
    close: () => c.closeWatchesOf(owner),
    [Symbol.asyncDispose]: async () => c.closeWatchesOf(owner),
  };
  // The informer's watch: the stored objects themselves (frozen), no copy per event. Not
  // enumerable, so a wrapper spreading this client (`{ ...api, watch }`) does not inherit it.
  const frozenWatch: FrozenWatch = (resource, opts) =>
    c.watch(resource, frozenWatchOptions(opts), owner) as never;
  Object.defineProperty(api, WATCH_FROZEN, { value: frozenWatch });
  return api;
}
