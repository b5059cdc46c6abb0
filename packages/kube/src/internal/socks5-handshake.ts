import { isIPv4, isIPv6 } from 'node:net';
import { ProxyTunnelError } from './proxy-tunnel-error.ts';
import type { ProxyConfig } from './proxy-url.ts';
import { authority, type TunnelHandshake, type TunnelTarget } from './tunnel-handshake.ts';

/** RFC 1928 §6's reply codes. */
const REPLIES: Readonly<Record<number, string>> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/**
 * A SOCKS5 `CONNECT` (RFC 1928) as Go's dialer sends it: no authentication, or user name and
 * password (RFC 1929) from the proxy URL's userinfo; a host name goes to the proxy to resolve.
 */
export function socks5Handshake(proxy: ProxyConfig, target: TunnelTarget): TunnelHandshake {
  const to = authority(target);
  const fail = (problem: string, status?: number): ProxyTunnelError =>
    new ProxyTunnelError(`SOCKS5 CONNECT ${to} through proxy ${proxy.display} failed: ${problem}`, {
      code: 'ERR_PROXY_TUNNEL',
      proxy: proxy.display,
      status,
    });
  const connect = Buffer.concat([Buffer.from([5, 1, 0]), address(target.host), port(target.port)]);
  let state: 'method' | 'auth' | 'reply' = 'method';
  return {
    first: Buffer.from(proxy.credentials ? [5, 2, 0, 2] : [5, 1, 0]),
    feed(bytes) {
      if (state === 'method') {
        if (bytes.length < 2) return undefined;
        if (bytes[0] !== 5) throw fail('the proxy does not speak SOCKS5: check the scheme of proxy-url');
        if (bytes[1] === 0) {
          state = 'reply';
          return { used: 2, send: connect };
        }
        if (bytes[1] === 2 && proxy.credentials) {
          state = 'auth';
          return { used: 2, send: userPassword(proxy.credentials) };
        }
        throw fail(
          proxy.credentials
            ? 'the proxy accepts neither no authentication nor a user name and password'
            : 'the proxy wants authentication: put a user name and password in proxy-url as socks5://user:password@host:port',
        );
      }
      if (state === 'auth') {
        if (bytes.length < 2) return undefined;
        if (bytes[1] !== 0)
          throw fail('the proxy rejected the user name and password: check the credentials in proxy-url');
        state = 'reply';
        return { used: 2, send: connect };
      }
      if (bytes.length < 5) return undefined;
      const code = bytes[1]!;
      if (bytes[0] !== 5) throw fail('the proxy answered the CONNECT with something else than SOCKS5');
      if (code !== 0) throw fail(`${REPLIES[code] ?? 'unknown reply'} (reply ${code})`, code);
      const kind = bytes[3];
      const length = kind === 1 ? 4 : kind === 4 ? 16 : kind === 3 ? 1 + bytes[4]! : -1;
      if (length < 0) throw fail(`the reply has the unknown address type ${kind}`);
      const used = 4 + length + 2;
      return bytes.length < used ? undefined : { used, done: true };
    },
  };
}

/** RFC 1929's sub-negotiation. */
function userPassword(credentials: NonNullable<ProxyConfig['credentials']>): Buffer {
  const user = Buffer.from(credentials.username);
  const password = Buffer.from(credentials.password);
  if (user.length > 255 || password.length > 255) {
    throw new Error('the SOCKS5 user name and password in proxy-url must be at most 255 bytes each');
  }
  return Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]);
}

/** The address field: IPv4, IPv6, or a domain name for the proxy to resolve. */
function address(host: string): Buffer {
  if (isIPv4(host)) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (isIPv6(host)) return Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  const name = Buffer.from(host);
  if (name.length > 255) throw new Error(`the host name ${host} is too long for SOCKS5 (at most 255 bytes)`);
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}

function port(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(value);
  return out;
}

/** The 16 bytes of an IPv6 address (`::` expanded, a trailing dotted IPv4 part included). */
function ipv6Bytes(text: string): Buffer {
  const withoutZone = text.split('%')[0]!;
  const [head = '', tail] = withoutZone.split('::');
  const groups = (part: string): number[] => {
    if (!part) return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [Number.parseInt(g, 16)];
      const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(g, i * 2);
  return out;
}
