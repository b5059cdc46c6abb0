/**
 * The pool usage as a krt collection: one {@link PoolUsage} per pool, derived from the pool
 * informer and the policies that name the pool (an index fetch, so a policy change recomputes
 * only its own pool). Pure, no I/O: it decides which pools the summary pass visits and feeds the
 * pool metrics; the pass itself stays in a queue, since an orphan reclaim needs a live read.
 *
 * @module
 */

import { type Collection, collection, index, informer } from '@kubeloom/krt';
import { type PoolUsage, poolUsage } from '../domain/pool-summary.ts';
import type { OperatorClients } from './clients.ts';

/** Options of {@link poolUsageCollection}. */
export interface PoolUsageCollectionOptions {
  /** Stops the collections (krt's mandatory stop). */
  readonly signal: AbortSignal;
}

/** The derived pool-usage collection over the operator's (shared) pool and policy informers. */
export function poolUsageCollection(
  clients: Pick<OperatorClients, 'pools' | 'policies'>,
  options: PoolUsageCollectionOptions,
): Collection<PoolUsage> {
  const { signal } = options;
  const pools = informer(clients.pools, { signal, name: 'ipampools' });
  const policies = informer(clients.policies, { signal, name: 'egressgatewaypolicies' });
  const policiesByPool = index(policies, 'byPool', (p) => [p.spec.ipamPoolRef.name]);
  return collection(
    pools,
    (ctx, pool) => poolUsage(pool, policiesByPool.fetch(ctx, pool.metadata?.name ?? '')),
    { signal, name: 'pool-usage' },
  );
}
