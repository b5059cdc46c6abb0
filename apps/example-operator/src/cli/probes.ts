/**
 * The health probe server (controller-runtime's `--health-probe-bind-address`): `/healthz`
 * answers while the process serves requests, `/readyz` once the caches synced. Plain HTTP, as
 * kubelet probes expect.
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BindAddress } from './flags.ts';

/** A listening server. */
export interface ListeningServer extends AsyncDisposable {
  /** The port it listens on (useful with port 0). */
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Options of {@link startProbeServer}. */
export interface ProbeServerOptions {
  readonly address: BindAddress;
  /** Named readiness checks; `/readyz` is 200 when all pass. */
  readonly readyChecks: Readonly<Record<string, () => boolean>>;
}

/** Starts listening; resolves once the port is bound. */
export async function startProbeServer(options: ProbeServerOptions): Promise<ListeningServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/healthz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (path === '/readyz') {
      const failed = Object.entries(options.readyChecks)
        .filter(([, check]) => !check())
        .map(([name]) => name);
      res
        .writeHead(failed.length === 0 ? 200 : 503, { 'content-type': 'text/plain' })
        .end(failed.length === 0 ? 'ok' : `not ready: ${failed.join(', ')}`);
    } else {
      res.writeHead(404).end();
    }
  });
  return listen(server, options.address);
}

/** Binds `server` to `address` and wraps it as a {@link ListeningServer}. */
export async function listen(server: Server, address: BindAddress): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { port: (server.address() as AddressInfo).port, close, [Symbol.asyncDispose]: close };
}
