/**
 * A pool's counters and conditions (invariant I3) and its orphan candidates (I6). Pure: orphans
 * are only candidates — the controller confirms each owner is gone with a live read before it
 * reclaims the address.
 *
 * @module
 */

import type { IPAMPool, IPAMPoolStatus } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { addressSpace, contains } from './address-space.ts';
import type { ConditionInput } from './conditions.ts';
import { setCondition } from './conditions.ts';

/**
 * The pool's status with its counters and conditions recomputed from its spec and allocation table:
 * `capacity` (usable addresses), `allocated == len(allocations)`, `free == capacity - allocated`
 * (never below 0), `Exhausted` (free == 0), `AllocationsOutOfRange` (allocations outside the
 * spec, e.g. after a CIDR was removed) and `Ready` (the spec is usable).
 */
export function poolStatus(pool: IPAMPool, now: Date): IPAMPoolStatus {
  const space = addressSpace(pool.spec);
  const allocations = pool.status?.allocations ?? [];
  const outOfRange = allocations.filter((a) => !contains(space, a.ip)).map((a) => a.ip);
  const inRange = allocations.length - outOfRange.length;
  const free = Math.max(0, space.capacity - inRange);
  const generation = pool.metadata?.generation;
  const options = { now, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  const inputs: ConditionInput[] = [
    space.problems.length === 0 && space.capacity > 0
      ? { type: 'Ready', status: 'True', reason: 'Valid', message: `${space.capacity} usable addresses` }
      : {
          type: 'Ready',
          status: 'False',
          reason: space.capacity > 0 ? 'InvalidEntries' : 'NoUsableAddresses',
          message:
            space.problems.length > 0 ? space.problems.join('; ') : 'the CIDRs leave no usable address',
        },
    free === 0
      ? {
          type: 'Exhausted',
          status: 'True',
          reason: 'NoFreeAddresses',
          message: `all ${space.capacity} addresses are allocated`,
        }
      : { type: 'Exhausted', status: 'False', reason: 'FreeAddresses', message: `${free} free addresses` },
    outOfRange.length > 0
      ? {
          type: 'AllocationsOutOfRange',
          status: 'True',
          reason: 'OutsidePool',
          message: `allocated addresses outside the pool's spec: ${outOfRange.join(', ')}`,
        }
      : {
          type: 'AllocationsOutOfRange',
          status: 'False',
          reason: 'InRange',
          message: 'every allocation is inside the pool',
        },
  ];
  let conditions = pool.status?.conditions;
  for (const c of inputs) conditions = setCondition(conditions, c, options);
  return {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    capacity: space.capacity,
    allocated: allocations.length,
    free,
    allocations: [...allocations],
    conditions: conditions ?? [],
  };
}

/** Allocations whose owner uid is not among `knownPolicyUids` (from the cache): candidates for reclaim. */
export function orphanCandidates(
  pool: IPAMPool,
  knownPolicyUids: ReadonlySet<string>,
): { ip: string; namespace: string; name: string; uid: string }[] {
  return (pool.status?.allocations ?? [])
    .filter((a) => !knownPolicyUids.has(a.owner.uid))
    .map((a) => ({ ip: a.ip, ...a.owner }));
}
