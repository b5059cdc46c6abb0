/** The proxy schemes a kubeconfig `proxy-url` may use, as client-go accepts them. */
const SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'] as const;

/** A kubeconfig cluster's `proxy-url`, parsed and checked. */
export interface ProxyConfig {
  /** `http:` and `https:` tunnel with `CONNECT`; `socks5:` and `socks5h:` with a SOCKS5 `CONNECT`. */
  readonly protocol: (typeof SCHEMES)[number];
  /** The proxy's host name (an IPv6 address without its brackets). */
  readonly host: string;
  readonly port: number;
  /** The user name and password of the URL's userinfo, percent-decoded. */
  readonly credentials?: { readonly username: string; readonly password: string } | undefined;
  /** How to name the proxy in a message: the URL with the password replaced by `xxxxx`. */
  readonly display: string;
}

/** The default port of each scheme (1080 for SOCKS, as client-go and curl). */
const DEFAULT_PORTS: Readonly<Record<ProxyConfig['protocol'], number>> = {
  'http:': 80,
  'https:': 443,
  'socks5:': 1080,
  'socks5h:': 1080,
};

/**
 * Parses a kubeconfig `proxy-url`: `http://`, `https://` or `socks5://` (client-go's set, plus
 * `socks5h://`, which Go treats the same way: the proxy resolves the API server's name), with
 * optional `user:password@`.
 * @throws Error saying what is wrong and what is supported, for anything else.
 */
export function parseProxyUrl(raw: string): ProxyConfig {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `proxy-url "${redactRaw(raw)}" is not a URL: use e.g. http://proxy.example:3128, https://user:password@proxy.example:3128 or socks5://proxy.example:1080`,
    );
  }
  const protocol = SCHEMES.find((s) => s === url.protocol);
  if (!protocol) {
    throw new Error(
      `proxy-url ${redact(url)} has the unsupported scheme "${url.protocol.slice(0, -1)}": kubeloom, like kubectl, supports http://, https:// and socks5:// proxies`,
    );
  }
  if (!url.hostname) throw new Error(`proxy-url ${redact(url)} names no host`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const credentials =
    url.username || url.password
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : undefined;
  return {
    protocol,
    host,
    port: url.port ? Number(url.port) : DEFAULT_PORTS[protocol],
    credentials,
    display: redact(url),
  };
}

/** The URL's origin, with `user:xxxxx@` when it has userinfo (Go's `URL.Redacted`). */
function redact(url: URL): string {
  const user = url.username || url.password ? `${url.username}${url.password ? ':xxxxx' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}`;
}

/** A string that did not parse, with whatever sits between `://` and the last `@` hidden. */
function redactRaw(raw: string): string {
  return raw.replace(/^([^:/]*:\/\/)[^/]*@/, '$1xxxxx@');
}
