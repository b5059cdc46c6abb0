/** What a {@link ProxyTunnelError} carries besides its message. */
interface ProxyTunnelErrorInit {
  /** `ERR_PROXY_TUNNEL` for a refusal, else the socket error's code (`ECONNREFUSED`, …). */
  readonly code: string;
  /** The proxy, as `ProxyConfig.display` names it (no password). */
  readonly proxy: string;
  /** The HTTP status of a refused `CONNECT`, or the SOCKS5 reply code. */
  readonly status?: number | undefined;
  readonly cause?: unknown;
}

/**
 * A tunnel through the kubeconfig's `proxy-url` that could not be opened: the proxy is down or
 * unreachable, refused the `CONNECT` (407, 403, 502, a SOCKS5 refusal), closed, or did not answer
 * in time. Its message names the proxy and the target and says what to check; `wrapTransport`
 * turns it into a `ConnectionError`.
 */
export class ProxyTunnelError extends Error {
  /** `ERR_PROXY_TUNNEL` (as Node names a refused tunnel) or the socket error's code. */
  readonly code: string;
  /** The proxy, without its password. */
  readonly proxy: string;
  /** The HTTP status of a refused `CONNECT`, or the SOCKS5 reply code. */
  readonly status: number | undefined;

  /** Creates the error. */
  constructor(message: string, init: ProxyTunnelErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ProxyTunnelError';
    this.code = init.code;
    this.proxy = init.proxy;
    this.status = init.status;
  }
}
