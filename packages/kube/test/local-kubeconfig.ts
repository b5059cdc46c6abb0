import type { CertificateAuthority } from '@kubeloom/testing';
import { KubeConfig, type User } from '@kubernetes/client-node';

/** A local test server's kubeconfig: where it listens, the CA it trusts, and what else to set. */
export interface LocalKubeConfigOptions {
  /** The server's port on 127.0.0.1 (or a whole `server` URL). */
  readonly port?: number | undefined;
  readonly server?: string | undefined;
  /** The CA that issued the server's certificate. */
  readonly ca: Pick<CertificateAuthority, 'certPem'>;
  /** Fields of the user entry (credentials). */
  readonly user?: Partial<User> | undefined;
  /** The cluster's `tls-server-name`. */
  readonly tlsServerName?: string | undefined;
  /** The cluster's `proxy-url`. */
  readonly proxyUrl?: string | undefined;
}

/**
 * The kubeconfig of a local TLS test server: one cluster (`c`) at `https://127.0.0.1:<port>`
 * trusting the test CA, one user (`u`) with the given fields, and a current context (`ctx`).
 */
export function localKubeConfig(options: LocalKubeConfigOptions): KubeConfig {
  const server = options.server ?? `https://127.0.0.1:${options.port}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server,
        caData: Buffer.from(options.ca.certPem).toString('base64'),
        ...(options.tlsServerName ? { tlsServerName: options.tlsServerName } : {}),
        ...(options.proxyUrl ? { proxyUrl: options.proxyUrl } : {}),
      },
    ],
    users: [{ name: 'u', ...options.user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}
