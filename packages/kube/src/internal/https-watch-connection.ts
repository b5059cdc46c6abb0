import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { TUNNEL_SIGNAL } from './tunnelling-agent.ts';
import { closedEarly, type OpenWatchConnection } from './watch-connection.ts';

/**
 * A watch request through `node:https` and the client's keep-alive agent: the transport for what
 * the TLS one ({@link tlsWatchConnection}) does not cover.
 */
export function httpsWatchConnection(url: URL, options: https.RequestOptions): OpenWatchConnection {
  return (events) => {
    // Stops opening the connection's tunnel, when the agent has a proxy and the watch ends first.
    const connecting = new AbortController();
    const req = https.request(url, {
      ...options,
      [TUNNEL_SIGNAL]: connecting.signal,
    } as https.RequestOptions);
    let res: IncomingMessage | undefined;
    req.once('response', (r: IncomingMessage) => {
      res = r;
      r.on('error', events.fail);
      events.head({ statusCode: r.statusCode ?? 0, headers: r.headers });
      r.on('data', (chunk: Buffer) => {
        if (!events.body(chunk)) events.readEnd();
      });
      r.on('end', events.end);
      r.on('close', () => {
        if (!r.complete) events.fail(closedEarly());
      });
    });
    req.on('error', events.fail);
    req.end();
    return {
      pause: () => res?.pause(),
      resume: () => res?.resume(),
      // A complete response's socket went back to the agent's pool.
      destroy: () => {
        if (res?.complete) return;
        connecting.abort();
        req.destroy();
      },
    };
  };
}
