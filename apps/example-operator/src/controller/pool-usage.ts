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
import type { IPAMPool } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
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
  // Every change of a policy naming a pool recomputes that pool's usage (a status write, a
  // relabel by the sharder), though the usage reads only the policies' identities: when those and
  // the pool are as last time, the last usage is returned as it was (equal by reference, so krt
  // compares nothing either), instead of sorting the pool's policies and diffing its table again.
  const last = new Map<string, { pool: IPAMPool; refs: ReadonlySet<string>; usage: PoolUsage }>();
  return collection(
    pools,
    (ctx, pool) => {
      const name = pool.metadata?.name ?? '';
      const policies = policiesByPool.fetch(ctx, name);
      // A uid names one object, whose namespace and name never change.
      const refs = policies.map((p) => p.metadata?.uid ?? `${p.metadata?.namespace}/${p.metadata?.name}`);
      const previous = last.get(name);
      if (
        previous?.pool === pool &&
        previous.refs.size === refs.length &&
        refs.every((r) => previous.refs.has(r))
      )
        return previous.usage;
      const usage = poolUsage(pool, policies);
      last.set(name, { pool, refs: new Set(refs), usage });
      return usage;
    },
    { signal, name: 'pool-usage' },
  );
}
