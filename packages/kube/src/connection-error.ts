import { ProxyTunnelError } from './internal/proxy-tunnel-error.ts';

/**
 * Thrown when the apiserver cannot be reached (connection refused, reset, DNS, TLS), or the
 * kubeconfig's `proxy-url` proxy cannot be reached or refuses the tunnel (the message then names
 * the proxy, without its password, and its answer). Carries the underlying Node error code
 * (`ECONNREFUSED`, …) in `code`: `ERR_PROXY_TUNNEL` for a tunnel the proxy refused (an HTTP
 * status such as 407 or 502, a SOCKS5 failure, an answer that is not the protocol).
 */
export class ConnectionError extends Error {
  /** The Node error code, e.g. `ECONNREFUSED`. */
  readonly code: string | undefined;
  /** Creates the error. */
  constructor(server: string, context: string, cause: unknown) {
    const c = cause as NodeJS.ErrnoException;
    super(
      cause instanceof ProxyTunnelError
        ? `${context}: cannot reach the Kubernetes API server at ${server} through its proxy: ${cause.message}`
        : `${context}: cannot reach the Kubernetes API server at ${server}: ${c?.message ?? String(cause)}. Check that it is running and that the kubeconfig's server URL and certificates are right.`,
      { cause },
    );
    this.name = 'ConnectionError';
    this.code = c?.code;
  }
}
