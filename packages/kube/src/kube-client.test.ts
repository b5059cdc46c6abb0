import { waitFor } from '@kubeloom/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { createFakeApiClient, createFakeKubeClient } from './fake/index.ts';
import type { SharedInformer } from './informer.ts';
import { InformerCrdWatcher } from './informer-crd-watcher.ts';
import { noopLogger } from './logger.ts';
import { SelectorError } from './selector-error.ts';

describe('KubeClient over the fake cluster', () => {
  it('waitForCacheSync resolves true once every function is true, false when the signal aborts', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    let ready = false;
    setTimeout(() => {
      ready = true;
    }, 30);
    const stop = new AbortController();
    expect(
      await kube.waitForCacheSync(
        'test',
        stop.signal,
        () => true,
        () => ready,
      ),
    ).toBe(true);
    const never = new AbortController();
    setTimeout(() => never.abort(), 20);
    expect(await kube.waitForCacheSync('never', never.signal, () => false)).toBe(false);
    kube.shutdown();
  });

  it('shares informers, runs late ones at once, and stops them all with its signal', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'a', namespace: 'ns' } });
    const stop = new AbortController();
    const early = kube.informer(builtins.ConfigMap, { namespace: 'ns' });
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    expect(kube.isRunning()).toBe(true);
    const late = kube.informer(builtins.Secret, { namespace: 'ns' });
    expect(late.isStarted()).toBe(true);
    expect(await late.waitUntilSynced(stop.signal)).toBe(true);
    expect(kube.informers()).toEqual([early, late]);
    stop.abort();
    await waitFor('every informer to stop', () =>
      kube.informers().every((i) => i.health().state === 'stopped'),
    );
    expect(kube.informers().map((i) => i.health().state)).toEqual(['stopped', 'stopped']);
    expect(kube.isRunning()).toBe(false);
  });

  it('refuses a namespace on a cluster-scoped informer and explains the missing kubeconfig', () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    expect(() => kube.informer(builtins.Namespace, { namespace: 'x' })).toThrow(
      /Namespace is cluster-scoped/,
    );
    expect(() => kube.makeApiClient(CoreV1Api)).toThrow(/no kubeconfig \(it is the fake cluster\)/);
    expect(() => kube.objectApi()).toThrow(/use client.api/);
    kube.shutdown();
    expect(() => kube.informer(builtins.ConfigMap)).toThrow(/shut down/);
  });

  it('refuses a selector the apiserver would refuse when the informer is asked for, not on every list', () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    expect(() => kube.informer(builtins.ConfigMap, { labelSelector: 'app in (web' })).toThrow(
      new SelectorError(
        'label',
        'app in (web',
        "unable to parse requirement: found '', expected: ',' or ')'",
      ),
    );
    expect(() => kube.informer(builtins.ConfigMap, { fieldSelector: 'metadata.name' })).toThrow(
      SelectorError,
    );
    expect(kube.informer(builtins.ConfigMap, { labelSelector: 'app in (web)' })).toBeDefined();
    kube.shutdown();
  });

  it('waitForCRD cleans up its callback when aborted', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    await kube.runAndWait(stop.signal);
    const watcher = kube.crdWatcher as InformerCrdWatcher;
    expect(watcher).toBeInstanceOf(InformerCrdWatcher);
    for (let i = 0; i < 20; i++) {
      const attempt = new AbortController();
      const waiting = watcher.waitForCRD(
        { group: 'nope.example.com', version: 'v1', resource: 'nopes' },
        attempt.signal,
      );
      attempt.abort();
      expect(await waiting).toBe(false);
    }
    expect(watcher.pendingCallbacks()).toBe(0);
    stop.abort();
  });

  it('await using stops every informer, waits for their loops and closes the watches', async () => {
    const stop = new AbortController();
    let informers: ReadonlyArray<SharedInformer> = [];
    const api = createFakeApiClient();
    {
      await using kube = createKubeClient({ api, logger: noopLogger });
      kube.informer(builtins.ConfigMap, { namespace: 'ns' });
      kube.informer(builtins.Secret);
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      await waitFor('both informers to watch', () => api.cluster.watcherCount() === 2);
      informers = kube.informers();
    }
    // Disposal did not need the run signal: the loops exited and the watches were closed.
    expect(stop.signal.aborted).toBe(false);
    expect(informers.map((i) => i.health().state)).toEqual(['stopped', 'stopped']);
    expect(api.cluster.watcherCount()).toBe(0);
  });

  it('createKubeClient({ api }) uses the transport as given and loads no kubeconfig', async () => {
    const api = createFakeApiClient();
    await api.create(builtins.ConfigMap, { metadata: { name: 'a', namespace: 'ns' } });
    await using kube = createKubeClient({ api, env: { KUBECONFIG: '/does/not/exist' }, logger: noopLogger });
    expect(kube.api).toBe(api);
    expect(kube.kubeConfig).toBeUndefined();
    const cms = kube.informer(builtins.ConfigMap);
    const stop = new AbortController();
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    expect(cms.store.list().map((o) => o.metadata?.name)).toEqual(['a']);
    stop.abort();
  });
});
