/**
 * The `@example`s of the API docs, compiled and run: each function's doc comment includes its
 * region with `{@includeCode ./doc-examples.test.ts#name}`. They run against the fake cluster; the
 * same code runs against a real one with `createKubeClient()` instead of `createFakeKubeClient()`.
 */
import { builtins, defineResource, type KubeObject, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  createClient,
  createDelayedClient,
  createMetadataClient,
  createUntypedClient,
  createWriteClient,
} from './create-client.ts';
import { createEventRecorder } from './create-event-recorder.ts';
import { createNamespaceSelectorFilter } from './create-namespace-selector-filter.ts';
import { createOrUpdate } from './create-or-update.ts';
import { createUnionClient } from './create-union-client.ts';
import { ClientTestError } from './testing/client-test-error.ts';
import { createDirectClient } from './testing/direct-client.ts';
import { createEventTracker } from './testing/event-tracker.ts';
import { wrap } from './testing/test-client.ts';

const settings = (mode: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop' },
  data: { mode },
});

describe('@kubeloom/kclient API doc examples', () => {
  it('clients: write-only, untyped, metadata-only, createOrUpdate', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    // #region createWriteClient
    // Writes only: no informer, no cache, no watch.
    const writer = createWriteClient(kube, builtins.ConfigMap, { fieldManager: 'my-controller' });
    await writer.create(settings('on'));
    // #endregion createWriteClient
    // #region createOrUpdate
    // Create, or replace what is there (read fresh, retried on conflict).
    const written = await createOrUpdate(writer, settings('off'));
    written.data; // { mode: 'off' }
    // #endregion createOrUpdate
    expect(written.data).toEqual({ mode: 'off' });
    // #region createUntypedClient
    // Any resource by group/version/resource, objects as plain JSON (the dynamic client).
    const untyped = createUntypedClient(kube, { group: '', version: 'v1', resource: 'configmaps' });
    // #endregion createUntypedClient
    // #region createMetadataClient
    // Only apiVersion, kind and metadata are cached: memory-light, for owners and labels.
    const metadataOnly = createMetadataClient(kube, builtins.ConfigMap, { namespace: 'shop' });
    await kube.runAndWait(stop.signal);
    metadataOnly.get('settings', 'shop')?.metadata?.name; // 'settings', without data
    // #endregion createMetadataClient
    await untyped.waitUntilSynced(stop.signal);
    await metadataOnly.waitUntilSynced(stop.signal);
    expect(untyped.get('settings', 'shop')?.metadata?.name).toBe('settings');
    expect(metadataOnly.get('settings', 'shop')).not.toHaveProperty('data');
    stop.abort();
  });

  it('a client over a namespace selector', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { team: 'a' } },
    });
    await kube.api.create(builtins.ConfigMap, settings('on'));
    const stop = new AbortController();
    // #region createNamespaceSelectorFilter
    // A dynamic filter: objects in namespaces whose labels match; it follows label changes.
    await using selected = createNamespaceSelectorFilter(kube, { matchLabels: { team: 'a' } });
    const configMaps = createClient(kube, builtins.ConfigMap, { objectFilter: selected });
    await kube.runAndWait(stop.signal);
    await configMaps.waitUntilSynced(stop.signal);
    configMaps.list(); // the ConfigMaps of team a's namespaces
    // #endregion createNamespaceSelectorFilter
    expect(configMaps.list().map((c) => c.metadata?.name)).toEqual(['settings']);
    stop.abort();
  });

  it('a delayed client for a CRD that is not installed yet', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    // #region createDelayedClient
    // A client for a CRD that may not exist yet: empty until the CRD is served, then a normal client.
    const Widget = defineResource<KubeObject>({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
      namespaced: true,
    });
    const widgets = createDelayedClient(kube, Widget);
    await kube.runAndWait(stop.signal);
    await widgets.waitUntilSynced(stop.signal); // synced once the CRD is known to be missing
    widgets.list(); // [] until the CRD is installed
    // #endregion createDelayedClient
    expect(widgets.list()).toEqual([]);
    stop.abort();
  });

  it('events, and the testing helpers', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const deployment: V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    };
    await kube.api.create(builtins.Deployment, deployment);

    const stop = new AbortController();
    // #region createEventRecorder
    // Kubernetes Events about your objects, written in the background, deduplicated and rate limited.
    await using recorder = createEventRecorder(kube, { component: 'my-controller', signal: stop.signal });
    recorder.write(deployment, {
      type: 'Warning',
      reason: 'InvalidSpec',
      message: 'replicas exceeds the quota',
    });
    await recorder.flush(); // or leave the scope: disposal writes what is queued
    // #endregion createEventRecorder
    const events = await kube.api.list(builtins.Event, { namespace: 'shop' });
    expect(events.items.map((e) => e.reason)).toContain('InvalidSpec');

    // #region createDirectClient
    // Tests: uncached reads and writes that fail the test on any error but NotFound.
    const direct = createDirectClient(kube, builtins.Deployment);
    (await direct.get('web', 'shop'))?.spec?.replicas; // 3
    // #endregion createDirectClient
    expect((await direct.get('web', 'shop'))?.spec?.replicas).toBe(3);
    // #region createEventTracker
    // Tests: record what handlers saw, then wait for it in order or in any order.
    const tracker = createEventTracker();
    const configMaps = createClient(kube, builtins.ConfigMap);
    configMaps.addEventHandler({ onAdd: (cm) => tracker.record(`add/${cm.metadata?.name}`) });
    await kube.runAndWait(stop.signal);
    await kube.api.create(builtins.ConfigMap, settings('on'));
    await tracker.waitOrdered('add/settings');
    // #endregion createEventTracker
    await waitFor('the tracker to hold the add', () => tracker.all().length === 1);
    // #region wrap
    // Tests: a client whose writes fail the test (a ClientTestError naming the write) on any error.
    const cms = wrap(configMaps);
    await cms.createOrUpdate(settings('off')); // replaces the ConfigMap created above
    await waitFor('the cache to follow', () => cms.get('settings', 'shop')?.data?.mode === 'off');
    // #endregion wrap
    await expect(cms.create(settings('again'))).rejects.toThrow(ClientTestError);
    stop.abort();
  });

  it('createUnionClient: a cache over two label selectors, a member added at run time', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const labelled = (name: string, labels: Record<string, string>): V1ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', labels },
    });
    await kube.api.create(builtins.ConfigMap, labelled('mine', { 'shard.example.com/r': 'me' }));
    await kube.api.create(
      builtins.ConfigMap,
      labelled('adopted', { 'shard.example.com/r': 'dead', 'backup.example.com/r': 'me' }),
    );
    const stop = new AbortController();
    const signal = stop.signal;
    // #region createUnionClient
    // Label selectors cannot OR two keys: a union of two server-side selections can.
    const configMaps = createUnionClient(kube, builtins.ConfigMap, {
      members: [{ labelSelector: 'shard.example.com/r=me' }],
    });
    await kube.runAndWait(signal);
    await configMaps.waitUntilSynced(signal);
    // Later: take over a dead replica's objects that name this one as backup.
    configMaps.setMembers([
      { labelSelector: 'shard.example.com/r=me' },
      { labelSelector: 'shard.example.com/r=dead,backup.example.com/r=me' },
    ]);
    await configMaps.waitForMembers(signal); // hasSynced() stayed true meanwhile
    const names = configMaps.list().map((cm) => cm.metadata?.name); // both members' objects
    // #endregion createUnionClient
    expect(names.sort()).toEqual(['adopted', 'mine']);
    expect(configMaps.hasSynced()).toBe(true);
    stop.abort();
  });
});
