import https from 'node:https';
import type { ProxyConfig } from './proxy-url.ts';
import { TunnellingAgent } from './tunnelling-agent.ts';

/** What the client's agent is made of. */
export interface ApiAgentOptions {
  /** The TLS settings client-node applied from the kubeconfig (`applyToHTTPSOptions`). */
  readonly tls: https.RequestOptions;
  readonly maxSockets: number;
  /** The cluster's `proxy-url`: every connection then tunnels through it. */
  readonly proxy?: ProxyConfig | undefined;
  /** Bound on opening one tunnel, in ms. */
  readonly tunnelTimeoutMs: number;
}

/**
 * The client's keep-alive agent, with the kubeconfig's TLS settings (CA, client certificate and
 * key, `insecure-skip-tls-verify`, `tls-server-name`): a {@link TunnellingAgent} when the cluster
 * has a `proxy-url`, else a plain `https.Agent` dialling the server.
 */
export function createApiAgent(options: ApiAgentOptions): https.Agent {
  const { tls: opts, maxSockets, proxy } = options;
  const settings: https.AgentOptions = {
    keepAlive: true,
    maxSockets,
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    ...(opts.cert !== undefined ? { cert: opts.cert } : {}),
    ...(opts.key !== undefined ? { key: opts.key } : {}),
    ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
    ...(opts.servername !== undefined ? { servername: opts.servername } : {}),
  };
  return proxy
    ? new TunnellingAgent({ ...settings, proxy, tunnelTimeoutMs: options.tunnelTimeoutMs })
    : new https.Agent(settings);
}
