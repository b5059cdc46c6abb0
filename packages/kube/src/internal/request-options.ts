import type https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiAgents } from './api-agent.ts';

/**
 * How long the options applied from a kubeconfig whose credentials come from a token file (the
 * in-cluster service account's projected token) are reused, in ms: client-go re-reads such a token
 * once a minute (`NewCachedFileTokenSource`), and so does client-node's own `FileAuth`. The kubelet
 * rotates a projected token at 80 % of its lifetime (an hour at least), so a minute-old copy is
 * always still valid.
 */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** How the credentials of a kubeconfig user are applied: once, for a while, or before every request. */
export type CredentialsRefresh =
  | { readonly kind: 'static' }
  | { readonly kind: 'ttl'; readonly ms: number }
  | { readonly kind: 'per-request' };

/**
 * The refresh a kubeconfig user needs. An exec plugin or an auth-provider other than `tokenFile`
 * (oidc, gcp, azure…) decides itself when its credential changes, so client-node is asked before
 * every request. A `tokenFile` auth-provider (what in-cluster loading builds) is re-read every
 * {@link TOKEN_FILE_REFRESH_MS}, with the cluster's CA file: asking client-node per request read
 * both files synchronously on every call (a sharded operator replica spent 5–10 % of a core on it).
 * Everything else (certificate and key, a token, basic auth) is applied once.
 */
export function credentialsRefresh(kubeConfig: KubeConfig): CredentialsRefresh {
  const user = kubeConfig.getCurrentUser() as
    | (Record<string, unknown> & {
        exec?: unknown;
        authProvider?: { name?: string; config?: Record<string, unknown> };
      })
    | null;
  if (!user) return { kind: 'static' };
  if (user.exec) return { kind: 'per-request' };
  const provider = user.authProvider;
  if (provider) {
    const tokenFileOnly = typeof provider.config?.tokenFile === 'string' && provider.name === 'tokenFile';
    return tokenFileOnly ? { kind: 'ttl', ms: TOKEN_FILE_REFRESH_MS } : { kind: 'per-request' };
  }
  return { kind: 'static' };
}

/**
 * The request options every call starts from (the agent with the kubeconfig's TLS settings, the
 * `Authorization` header), applied from the kubeconfig as often as its credentials need
 * ({@link credentialsRefresh}). A failure to apply them (an exec plugin, an unreadable file) is
 * not kept: the next request tries again.
 */
export class RequestOptions {
  readonly #kubeConfig: KubeConfig;
  readonly #agents: ApiAgents;
  readonly #refresh: CredentialsRefresh;
  #cached: Promise<https.RequestOptions> | undefined;
  #appliedAt = 0;

  constructor(options: { kubeConfig: KubeConfig; agents: ApiAgents }) {
    this.#kubeConfig = options.kubeConfig;
    this.#agents = options.agents;
    this.#refresh = credentialsRefresh(options.kubeConfig);
  }

  /** The options for the next request: the agent, and the headers (and `auth`) to send. */
  get(): Promise<https.RequestOptions> {
    const refresh = this.#refresh;
    if (refresh.kind === 'per-request') return this.#apply();
    const now = Date.now();
    if (this.#cached && (refresh.kind === 'static' || now - this.#appliedAt < refresh.ms))
      return this.#cached;
    const pending = this.#apply();
    this.#cached = pending;
    this.#appliedAt = now;
    pending.catch(() => {
      if (this.#cached === pending) this.#cached = undefined;
    });
    return pending;
  }

  /** Forgets the applied options: the next request applies the kubeconfig again. */
  reset(): void {
    this.#cached = undefined;
  }

  async #apply(): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = { headers: {} };
    await this.#kubeConfig.applyToHTTPSOptions(opts);
    const agent = this.#agents.for(opts);
    const headers = { ...(opts.headers as Record<string, string>) };
    const out: https.RequestOptions = { agent, headers };
    if (opts.auth) out.auth = opts.auth;
    return out;
  }
}
