/**
 * The allocation plan for one policy against its pool (invariants I1–I3): which addresses the
 * policy holds after this reconcile, and the pool's allocation table that records it. Pure: the
 * controller writes the table with a resourceVersion precondition, so a plan computed from a
 * stale pool fails with a conflict and is recomputed, never applied.
 *
 * @module
 */

import type {
  IPAMPoolStatusAllocationsItem as Allocation,
  EgressGatewayPolicy,
  IPAMPool,
  IPAMPoolStatusAllocationsItemOwner as OwnerRef,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { type AddressSpace, addressSpace, contains, lowestFree } from './address-space.ts';
import { rfc3339 } from './conditions.ts';
import { type Address, canonicalAddress, parseAddress } from './ip.ts';

/** Why a policy does not hold all the addresses it asks for (the `IPAllocated=False` reasons). */
export type AllocationFailure =
  | 'PoolExhausted'
  | 'RequestedIPUnavailable'
  | 'RequestedIPOutOfRange'
  | 'FamilyMismatch';

/** The outcome of planning one policy's allocation. */
export interface AllocationPlan {
  /** The pool's full allocation table after the plan, sorted by address. */
  readonly allocations: Allocation[];
  /** Whether `allocations` differs from the pool's current table (a write is needed). */
  readonly changed: boolean;
  /** The addresses the policy holds after the plan, sorted by address. */
  readonly egressIPs: string[];
  /** Set when the policy holds fewer addresses than it asks for, with a one-line message. */
  readonly failure?: { readonly reason: AllocationFailure; readonly message: string };
}

/** The identity of a policy in allocation records. */
function ownerOf(policy: EgressGatewayPolicy): OwnerRef {
  const m = policy.metadata ?? {};
  return { namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '' };
}

/** An address with its parse (`undefined`: not an address). */
interface Keyed {
  readonly text: string;
  readonly parsed: Address | undefined;
}

/** Sorts addresses numerically (IPv4 before IPv6; unparsable last, by text). */
function byAddress(a: string, b: string): number {
  return compareKeyed({ text: a, parsed: parseAddress(a) }, { text: b, parsed: parseAddress(b) });
}

function compareKeyed(l: Keyed, r: Keyed): number {
  const x = l.parsed;
  const y = r.parsed;
  if (!x || !y) return x ? -1 : y ? 1 : l.text < r.text ? -1 : l.text > r.text ? 1 : 0;
  if (x.family !== y.family) return x.family === 'IPv4' ? -1 : 1;
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}

/**
 * Plans the addresses `policy` holds in `pool`:
 * - addresses it already holds stay while they are still in the pool (sticky: no churn);
 * - each `requestedIPs` entry is granted when it is in the pool and free, otherwise the plan
 *   fails with a reason and that address is not substituted;
 * - the remaining `ipCount - requestedIPs` slots keep held addresses first, then take the lowest
 *   free addresses — all of them or none (a policy never holds a partial set that could starve
 *   another), so a pool without enough room fails with `PoolExhausted`;
 * - when `ipCount` shrinks, the highest addresses not requested are released first.
 * Addresses of other owners are never touched.
 */
export function planAllocation(
  pool: IPAMPool,
  policy: EgressGatewayPolicy,
  now: Date = new Date(),
): AllocationPlan {
  const space = addressSpace(pool.spec);
  return planInSpace({ pool, policy, space, now });
}

interface PlanInput {
  readonly pool: IPAMPool;
  readonly policy: EgressGatewayPolicy;
  readonly space: AddressSpace;
  readonly now: Date;
}

/**
 * What a plan reads of an allocation table, computed once per table: tables are immutable
 * snapshots (the cache's pool, or a batch's table after a change), and a policy that already
 * holds its addresses — every reconcile after the first — then costs a lookup of its own records,
 * not a pass over the whole table.
 */
interface TableIndex {
  /** The table's records with their parsed addresses, in table order. */
  readonly keyed: readonly { readonly a: Allocation; readonly key: Keyed }[];
  /** Records per owner uid, in table order. */
  readonly byOwner: ReadonlyMap<string, readonly Allocation[]>;
  /** The owner uid of each address (see {@link addressKey}), the first one when several hold it. */
  readonly owners: ReadonlyMap<bigint | string, string>;
  /** Every owner uid of the addresses held by more than one owner (a corrupted table). */
  readonly shared: ReadonlyMap<bigint | string, ReadonlySet<string>>;
  /** Whether the table is sorted by address. */
  readonly sorted: boolean;
}

const tableIndexes = new WeakMap<readonly Allocation[], TableIndex>();

/** IPv6 values above every IPv4 one, so one map holds both families. */
const V6_OFFSET = 1n << 128n;

/** An address's identity: its value (equal for every spelling of it), or its text when unparsable. */
function addressKey(text: string): bigint | string {
  const parsed = parseAddress(text);
  if (!parsed) return text;
  return parsed.family === 'IPv4' ? parsed.value : parsed.value + V6_OFFSET;
}

function tableIndex(table: readonly Allocation[]): TableIndex {
  let index = tableIndexes.get(table);
  if (index) return index;
  const keyed: { a: Allocation; key: Keyed }[] = [];
  const byOwner = new Map<string, Allocation[]>();
  const owners = new Map<bigint | string, string>();
  const shared = new Map<bigint | string, Set<string>>();
  let sorted = true;
  for (const a of table) {
    const list = byOwner.get(a.owner.uid);
    if (list) list.push(a);
    else byOwner.set(a.owner.uid, [a]);
    const id = addressKey(a.ip);
    const first = owners.get(id);
    if (first === undefined) owners.set(id, a.owner.uid);
    else if (first !== a.owner.uid) {
      const uids = shared.get(id);
      if (uids) uids.add(a.owner.uid);
      else shared.set(id, new Set([first, a.owner.uid]));
    }
    const key = { text: a.ip, parsed: parseAddress(a.ip) };
    const last = keyed[keyed.length - 1];
    if (last && compareKeyed(last.key, key) > 0) sorted = false;
    keyed.push({ a, key });
  }
  index = { keyed, byOwner, owners, shared, sorted };
  tableIndexes.set(table, index);
  return index;
}

/**
 * The table with `uid`'s records replaced by `mine`, sorted by address (ties: the other owners'
 * records first, in table order), merging into the already sorted rest when the table is sorted.
 */
function replaceOwn(table: TableIndex, uid: string, mine: readonly Allocation[]): Allocation[] {
  const others = table.keyed.filter((k) => k.a.owner.uid !== uid);
  if (!table.sorted) others.sort((l, r) => compareKeyed(l.key, r.key));
  const own = mine
    .map((a) => ({ a, key: { text: a.ip, parsed: parseAddress(a.ip) } }))
    .sort((l, r) => compareKeyed(l.key, r.key));
  const out: Allocation[] = [];
  let i = 0;
  for (const o of own) {
    while (i < others.length && compareKeyed(others[i]!.key, o.key) <= 0) out.push(others[i++]!.a);
    out.push(o.a);
  }
  while (i < others.length) out.push(others[i++]!.a);
  return out;
}

function planInSpace({ pool, policy, space, now }: PlanInput): AllocationPlan {
  const owner = ownerOf(policy);
  const table = tableIndex(pool.status?.allocations ?? []);
  /** Held by another owner (any spelling of the address). */
  const heldByOther = (ip: string) => {
    const id = addressKey(ip);
    const first = table.owners.get(id);
    return first !== undefined && (first !== owner.uid || table.shared.has(id));
  };
  const ownRecords = table.byOwner.get(owner.uid) ?? [];
  const heldRecords = new Map<string, Allocation>();
  for (const a of ownRecords) {
    const ip = canonicalAddress(a.ip);
    if (ip && contains(space, ip) && !heldByOther(ip)) heldRecords.set(ip, a);
  }

  const ipCount = policy.spec.ipCount ?? 1;
  const requested = [...new Set(policy.spec.requestedIPs ?? [])];
  let failure: AllocationPlan['failure'];
  const fail = (reason: AllocationFailure, message: string) => {
    failure ??= { reason, message };
  };
  const keep = new Set<string>();
  const requestedCanonical = new Set<string>();
  for (const text of requested) {
    const address = parseAddress(text);
    const ip = canonicalAddress(text);
    if (!address || !ip) {
      fail('RequestedIPOutOfRange', `requested IP ${JSON.stringify(text)} is not an IP address`);
      continue;
    }
    requestedCanonical.add(ip);
    if (address.family !== space.family) {
      fail(
        'FamilyMismatch',
        `requested IP ${text} is ${address.family}, pool ${poolName(pool)} is ${space.family}`,
      );
    } else if (!contains(space, ip)) {
      fail(
        'RequestedIPOutOfRange',
        `requested IP ${text} is not an address pool ${poolName(pool)} hands out`,
      );
    } else if (heldByOther(ip)) {
      fail('RequestedIPUnavailable', `requested IP ${text} is allocated to another policy`);
    } else keep.add(ip);
  }

  const autoSlots = Math.max(0, ipCount - requested.length);
  const heldAuto = [...heldRecords.keys()].filter((ip) => !requestedCanonical.has(ip)).sort(byAddress);
  const keptAuto = heldAuto.slice(0, autoSlots); // shrinking releases the highest first
  for (const ip of keptAuto) keep.add(ip);
  const missing = autoSlots - keptAuto.length;
  if (missing > 0) {
    const taken = table.keyed.filter((k) => heldByOther(k.a.ip)).map((k) => k.a.ip);
    taken.push(...keep);
    const free = lowestFree(space, taken, missing);
    if (free.length === missing) for (const ip of free) keep.add(ip);
    else
      fail(
        'PoolExhausted',
        `pool ${poolName(pool)} has ${free.length} free address${free.length === 1 ? '' : 'es'}, the policy needs ${missing} more`,
      );
  }

  const allocatedAt = rfc3339(now);
  const mine: Allocation[] = [...keep].map((ip) => heldRecords.get(ip) ?? { ip, owner, allocatedAt });
  // The other owners' records are the same objects on both sides: the table changed iff this
  // policy's records did (as a set, the table's order aside).
  const changed = !sameTable(ownRecords, mine);
  // Unchanged: the same records (the table sorted, as a changed one is).
  const allocations = changed
    ? replaceOwn(table, owner.uid, mine)
    : table.sorted
      ? [...(pool.status?.allocations ?? [])]
      : replaceOwn(table, owner.uid, ownRecords);
  const egressIPs = [...keep].sort(byAddress);
  return failure ? { allocations, changed, egressIPs, failure } : { allocations, changed, egressIPs };
}

/** The pool's allocation table without `uid`'s records (deleting a policy, or reclaiming an orphan). */
export function releaseAllocations(
  pool: IPAMPool,
  uid: string,
): { allocations: Allocation[]; changed: boolean } {
  const current = pool.status?.allocations ?? [];
  const allocations = current.filter((a) => a.owner.uid !== uid);
  return { allocations, changed: allocations.length !== current.length };
}

function sameTable(a: readonly Allocation[], b: readonly Allocation[]): boolean {
  if (a.length !== b.length) return false;
  const key = (x: Allocation) => `${x.ip}|${x.owner.uid}|${x.owner.namespace}|${x.owner.name}`;
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.every((k, i) => k === right[i]);
}

function poolName(pool: IPAMPool): string {
  return pool.metadata?.name ?? '(unnamed)';
}
