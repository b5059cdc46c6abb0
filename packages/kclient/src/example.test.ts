/**
 * The examples of the README and the API docs, compiled and run: each `// #region` is copied into
 * README.md (`pnpm check:readme` keeps them equal) and pulled into doc comments with
 * `{@includeCode}`. They run against the fake cluster; the same code runs against a real one with
 * `createKubeClient()` instead of `createFakeKubeClient()`.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { createNamespaceSelectorFilter } from './create-namespace-selector-filter.ts';
import { retryOnConflict } from './retry-on-conflict.ts';
import { createShardedClient, shardSelector } from './sharded-client.ts';

const configMap = (name: string, namespace: string, owner: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { owner } },
  data: { mode: 'off' },
});

describe('@kubeloom/kclient examples', () => {
  it('client: a filtered cache, an index, a handler and a conditional update', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    for (const [name, managed] of [
      ['team-a', 'true'],
      ['team-b', 'false'],
    ] as const) {
      await kube.api.create(builtins.Namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'example.com/managed': managed } },
      });
    }
    await kube.api.create(builtins.ConfigMap, configMap('settings', 'team-a', 'alice'));
    await kube.api.create(builtins.ConfigMap, configMap('other', 'team-b', 'alice'));

    const stop = new AbortController();
    const signal = stop.signal;
    // #region client
    // Construction: clients, handlers and indexes. No I/O happens here.
    await using managed = createNamespaceSelectorFilter(kube, {
      matchLabels: { 'example.com/managed': 'true' },
    });
    const configMaps = createClient(kube, builtins.ConfigMap, {
      objectFilter: managed, // only ConfigMaps in namespaces labelled example.com/managed=true
      fieldManager: 'my-ctrl',
    });
    const byOwner = configMaps.index('owner', (cm) =>
      cm.metadata?.labels?.owner ? [cm.metadata.labels.owner] : [],
    );
    const changed: string[] = [];
    configMaps.addEventHandler({
      onAdd: (cm) => changed.push(cm.metadata?.name ?? ''),
      onUpdate: (_old, cm) => changed.push(cm.metadata?.name ?? ''),
    });

    // Run: start every informer, then wait for the caches *and the handlers*.
    await kube.runAndWait(signal);
    await configMaps.waitUntilSynced(signal);

    const settings = configMaps.get('settings', 'team-a'); // cached; undefined when absent or filtered out
    const alices = byOwner.lookup('alice'); // a live index, filtered at lookup
    await retryOnConflict(async () => {
      const latest = structuredClone(configMaps.get('settings', 'team-a'));
      if (!latest) return;
      latest.data = { ...latest.data, mode: 'on' };
      await configMaps.update(latest); // conditional on resourceVersion: a stale copy gets a conflict
    });
    // #endregion client
    expect(settings?.data).toEqual({ mode: 'off' });
    expect(alices.map((cm) => cm.metadata?.namespace)).toEqual(['team-a']); // team-b is filtered out
    expect(new Set(changed)).toEqual(new Set(['settings'])); // the add, and the update if it arrived
    const stored = (await kube.api.get({
      resource: builtins.ConfigMap,
      name: 'settings',
      namespace: 'team-a',
    })) as V1ConfigMap;
    expect(stored.data).toEqual({ mode: 'on' });
    stop.abort();
  });

  it('sharded: a client that lists, watches and caches one shard’s objects only', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const label = 'shard.kubeloom.dev/web';
    for (const [name, shard] of [
      ['a', 'web-0'],
      ['b', 'web-1'],
    ] as const) {
      await kube.api.create(builtins.ConfigMap, {
        ...configMap(name, 'default', 'x'),
        metadata: { name, namespace: 'default', labels: { [label]: shard } },
      });
    }
    const stop = new AbortController();
    const signal = stop.signal;
    // #region sharded
    // In replica web-0 of the ring `web` (see @kubeloom/controllers' createShardMember):
    const configMaps = createShardedClient(kube, builtins.ConfigMap, { ring: 'web', identity: 'web-0' });
    // The API server sends only shard.kubeloom.dev/web=web-0: shardSelector({ ring: 'web', identity: 'web-0' })
    await kube.runAndWait(signal);
    // #endregion sharded
    expect(configMaps.list().map((cm) => cm.metadata?.name)).toEqual(['a']);
    expect(shardSelector({ ring: 'web', identity: 'web-0' }, 'app=x')).toBe(
      'app=x,shard.kubeloom.dev/web=web-0',
    );
    stop.abort();
  });

  it('namespaces: one cache over the namespaces RBAC allows', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    for (const namespace of ['team-a', 'team-b', 'team-c']) {
      await kube.api.create(builtins.ConfigMap, configMap('settings', namespace, 'alice'));
    }
    const stop = new AbortController();
    const signal = stop.signal;
    // #region namespaces
    // RBAC allows team-a and team-b only: one list/watch per namespace, one cache.
    const configMaps = createClient(kube, builtins.ConfigMap, { namespaces: ['team-a', 'team-b'] });
    const byOwner = configMaps.index('owner', (cm) => [cm.metadata?.labels?.owner ?? '']);
    await kube.runAndWait(signal);
    await configMaps.waitUntilSynced(signal);
    const seen = configMaps.list().map((cm) => cm.metadata?.namespace); // team-a and team-b
    const alices = byOwner.lookup('alice'); // indexes, handlers and writes as on any client
    // #endregion namespaces
    expect(seen.sort()).toEqual(['team-a', 'team-b']);
    expect(alices.map((cm) => cm.metadata?.namespace).sort()).toEqual(['team-a', 'team-b']);
    stop.abort();
  });
});
