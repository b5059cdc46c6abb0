/**
 * The addresses a pool can hand out: its CIDRs merged into disjoint ranges, minus network and
 * broadcast addresses (IPv4, when reserved) and the excluded addresses. Pure.
 *
 * @module
 */

import type { IPAMPoolSpec } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { type Family, formatAddress, parseAddress, parseCidr } from './ip.ts';

/** An inclusive range of addresses. */
type AddressRange = AddressSpace['ranges'][number];

/** A pool's usable address space. */
export interface AddressSpace {
  readonly family: Family;
  /** Disjoint, sorted, inclusive ranges. */
  readonly ranges: readonly { readonly first: bigint; readonly last: bigint }[];
  /** Excluded addresses inside the ranges, sorted, unique. */
  readonly excluded: readonly bigint[];
  /** Usable addresses (ranges minus excluded), as a number; at most `Number.MAX_SAFE_INTEGER`. */
  readonly capacity: number;
  /** Spec entries that could not be used, one line each (a CIDR or IP of the wrong family or malformed). */
  readonly problems: readonly string[];
}

/**
 * The address space of a pool spec. Malformed entries and entries of another family are left out
 * and reported in `problems` (the CRD only bounds their length, so the operator must cope).
 */
export function addressSpace(spec: IPAMPoolSpec): AddressSpace {
  const family: Family = spec.ipFamily ?? 'IPv4';
  const reserve = spec.reserveNetworkAndBroadcast ?? true;
  const problems: string[] = [];
  const raw: AddressRange[] = [];
  for (const text of spec.cidrs ?? []) {
    const cidr = parseCidr(text);
    if (!cidr) {
      problems.push(`cidr ${JSON.stringify(text)} is not a CIDR`);
      continue;
    }
    if (cidr.family !== family) {
      problems.push(`cidr ${text} is ${cidr.family}, the pool is ${family}`);
      continue;
    }
    let { network: first, last } = cidr;
    if (family === 'IPv4' && reserve && cidr.prefix <= 30) {
      first += 1n;
      last -= 1n;
    }
    raw.push({ first, last });
  }
  const ranges = mergeRanges(raw);
  const excludedSet = new Set<bigint>();
  for (const text of spec.excludeIPs ?? []) {
    const address = parseAddress(text);
    if (!address || address.family !== family) {
      problems.push(`excludeIPs entry ${JSON.stringify(text)} is not an ${family} address`);
      continue;
    }
    if (rangeIndex(ranges, address.value) >= 0) excludedSet.add(address.value);
  }
  const excluded = [...excludedSet].sort(compare);
  let total = 0n;
  for (const r of ranges) total += r.last - r.first + 1n;
  total -= BigInt(excluded.length);
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return { family, ranges, excluded, capacity: Number(total > max ? max : total), problems };
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mergeRanges(ranges: AddressRange[]): AddressRange[] {
  const sorted = [...ranges].sort((a, b) => compare(a.first, b.first));
  const out: AddressRange[] = [];
  for (const r of sorted) {
    if (r.first > r.last) continue;
    const prev = out.at(-1);
    if (prev && r.first <= prev.last + 1n) {
      if (r.last > prev.last) out[out.length - 1] = { first: prev.first, last: r.last };
    } else out.push(r);
  }
  return out;
}

function rangeIndex(ranges: readonly AddressRange[], value: bigint): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid] as AddressRange;
    if (value < r.first) hi = mid - 1;
    else if (value > r.last) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Whether `ip` (any spelling) is an address the pool can hand out: in a range, right family, not excluded. */
export function contains(space: AddressSpace, ip: string): boolean {
  const address = parseAddress(ip);
  if (!address || address.family !== space.family) return false;
  return rangeIndex(space.ranges, address.value) >= 0 && !binaryHas(space.excluded, address.value);
}

function binaryHas(sorted: readonly bigint[], value: bigint): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid] as bigint;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The `count` lowest usable addresses not in `taken` (any spelling), in ascending order; fewer
 * when the pool has fewer free. Cost grows with the taken and excluded addresses, not the pool size.
 */
export function lowestFree(space: AddressSpace, taken: Iterable<string>, count: number): string[] {
  const blocked = new Set<bigint>(space.excluded);
  for (const ip of taken) {
    const address = parseAddress(ip);
    if (address && address.family === space.family) blocked.add(address.value);
  }
  const sortedBlocked = [...blocked].sort(compare);
  const out: string[] = [];
  let b = 0;
  for (const range of space.ranges) {
    let candidate = range.first;
    while (out.length < count && candidate <= range.last) {
      while (b < sortedBlocked.length && (sortedBlocked[b] as bigint) < candidate) b++;
      if (b < sortedBlocked.length && sortedBlocked[b] === candidate) {
        candidate += 1n;
        continue;
      }
      out.push(formatAddress({ family: space.family, value: candidate }));
      candidate += 1n;
    }
    if (out.length >= count) break;
  }
  return out;
}
