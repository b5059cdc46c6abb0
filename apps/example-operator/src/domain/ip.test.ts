import { describe, expect, it } from 'vitest';
import { forAll } from '../../test/random.ts';
import { canonicalAddress, formatAddress, parseAddress, parseCidr } from './ip.ts';

describe('ip', () => {
  it('parses and formats IPv4 strictly', () => {
    expect(canonicalAddress('192.0.2.18')).toBe('192.0.2.18');
    for (const bad of [
      '192.0.2',
      '192.0.2.018',
      '256.0.0.1',
      '1.2.3.4.5',
      '',
      '1..2.3',
      ' 1.2.3.4',
      '1.2.3.-1',
    ])
      expect(parseAddress(bad), bad).toBeUndefined();
  });

  it('formats IPv6 as RFC 5952 says', () => {
    expect(canonicalAddress('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1'); // first of equal runs
    expect(canonicalAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1'); // one zero group stays
    expect(canonicalAddress('::')).toBe('::');
    expect(canonicalAddress('::ffff:192.0.2.1')).toBe('::ffff:c000:201');
    for (const bad of ['1:2:3:4:5:6:7', '1::2::3', '12345::', 'fe80::1%eth0', ':::', '1:2:3:4:5:6:7:8:9'])
      expect(parseAddress(bad), bad).toBeUndefined();
  });

  it('round-trips random addresses of both families', () => {
    forAll(300, (rnd) => {
      const family = rnd.chance(0.5) ? 'IPv4' : 'IPv6';
      let value = 0n;
      const width = family === 'IPv4' ? 32 : 128;
      for (let i = 0; i < width; i += 16)
        value = (value << 16n) | BigInt(rnd.chance(0.3) ? 0 : rnd.int(0, 0xffff));
      if (family === 'IPv4') value &= 0xffffffffn;
      const text = formatAddress({ family, value });
      expect(parseAddress(text)).toEqual({ family, value });
      expect(canonicalAddress(text)).toBe(text);
    });
  });

  it('parses CIDRs to their network, as net.ParseCIDR does', () => {
    expect(parseCidr('192.0.2.20/29')).toEqual({
      family: 'IPv4',
      network: 0xc0000210n,
      last: 0xc0000217n,
      prefix: 29,
    });
    expect(parseCidr('2001:db8::/126')?.last).toBe(0x20010db8000000000000000000000003n);
    for (const bad of ['192.0.2.0', '192.0.2.0/33', '192.0.2.0/-1', '192.0.2.0/08', '2001:db8::/129', 'x/24'])
      expect(parseCidr(bad), bad).toBeUndefined();
  });
});
