import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { openTunnel } from './proxy-tunnel.ts';
import type { ProxyConfig } from './proxy-url.ts';

/**
 * The request option (a symbol, passed through node:http to the agent) carrying the signal that
 * aborts opening the request's tunnel: node:http keeps a request's own `signal` from its agent.
 */
export const TUNNEL_SIGNAL = Symbol('kubeloom.tunnelSignal');

/** The agent's settings, and the proxy every connection goes through. */
export interface TunnellingAgentOptions extends https.AgentOptions {
  readonly proxy: ProxyConfig;
  /** Bound on opening one tunnel, in ms. */
  readonly tunnelTimeoutMs: number;
}

type Callback = (err: Error | null, socket: Duplex) => void;

/**
 * A keep-alive `https.Agent` whose every connection is a tunnel through the kubeconfig's
 * `proxy-url` ({@link openTunnel}), TLS to the API server then running over it with the agent's
 * settings (CA, client certificate, `tls-server-name`, `insecure-skip-tls-verify`) and its
 * session cache. Pooled connections are reused as the plain agent's are, so the proxy sees one
 * `CONNECT` per connection, not per request.
 */
export class TunnellingAgent extends https.Agent {
  readonly #proxy: ProxyConfig;
  readonly #timeoutMs: number;

  /** Creates the agent. */
  constructor(options: TunnellingAgentOptions) {
    const { proxy, tunnelTimeoutMs, ...agentOptions } = options;
    super(agentOptions);
    this.#proxy = proxy;
    this.#timeoutMs = tunnelTimeoutMs;
  }

  /** Opens the tunnel, then TLS over it; reports the socket (or the failure) to `callback`. */
  override createConnection(
    options: https.RequestOptions & { [TUNNEL_SIGNAL]?: AbortSignal | undefined },
    callback?: Callback,
  ): undefined {
    const done: Callback = callback ?? (() => {});
    const { ca, rejectUnauthorized } = this.options;
    openTunnel({
      proxy: this.#proxy,
      target: { host: stripBrackets(String(options.host ?? 'localhost')), port: Number(options.port ?? 443) },
      proxyTls: { ca, rejectUnauthorized },
      signal: options[TUNNEL_SIGNAL],
      timeoutMs: this.#timeoutMs,
    }).then(
      (socket) => {
        let secure: TLSSocket;
        try {
          secure = super.createConnection({ ...options, socket } as https.RequestOptions) as TLSSocket;
        } catch (err) {
          socket.destroy();
          done(err as Error, socket);
          return;
        }
        done(null, secure);
      },
      (err: unknown) => done(err as Error, undefined as unknown as Duplex), // node:http ignores the socket then
    );
    return undefined;
  }
}

function stripBrackets(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}
