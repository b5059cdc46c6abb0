import { ProxyTunnelError } from './proxy-tunnel-error.ts';
import type { ProxyConfig } from './proxy-url.ts';
import { authority, type TunnelHandshake, type TunnelTarget } from './tunnel-handshake.ts';

/** The largest response head accepted from the proxy. */
const MAX_HEAD = 16 * 1024;

/** What to check, by the status the proxy refused a `CONNECT` with. */
function hint(status: number, proxy: ProxyConfig): string {
  if (status === 407) {
    return proxy.credentials
      ? 'check the proxy credentials in proxy-url'
      : 'the proxy wants credentials: put them in proxy-url as http://user:password@host:port';
  }
  if (status === 403) return 'the proxy does not allow tunnels to this host and port: ask its operator';
  if (status >= 500)
    return 'the proxy could not reach the API server: check the server URL and that the proxy can reach it';
  return 'check proxy-url and the proxy';
}

/**
 * HTTP `CONNECT host:port` (RFC 9110 §9.3.6), as client-go sends it: `Host` and, with userinfo
 * in the proxy URL, `Proxy-Authorization: Basic`. Any 2xx opens the tunnel; anything else is a
 * {@link ProxyTunnelError} with the status, the proxy and what to check.
 */
export function httpConnectHandshake(proxy: ProxyConfig, target: TunnelTarget): TunnelHandshake {
  const to = authority(target);
  let head = `CONNECT ${to} HTTP/1.1\r\nHost: ${to}\r\n`;
  if (proxy.credentials) {
    const { username, password } = proxy.credentials;
    head += `Proxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString('base64')}\r\n`;
  }
  const refused = (message: string, status?: number): ProxyTunnelError =>
    new ProxyTunnelError(message, { code: 'ERR_PROXY_TUNNEL', proxy: proxy.display, status });
  return {
    first: Buffer.from(`${head}\r\n`, 'latin1'),
    feed(bytes) {
      const end = bytes.indexOf('\r\n\r\n');
      if (end < 0) {
        if (bytes.length > MAX_HEAD) {
          throw refused(`proxy ${proxy.display} answered CONNECT ${to} with a head over ${MAX_HEAD} bytes`);
        }
        return undefined;
      }
      const line = bytes.toString('latin1', 0, bytes.indexOf('\r\n'));
      const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(line);
      if (!match) {
        throw refused(
          `proxy ${proxy.display} answered CONNECT ${to} with "${line.slice(0, 100)}", not HTTP: check that proxy-url names an HTTP proxy (a SOCKS proxy is socks5://)`,
        );
      }
      const status = Number(match[1]);
      if (status < 200 || status > 299) {
        const reason = match[2] ? ` ${match[2]}` : '';
        throw refused(
          `CONNECT ${to} through proxy ${proxy.display} was refused: ${status}${reason} — ${hint(status, proxy)}`,
          status,
        );
      }
      return { used: end + 4, done: true };
    },
  };
}
