/**
 * Thrown when the apiserver cannot be reached (connection refused, reset, DNS, TLS). Carries the
 * underlying Node error code (`ECONNREFUSED`, …) in `code`.
 */
export class ConnectionError extends Error {
  /** The Node error code, e.g. `ECONNREFUSED`. */
  readonly code: string | undefined;
  /** Creates the error. */
  constructor(server: string, context: string, cause: unknown) {
    const c = cause as NodeJS.ErrnoException;
    super(
      `${context}: cannot reach the Kubernetes API server at ${server}: ${c?.message ?? String(cause)}. Check that it is running and that the kubeconfig's server URL and certificates are right.`,
      { cause },
    );
    this.name = 'ConnectionError';
    this.code = c?.code;
  }
}
