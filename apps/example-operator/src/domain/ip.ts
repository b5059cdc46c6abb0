/**
 * IP addresses and CIDRs as numbers: parsing with the strictness of Go's `net/netip` (no leading
 * zeros in IPv4, no zones), canonical formatting (RFC 5952 for IPv6) and prefix arithmetic. Pure.
 *
 * @module
 */

/** An address family, as the API spells it. */
export type Family = 'IPv4' | 'IPv6';

/** A parsed IP address. */
export interface Address {
  readonly family: Family;
  /** The address as an unsigned integer (32 or 128 bits). */
  readonly value: bigint;
}

/** A parsed CIDR: the network address (host bits cleared) and the prefix length. */
export interface Cidr {
  readonly family: Family;
  /** The first address of the network. */
  readonly network: bigint;
  /** The last address of the network. */
  readonly last: bigint;
  readonly prefix: number;
}

const BITS: Record<Family, number> = { IPv4: 32, IPv6: 128 };

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0; // below 2^32: exact as a double, one BigInt at the end (allocation tables parse thousands)
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return BigInt(value);
}

function parseIPv6(text: string): bigint | undefined {
  if (text.length === 0 || text.includes('%')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): bigint[] | undefined => {
    if (half === '') return [];
    const out: bigint[] = [];
    const items = half.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i] ?? '';
      if (i === items.length - 1 && item.includes('.')) {
        const v4 = parseIPv4(item);
        if (v4 === undefined) return undefined;
        out.push(v4 >> 16n, v4 & 0xffffn);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(item)) return undefined;
      out.push(BigInt(`0x${item}`));
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  const count = head.length + tail.length;
  if (halves.length === 2 ? count > 7 : count !== 8) return undefined;
  const all = [...head, ...new Array<bigint>(8 - count).fill(0n), ...tail];
  return all.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/**
 * Addresses parsed recently. A pool's allocation table is parsed again on every plan, summary
 * and usage computation (thousands of records per pool); the records change little between two
 * passes. Bounded: emptied when it reaches {@link PARSED_LIMIT} entries.
 */
const parsed = new Map<string, Address | undefined>();
const PARSED_LIMIT = 65_536;

/** Parses an IPv4 or IPv6 address; `undefined` when `text` is not one. The result is shared: never mutate it. */
export function parseAddress(text: string): Address | undefined {
  if (parsed.has(text)) return parsed.get(text);
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  const address = parseUncached(text);
  parsed.set(text, address);
  return address;
}

function parseUncached(text: string): Address | undefined {
  if (text.includes(':')) {
    const value = parseIPv6(text);
    return value === undefined ? undefined : { family: 'IPv6', value };
  }
  const value = parseIPv4(text);
  return value === undefined ? undefined : { family: 'IPv4', value };
}

/** Parses `address/prefix`; host bits are cleared, as Go's `net.ParseCIDR` returns the network. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const width = BITS[address.family];
  if (prefix > width) return undefined;
  const hostBits = BigInt(width - prefix);
  const network = (address.value >> hostBits) << hostBits;
  return { family: address.family, network, last: network + (1n << hostBits) - 1n, prefix };
}

/** Formats an address canonically: dotted quad, or RFC 5952 for IPv6 (lower case, longest zero run as `::`). */
export function formatAddress(address: Address): string {
  if (address.family === 'IPv4') {
    const v = address.value;
    return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  }
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((address.value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The canonical spelling of an address, or `undefined` when `text` is not one. */
export function canonicalAddress(text: string): string | undefined {
  const address = parseAddress(text);
  return address && formatAddress(address);
}
