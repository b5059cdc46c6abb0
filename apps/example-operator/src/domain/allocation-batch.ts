/**
 * Group commit of a pool's allocation table: the changes several reconciles want to make to one
 * pool at the same time (allocations, releases, orphan reclaims), applied one after the other to
 * one table, so that one status write carries them all. Pure: each change sees the table as the
 * changes before it left it — exactly what it would have seen had each been written on its own,
 * one after the other — so the invariants of a single plan (I1: no address twice; I2: in range)
 * hold for the batch, and the controller still writes it with the resourceVersion it was decided
 * on (a stale base fails as a conflict and the whole batch is decided again).
 *
 * @module
 */

import type {
  IPAMPoolStatusAllocationsItem as Allocation,
  IPAMPool,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';

/** One change to a pool's allocation table, decided on the pool as the batch has left it so far. */
export type TableChange = (pool: IPAMPool) => {
  /** The pool's full allocation table after the change. */
  readonly allocations: Allocation[];
  /** Whether `allocations` differs from the table the change was given. */
  readonly changed: boolean;
};

/** The outcome of {@link applyChanges}. */
export interface BatchOutcome {
  /** The pool with its allocation table after every change that applied. */
  readonly pool: IPAMPool;
  /** Whether any change changed the table (a write is needed). */
  readonly changed: boolean;
  /**
   * Per change, in order: `undefined` when it applied, otherwise what it threw — a change that
   * throws is left out of the table and the others go on without it.
   */
  readonly errors: readonly unknown[];
}

/** Applies `changes` in order to `pool`'s allocation table, each to the table the previous ones left. */
export function applyChanges(pool: IPAMPool, changes: readonly TableChange[]): BatchOutcome {
  let current = pool;
  let changed = false;
  const errors: unknown[] = [];
  for (const change of changes) {
    try {
      const next = change(current);
      errors.push(undefined);
      if (!next.changed) continue;
      changed = true;
      current = { ...current, status: { ...current.status, allocations: next.allocations } };
    } catch (error) {
      errors.push(error ?? new Error('a pool table change threw without a reason'));
    }
  }
  return { pool: current, changed, errors };
}
