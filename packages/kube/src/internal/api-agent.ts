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

/** What identifies the client certificate and key an agent presents. */
function credentialsOf(tls: https.RequestOptions): string {
  const part = (v: unknown): string =>
    v === undefined || v === null
      ? ''
      : typeof v === 'string'
        ? v
        : Buffer.isBuffer(v)
          ? v.toString('latin1')
          : Array.isArray(v)
            ? v.map(part).join('\u0001')
            : JSON.stringify(v);
  return `${part(tls.cert)}\u0000${part(tls.key)}`;
}

/**
 * The client's agent over time. A TLS client certificate belongs to a connection, so when the
 * kubeconfig's credentials give another one (an exec plugin's certificate renewed at its
 * `expirationTimestamp`, a rotated certificate file read per request), the agent is replaced:
 * new requests and watches connect with the new certificate, and the old agent is retired (its
 * idle sockets closed now, the sockets of its in-flight requests when they end), as client-go
 * closes the connections of a rotated exec certificate.
 */
export class ApiAgents {
  readonly #create: (tls: https.RequestOptions) => https.Agent;
  #agent: https.Agent | undefined;
  #credentials = '';
  /** Retired agents that may still have sockets in use; destroyed with the client. */
  readonly #retired = new Set<https.Agent>();

  constructor(create: (tls: https.RequestOptions) => https.Agent) {
    this.#create = create;
  }

  /** The agent presenting `tls`'s client certificate: the current one, or a new one after a rotation. */
  for(tls: https.RequestOptions): https.Agent {
    const credentials = credentialsOf(tls);
    if (this.#agent && this.#credentials !== credentials) this.close();
    if (!this.#agent) {
      this.#agent = this.#create(tls);
      this.#credentials = credentials;
    }
    return this.#agent;
  }

  /** The current agent, if one was made. */
  get current(): https.Agent | undefined {
    return this.#agent;
  }

  /** Retires the current agent: idle sockets close now, in-flight ones when their response ends. */
  close(): void {
    const agent = this.#agent;
    this.#agent = undefined;
    for (const old of this.#retired) if (Object.keys(old.sockets).length === 0) this.#retired.delete(old);
    if (!agent) return;
    (agent as https.Agent & { keepAlive: boolean }).keepAlive = false;
    for (const sockets of Object.values(agent.freeSockets))
      for (const socket of sockets ?? []) socket.destroy();
    this.#retired.add(agent);
  }

  /** Destroys every socket of every agent, those of in-flight requests too. */
  destroy(): void {
    const agent = this.#agent;
    this.close();
    agent?.destroy();
    for (const old of this.#retired) old.destroy();
    this.#retired.clear();
  }
}
