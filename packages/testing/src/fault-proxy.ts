import https from 'node:https';
import { createCertificateAuthority } from './certs.ts';
import type { FaultProxy, FaultProxyOptions } from './fault-proxy-contract.ts';
import { FaultProxyServer } from './internal/fault-proxy-server.ts';
import { UpstreamPump } from './internal/upstream-pump.ts';

/**
 * Starts a fault-injection proxy on 127.0.0.1 in front of an apiserver.
 *
 * The proxy terminates TLS with its own CA ({@link FaultProxy.caPem}) and asks for a client
 * certificate. A client with a certificate the proxy trusts (issued by
 * {@link FaultProxy.kubeConfig} or {@link FaultProxy.clientCertificate}, or signed by the
 * upstream's CA when known) is forwarded with the upstream's admin credentials and
 * `Impersonate-User` (the CN) / `Impersonate-Group` (each O), so the apiserver authorizes the
 * request as that user. A bearer token is passed through unchanged, without admin credentials;
 * a request with neither reaches the apiserver anonymously. Watch responses are forwarded chunk
 * by chunk as they arrive. Protocol upgrades (exec, port-forward) are answered with 501.
 *
 * @example
 * {@includeCode ./fault-proxy.integration.test.ts#startFaultProxy,respond}
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  options.signal?.throwIfAborted();
  const pump = await UpstreamPump.create(options.upstream);
  const upstreamCa = pump.caPem;

  const ca = createCertificateAuthority('kubeloom-fault-proxy-ca');
  const serving = ca.issue({
    commonName: 'kubeloom-fault-proxy',
    hosts: ['127.0.0.1', 'localhost'],
    usage: 'server',
  });
  const server = https.createServer({
    key: serving.keyPem,
    cert: serving.certPem,
    ca: upstreamCa ? [ca.certPem, upstreamCa] : [ca.certPem],
    requestCert: true,
    rejectUnauthorized: false,
    requestTimeout: 0,
    headersTimeout: 60_000,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    pump.destroy();
    throw err;
  }
  const proxy = new FaultProxyServer({
    server,
    ca,
    pump,
    logLimit: options.logLimit ?? 10_000,
    signal: options.signal,
  });
  if (options.signal?.aborted) await proxy.stop();
  return proxy;
}
