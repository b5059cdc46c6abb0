import { describe, expect, it } from 'vitest';
import { addressSpace, contains, lowestFree } from './address-space.ts';

describe('addressSpace', () => {
  it('skips network, broadcast and excluded addresses (the design example: capacity 5)', () => {
    const space = addressSpace({ cidrs: ['192.0.2.16/29'], excludeIPs: ['192.0.2.17'] });
    expect(space.capacity).toBe(5);
    expect(lowestFree(space, [], 10)).toEqual([
      '192.0.2.18',
      '192.0.2.19',
      '192.0.2.20',
      '192.0.2.21',
      '192.0.2.22',
    ]);
    expect(contains(space, '192.0.2.16')).toBe(false);
    expect(contains(space, '192.0.2.23')).toBe(false);
    expect(contains(space, '192.0.2.17')).toBe(false);
    expect(contains(space, '192.0.2.18')).toBe(true);
  });

  it('keeps every address of /31 and /32, and of any CIDR when reservation is off', () => {
    expect(addressSpace({ cidrs: ['192.0.2.0/31', '192.0.2.9/32'] }).capacity).toBe(3);
    expect(addressSpace({ cidrs: ['192.0.2.0/30'], reserveNetworkAndBroadcast: false }).capacity).toBe(4);
    expect(addressSpace({ cidrs: ['192.0.2.0/30'] }).capacity).toBe(2);
  });

  it('merges overlapping CIDRs so no address counts twice', () => {
    const space = addressSpace({
      cidrs: ['10.0.0.0/24', '10.0.0.128/25'],
      reserveNetworkAndBroadcast: false,
    });
    expect(space.capacity).toBe(256);
    expect(space.ranges).toHaveLength(1);
  });

  it('reports entries it cannot use and keeps the rest', () => {
    const space = addressSpace({
      ipFamily: 'IPv4',
      cidrs: ['2001:db8::/120', 'nope', '192.0.2.0/30'],
      excludeIPs: ['x'],
    });
    expect(space.capacity).toBe(2);
    expect(space.problems).toEqual([
      'cidr 2001:db8::/120 is IPv6, the pool is IPv4',
      'cidr "nope" is not a CIDR',
      'excludeIPs entry "x" is not an IPv4 address',
    ]);
  });

  it('handles IPv6 pools of any size without enumerating them', () => {
    const space = addressSpace({ ipFamily: 'IPv6', cidrs: ['2001:db8::/64'], excludeIPs: ['2001:db8::'] });
    expect(space.capacity).toBe(Number.MAX_SAFE_INTEGER);
    expect(lowestFree(space, ['2001:db8::1', '2001:DB8::2'], 2)).toEqual(['2001:db8::3', '2001:db8::4']);
  });

  it('skips taken addresses across range boundaries', () => {
    const space = addressSpace({ cidrs: ['192.0.2.0/30', '192.0.2.8/30'] });
    expect(lowestFree(space, ['192.0.2.1', '192.0.2.2', '192.0.2.9'], 2)).toEqual(['192.0.2.10']);
  });
});
