/**
 * A pool's counters and conditions (invariant I3) and its orphan candidates (I6). Pure: orphans
 * are only candidates — the controller confirms each owner is gone with a live read before it
 * reclaims the address.
 *
 * @module
 */

import type {
  EgressGatewayPolicy,
  IPAMPool,
  IPAMPoolStatus,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { addressSpace, contains } from './address-space.ts';
import type { ConditionInput } from './conditions.ts';
import { setCondition } from './conditions.ts';
import { jsonEqual } from './json-equal.ts';

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

/** An allocation whose owner is not known: reclaimed only once a live read shows the owner gone. */
export interface OrphanCandidate {
  readonly ip: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** Allocations whose owner uid is not among `knownPolicyUids` (from the cache): candidates for reclaim. */
export function orphanCandidates(pool: IPAMPool, knownPolicyUids: ReadonlySet<string>): OrphanCandidate[] {
  return (pool.status?.allocations ?? [])
    .filter((a) => !knownPolicyUids.has(a.owner.uid))
    .map((a) => ({ ip: a.ip, ...a.owner }));
}

/** The fields of a {@link PoolUsage}. */
export interface PoolUsageFields {
  /** The pool's name (its key). */
  readonly name: string;
  /** Usable addresses of the spec. */
  readonly capacity: number;
  /** Entries of the allocation table. */
  readonly allocated: number;
  /** `capacity` minus the allocations inside the spec, never below 0. */
  readonly free: number;
  /** The policies naming the pool, as `namespace/name`, sorted. */
  readonly policies: readonly string[];
  /** Allocations owned by none of those policies (by uid). */
  readonly orphanCandidates: readonly OrphanCandidate[];
  /** True when the stored counters and conditions are those {@link poolStatus} computes. */
  readonly statusCurrent: boolean;
}

/**
 * A pool's usage, derived from its spec, its allocation table and the policies that name it: the
 * counters as they should be (whatever the stored status says), the policies by pool, and whether
 * the pool needs a summary pass. A class with plain fields, so equal usages compare equal and a
 * derived collection emits nothing when a change leaves the usage as it was.
 */
export class PoolUsage implements PoolUsageFields {
  /** The key krt reads (`metadata.name`). */
  readonly metadata: { readonly name: string };
  readonly name: string;
  readonly capacity: number;
  readonly allocated: number;
  readonly free: number;
  readonly policies: readonly string[];
  readonly orphanCandidates: readonly OrphanCandidate[];
  readonly statusCurrent: boolean;

  constructor(fields: PoolUsageFields) {
    this.metadata = { name: fields.name };
    this.name = fields.name;
    this.capacity = fields.capacity;
    this.allocated = fields.allocated;
    this.free = fields.free;
    this.policies = fields.policies;
    this.orphanCandidates = fields.orphanCandidates;
    this.statusCurrent = fields.statusCurrent;
  }

  /** True when a summary pass has something to do: stale counters or conditions, or orphan candidates. */
  needsSummary(): boolean {
    return !this.statusCurrent || this.orphanCandidates.length > 0;
  }
}

/** Any fixed instant: only a condition that flips takes it, and a flip is a difference anyway. */
const FIXED = new Date(0);

/** The status {@link poolStatus} computes for a pool (at {@link FIXED}), and whether the stored one equals it. */
interface Summary {
  readonly status: IPAMPoolStatus;
  readonly current: boolean;
}

const summaries = new WeakMap<IPAMPool, Summary>();

/** The pool's summary, computed once per pool object (cached objects are never changed in place). */
function summaryOf(pool: IPAMPool): Summary {
  let summary = summaries.get(pool);
  if (!summary) {
    const status = poolStatus(pool, FIXED);
    summary = { status, current: jsonEqual(pool.status ?? {}, status) };
    summaries.set(pool, summary);
  }
  return summary;
}

/**
 * True when the pool's stored counters and conditions are those {@link poolStatus} computes (at
 * any instant: a condition takes the time only when it flips or appears, which differs anyway).
 * Computed once per pool object, so the unchanged pool of many reconciles costs one pass over
 * its table. Treat pool objects as immutable (as the cache's are).
 */
export function isStatusCurrent(pool: IPAMPool): boolean {
  return summaryOf(pool).current;
}

/**
 * The usage of `pool` given the policies that name it (`spec.ipamPoolRef.name`). Pure. Orphan
 * candidates are allocations owned by none of `policies`: an owner's pool reference is immutable,
 * so a live owner always names the pool it holds addresses in (a hand-edited table may list
 * others; the live read before a reclaim keeps them).
 */
export function poolUsage(pool: IPAMPool, policies: readonly EgressGatewayPolicy[]): PoolUsage {
  const { status, current } = summaryOf(pool);
  const uids = new Set<string>();
  for (const p of policies) if (p.metadata?.uid) uids.add(p.metadata.uid);
  return new PoolUsage({
    name: pool.metadata?.name ?? '',
    capacity: status.capacity ?? 0,
    allocated: status.allocated ?? 0,
    free: status.free ?? 0,
    policies: policies.map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`).sort(),
    orphanCandidates: orphanCandidates(pool, uids),
    statusCurrent: current,
  });
}
