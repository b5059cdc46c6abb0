import { describe, expect, it } from 'vitest';
import { ProxyTunnelError } from './proxy-tunnel-error.ts';
import { parseProxyUrl } from './proxy-url.ts';
import { socks5Handshake } from './socks5-handshake.ts';

const proxy = parseProxyUrl('socks5://127.0.0.1:1080');

/** The CONNECT request the handshake sends for `host` once the proxy chose no authentication. */
function connectRequest(host: string): number[] {
  const step = socks5Handshake(proxy, { host, port: 6443 }).feed(Buffer.from([5, 0]));
  return [...step!.send!];
}

describe('the SOCKS5 handshake', () => {
  it('sends IPv4 and IPv6 addresses as addresses and a host name for the proxy to resolve', () => {
    const port = [0x19, 0x2b]; // 6443
    expect(connectRequest('10.1.2.3')).toEqual([5, 1, 0, 1, 10, 1, 2, 3, ...port]);
    expect(connectRequest('::1')).toEqual([5, 1, 0, 4, ...new Array(15).fill(0), 1, ...port]);
    expect(connectRequest('2001:db8::ffff:1.2.3.4')).toEqual([
      5,
      1,
      0,
      4,
      0x20,
      0x01,
      0x0d,
      0xb8,
      ...new Array(6).fill(0),
      0xff,
      0xff,
      1,
      2,
      3,
      4,
      ...port,
    ]);
    expect(connectRequest('kube.test')).toEqual([5, 1, 0, 3, 9, ...Buffer.from('kube.test'), ...port]);
  });

  it('waits for a whole reply, whatever its address type, and leaves the bytes after it', () => {
    const handshake = socks5Handshake(proxy, { host: 'kube.test', port: 443 });
    expect([...handshake.first]).toEqual([5, 1, 0]);
    expect(handshake.feed(Buffer.from([5, 0]))?.used).toBe(2);
    const reply = Buffer.from([5, 0, 0, 3, 4, ...Buffer.from('host'), 1, 187]);
    for (let cut = 0; cut < reply.length; cut++)
      expect(handshake.feed(reply.subarray(0, cut))).toBeUndefined();
    expect(handshake.feed(Buffer.concat([reply, Buffer.from('tls')]))).toEqual({
      used: reply.length,
      done: true,
    });
  });

  it('names the refusal and asks for credentials the proxy wants', () => {
    const refused = socks5Handshake(proxy, { host: 'kube.test', port: 443 });
    refused.feed(Buffer.from([5, 0]));
    expect(() => refused.feed(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]))).toThrow(
      new ProxyTunnelError(
        'SOCKS5 CONNECT kube.test:443 through proxy socks5://127.0.0.1:1080 failed: connection refused (reply 5)',
        { code: 'ERR_PROXY_TUNNEL', proxy: proxy.display, status: 5 },
      ),
    );
    expect(() => socks5Handshake(proxy, { host: 'h', port: 1 }).feed(Buffer.from([5, 0xff]))).toThrow(
      /the proxy wants authentication: put a user name and password in proxy-url/,
    );
    expect(() => socks5Handshake(proxy, { host: 'h', port: 1 }).feed(Buffer.from([4, 0]))).toThrow(
      /does not speak SOCKS5/,
    );
  });
});
