import { createTestNamespace, sharedControlPlane, waitFor } from '@kubeloom/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectProxy, startConnectProxy } from '../test/connect-proxy.ts';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { noopLogger } from './logger.ts';

/** A name only the proxy resolves (to the control plane): a request that goes around the proxy fails. */
const API_HOST = 'apiserver.proxy.test';

/** The control plane's kubeconfig, its server named by {@link API_HOST}, with `proxy-url`. */
function proxiedKubeConfig(admin: KubeConfig, proxyUrl: string): KubeConfig {
  const cluster = admin.getCurrentCluster()!;
  const user = admin.getCurrentUser()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        ...cluster,
        name: 'proxied',
        server: `https://${API_HOST}:${new URL(cluster.server).port}`,
        tlsServerName: 'localhost', // in the serving certificate
        proxyUrl,
      },
    ],
    users: [user],
    contexts: [{ name: 'proxied', cluster: 'proxied', user: user.name }],
    currentContext: 'proxied',
  });
  return kc;
}

describe('a kubeconfig proxy-url against the real control plane', () => {
  let proxy: ConnectProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it('lists and watches through an authenticating CONNECT proxy: an informer syncs and receives an event', async () => {
    const plane = sharedControlPlane();
    const namespace = await createTestNamespace(plane.kubeConfig, 'proxy-url');
    proxy = await startConnectProxy({ credentials: 'op:pass word', hosts: { [API_HOST]: '127.0.0.1' } });
    const proxyUrl = proxy.url.replace('://', '://op:pass%20word@');
    const kube = createKubeClient({
      kubeConfig: proxiedKubeConfig(plane.kubeConfig, proxyUrl),
      logger: noopLogger,
    });
    const admin = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    try {
      const informer = kube.informer(builtins.ConfigMap, { namespace });
      expect(await kube.runAndWait(stop.signal)).toBe(true); // the list, through the proxy
      const afterList = proxy.connects.length;
      expect(afterList).toBeGreaterThanOrEqual(1);
      // The watch holds a tunnel of its own.
      await waitFor('the watch to open its tunnel', () => proxy!.connects.length > afterList);
      await admin.api.create(builtins.ConfigMap, { metadata: { name: 'through', namespace } });
      await waitFor('the event through the proxied watch', () => informer.store.get(`${namespace}/through`));
      expect(informer.health().lists).toBe(1);
      const port = new URL(plane.kubeConfig.getCurrentCluster()!.server).port;
      for (const seen of proxy.connects) {
        expect(seen).toEqual({
          target: `${API_HOST}:${port}`,
          authorization: `Basic ${Buffer.from('op:pass word').toString('base64')}`,
        });
      }
    } finally {
      stop.abort();
      kube.shutdown();
      admin.shutdown();
    }
    await waitFor('every tunnel to close', () => proxy!.openConnections() === 0);
  });
});
