import net from 'node:net';
import tls from 'node:tls';
import { httpConnectHandshake } from './http-connect-handshake.ts';
import { ProxyTunnelError } from './proxy-tunnel-error.ts';
import type { ProxyConfig } from './proxy-url.ts';
import { socks5Handshake } from './socks5-handshake.ts';
import { authority, type TunnelTarget } from './tunnel-handshake.ts';

/** The TLS settings of the connection to an `https://` proxy. */
interface ProxyTls {
  /** The cluster's CA, trusted besides the system's roots (client-go trusts only its CA pool). */
  readonly ca?: tls.SecureContextOptions['ca'];
  /** false with the cluster's `insecure-skip-tls-verify`, which client-go applies to the proxy too. */
  readonly rejectUnauthorized?: boolean | undefined;
}

/** One tunnel to open. */
export interface TunnelRequest {
  readonly proxy: ProxyConfig;
  /** The API server's host and port: the far end. */
  readonly target: TunnelTarget;
  /** Used when the proxy is `https://`. */
  readonly proxyTls?: ProxyTls | undefined;
  /** Aborts the attempt (the socket is destroyed; the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal | undefined;
  /** Bound on connecting to the proxy and its answer, in ms. */
  readonly timeoutMs: number;
}

/** TCP keep-alive of the proxy connection, as client-go's dialer (30 s). */
const KEEP_ALIVE_MS = 30_000;

/**
 * Opens a tunnel to `target` through the kubeconfig's proxy: connects to the proxy (over TLS for
 * `https://`), sends an HTTP `CONNECT` (or, for `socks5://`, a SOCKS5 `CONNECT`) and resolves
 * with the connected socket once the proxy accepted, ready for TLS to the API server
 * (`tls.connect({ socket })`). Nothing is left open when it rejects.
 * @throws {@link ProxyTunnelError} (rejects) when the proxy cannot be reached, refuses, closes or
 *   times out; the signal's reason when aborted.
 */
export function openTunnel(request: TunnelRequest): Promise<net.Socket> {
  const { proxy, target, signal, timeoutMs } = request;
  const to = authority(target);
  return new Promise<net.Socket>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let handshake: ReturnType<typeof httpConnectHandshake>;
    try {
      handshake = proxy.protocol.startsWith('socks')
        ? socks5Handshake(proxy, target)
        : httpConnectHandshake(proxy, target);
    } catch (err) {
      reject(err);
      return;
    }
    const socket =
      proxy.protocol === 'https:'
        ? tls.connect({
            host: proxy.host,
            port: proxy.port,
            ...(net.isIP(proxy.host) ? {} : { servername: proxy.host }),
            ca: proxyCa(request.proxyTls?.ca),
            ...(request.proxyTls?.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
          })
        : net.connect({ host: proxy.host, port: proxy.port });
    socket.setKeepAlive(true, KEEP_ALIVE_MS);
    let buffered: Buffer = Buffer.alloc(0);
    let connected = false;
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      connected = true;
    });
    const finish = (err?: unknown): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (err !== undefined) {
        socket.destroy();
        reject(err);
        return;
      }
      socket.pause();
      if (buffered.length > 0) socket.unshift(buffered);
      resolve(socket);
    };
    const onAbort = (): void => finish(signal!.reason);
    const onError = (err: NodeJS.ErrnoException): void =>
      finish(
        new ProxyTunnelError(
          connected
            ? `the connection to proxy ${proxy.display} failed during CONNECT ${to}: ${err.message}`
            : `cannot connect to proxy ${proxy.display} (to reach ${to}): ${err.message} — check proxy-url in the kubeconfig and that the proxy is running`,
          { code: err.code ?? 'ERR_PROXY_TUNNEL', proxy: proxy.display, cause: err },
        ),
      );
    const onClose = (): void =>
      finish(
        new ProxyTunnelError(
          `proxy ${proxy.display} closed the connection before it accepted CONNECT ${to}: check that proxy-url names the right proxy and scheme`,
          { code: 'ECONNRESET', proxy: proxy.display },
        ),
      );
    const onData = (bytes: Buffer): void => {
      buffered = buffered.length === 0 ? bytes : Buffer.concat([buffered, bytes]);
      try {
        for (;;) {
          const step = handshake.feed(buffered);
          if (!step) return;
          buffered = buffered.subarray(step.used);
          if (step.send) socket.write(step.send);
          if (step.done) {
            finish();
            return;
          }
        }
      } catch (err) {
        finish(err);
      }
    };
    const timer = setTimeout(
      () =>
        finish(
          new ProxyTunnelError(
            `proxy ${proxy.display} did not open a tunnel to ${to} within ${timeoutMs} ms: check that it is reachable and answers`,
            { code: 'ETIMEDOUT', proxy: proxy.display },
          ),
        ),
      timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.write(handshake.first); // sent once connected (for https://, once the handshake is done)
  });
}

/** The CAs an `https://` proxy's certificate may chain to: the system's, and the cluster's. */
function proxyCa(clusterCa: ProxyTls['ca']): tls.SecureContextOptions['ca'] {
  if (clusterCa === undefined) return undefined;
  return [...tls.rootCertificates, ...(Array.isArray(clusterCa) ? clusterCa : [clusterCa])];
}
