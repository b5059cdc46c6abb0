/**
 * `createApiClient`'s API doc example, compiled and run against the real control plane (its doc
 * comment includes the region with `{@includeCode}`).
 */
import { sharedControlPlane } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createApiClient, createKubeClient } from './create-kube-client.ts';
import { noopLogger } from './logger.ts';

describe('createApiClient on the real control plane', () => {
  it('the REST verbs alone, then a KubeClient over the same transport', async () => {
    const plane = sharedControlPlane();
    // #region createApiClient
    // The REST verbs over HTTPS, without informers. With no options it loads $KUBECONFIG,
    // ~/.kube/config or the in-cluster service account; here the test plane's kubeconfig.
    await using api = createApiClient({ kubeConfig: plane.kubeConfig, http: { userAgent: 'my-operator' } });
    const ns = await api.get({ resource: builtins.Namespace, name: 'default' });
    ns.status?.phase; // 'Active'
    // Wrap or instrument it, then hand it to a KubeClient for informers:
    const kube = createKubeClient({ api, logger: noopLogger });
    // #endregion createApiClient
    expect(ns.status?.phase).toBe('Active');
    const stop = new AbortController();
    try {
      const namespaces = kube.informer(builtins.Namespace);
      await kube.runAndWait(stop.signal);
      expect(namespaces.store.get('default')?.metadata?.name).toBe('default');
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });
});
