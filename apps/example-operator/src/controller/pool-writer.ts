/**
 * The pool-status writer of one controller: every change to a pool's allocation table (a policy's
 * allocation, a release on deletion, an orphan reclaim) goes through it, and the changes that are
 * pending for one pool at the same time go out in **one** `/status` update (group commit).
 *
 * Per pool, at most one write is in flight; changes that arrive meanwhile wait and go together in
 * the next write. A write is decided on one pool object (`applyChanges`: each change sees the
 * table the earlier ones left) and carries that object's resourceVersion; on a conflict (another
 * replica, or the summary pass of another controller, wrote first) the pool is read live and the
 * whole batch is decided again, up to {@link POOL_WRITE_ATTEMPTS} times, after which every change
 * of the batch fails with the conflict (their keys are retried with backoff). So the guarantees
 * of a single write hold: nothing is written that was decided on a stale table.
 *
 * Why: the allocation table is the pool's status, rewritten whole by every write. At 750
 * allocations per pool, one write per allocation made the apiserver decode, validate, diff
 * (managed fields) and store the whole table once per policy, and policies of one pool raced for
 * it; one write per batch does that work once for every change waiting.
 *
 * @module
 */

import { retryOnConflict } from '@kubeloom/kclient';
import { ignoreNotFound, type KubeClient } from '@kubeloom/kube';
import { applyChanges, type TableChange } from '../domain/allocation-batch.ts';
import { isStatusCurrent, poolStatus } from '../domain/pool-summary.ts';
import { type IPAMPool, IPAMPoolResource } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import type { OperatorClients } from './clients.ts';

/** Attempts of a pool-status write before its changes fail with the conflict. */
const POOL_WRITE_ATTEMPTS = 5;

/** Writes pool statuses, grouping the changes pending for one pool into one write. */
export interface PoolWriter {
  /**
   * Applies `change` to the pool's allocation table (counters and conditions recomputed) in the
   * next write of that pool. Resolves with the pool as written — or as read, when nothing needed
   * writing — once that write succeeded, or `undefined` when the pool does not exist. `change` may
   * run more than once (again after a conflict, on a fresh read); its last run is what was written.
   * Rejects with what `change` threw, or with the write's error (a conflict after
   * {@link POOL_WRITE_ATTEMPTS} attempts).
   */
  write(name: string, change: TableChange, signal: AbortSignal): Promise<IPAMPool | undefined>;
  /** Writes made, the changes they carried, and conflicts retried (for tests and benchmarks). */
  readonly stats: { readonly writes: number; readonly changes: number; readonly conflicts: number };
}

/** Options of {@link createPoolWriter}. */
export interface PoolWriterOptions {
  readonly kube: KubeClient;
  readonly clients: OperatorClients;
  /** The clock of the pool's condition transitions. */
  readonly now: () => Date;
}

interface Pending {
  readonly change: TableChange;
  readonly signal: AbortSignal;
  readonly resolve: (pool: IPAMPool | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** One pool's queue of changes (kept while the controller lives: pools are few). */
interface PoolLane {
  pending: Pending[];
  running: boolean;
  /** The pool as this writer last wrote or read it (newer than the cache until the watch catches up). */
  latest: IPAMPool | undefined;
}

/** Builds the writer; nothing runs until a change is written. */
export function createPoolWriter(options: PoolWriterOptions): PoolWriter {
  const { kube, clients, now } = options;
  const lanes = new Map<string, PoolLane>();
  const stats = { writes: 0, changes: 0, conflicts: 0 };

  /** The pool to decide on first: the cache, unless this writer's own last write is newer. */
  const base = (name: string, lane: PoolLane): IPAMPool | undefined => {
    const cached = clients.pools.get(name);
    if (!cached) lane.latest = undefined; // deleted (or not seen yet): the cache decides
    const latest = lane.latest;
    if (!cached || !latest || cached.metadata?.uid !== latest.metadata?.uid) return cached;
    return newer(latest, cached) ? latest : cached;
  };

  const commit = async (name: string, lane: PoolLane, batch: readonly Pending[]): Promise<void> => {
    const signal = batch.length === 1 ? batch[0]!.signal : AbortSignal.any(batch.map((p) => p.signal));
    let errors: readonly unknown[] = [];
    try {
      const written = await retryOnConflict(
        async (attempt) => {
          let pool = base(name, lane);
          if (attempt > 1) {
            stats.conflicts++;
            pool = (await ignoreNotFound(kube.api.get({ resource: IPAMPoolResource, name }, { signal }))) as
              | IPAMPool
              | undefined;
            lane.latest = pool;
          }
          if (!pool) return undefined;
          const outcome = applyChanges(
            pool,
            batch.map((p) => p.change),
          );
          errors = outcome.errors;
          if (!outcome.changed && isStatusCurrent(pool)) return pool;
          const status = poolStatus(outcome.pool, now());
          // Without managedFields: the apiserver keeps the stored ones when a request has none,
          // and they are nearly half of a large pool's bytes.
          const { managedFields: _, ...metadata } = pool.metadata ?? {};
          const result = await clients.pools.updateStatus({ ...pool, metadata, status }, { signal });
          stats.writes++;
          stats.changes += batch.length;
          lane.latest = result;
          return result;
        },
        { steps: POOL_WRITE_ATTEMPTS, initialDelayMs: 0, signal },
      );
      batch.forEach((p, i) => {
        const error = errors[i];
        if (error === undefined) p.resolve(written);
        else p.reject(error);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  };

  const drain = async (name: string, lane: PoolLane): Promise<void> => {
    lane.running = true;
    try {
      while (lane.pending.length > 0) {
        const batch = lane.pending.splice(0).filter((p) => {
          if (!p.signal.aborted) return true;
          p.reject(p.signal.reason);
          return false;
        });
        if (batch.length > 0) await commit(name, lane, batch);
      }
    } finally {
      lane.running = false;
    }
  };

  return {
    stats,
    write(name, change, signal) {
      return new Promise<IPAMPool | undefined>((resolve, reject) => {
        let lane = lanes.get(name);
        if (!lane) {
          lane = { pending: [], running: false, latest: undefined };
          lanes.set(name, lane);
        }
        lane.pending.push({ change, signal, resolve, reject });
        // drain settles every change it takes (commit never throws); it runs until the lane is empty.
        if (!lane.running) void drain(name, lane);
      });
    },
  };
}

/**
 * Whether `a` is a later version of the same pool than `b`. Resource versions are opaque to
 * clients; etcd's are increasing integers, so two that parse as integers are compared as such.
 * Otherwise `a` (this writer's own last write or read) is taken. Either way only the first
 * attempt's base depends on it: a stale base fails with a conflict, never writes.
 */
function newer(a: IPAMPool, b: IPAMPool): boolean {
  const x = a.metadata?.resourceVersion ?? '';
  const y = b.metadata?.resourceVersion ?? '';
  if (x === y) return false;
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return BigInt(x) > BigInt(y);
  return true;
}
