import {
  builtins,
  type CrdWatcher,
  defineResource,
  isNotFound,
  type KubeClient,
  type KubeObject,
  namespaceFilter,
  UnknownResourceError,
} from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import {
  createClient,
  createDelayedClient,
  createMetadataClient,
  createUntypedClient,
  createWriteClient,
} from './create-client.ts';
import { ResourceNotServedError } from './errors.ts';
import type { DynamicFilter } from './interfaces.ts';
import { toPartialObjectMetadata } from './partial-object-metadata.ts';
import { shutdownAll } from './shutdown-all.ts';
import { createEventTracker, trackerHandler } from './testing/event-tracker.ts';
import { makeCRD } from './testing/make-crd.ts';

afterEach(closeFakes);

const cm = (name: string, namespace = 'ns', labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
});

function deployment(name: string, minReadySeconds: number): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'ns' },
    spec: {
      minReadySeconds,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
}

describe('static object filter', () => {
  it('turns updates across the filter into adds and deletes (Istio TestClient)', async () => {
    const { kube, stop } = fakeKube({ objects: [deployment('a', 150), deployment('b', 5)] });
    const deploys = createClient(kube, builtins.Deployment, {
      objectFilter: (d) => (d.spec?.minReadySeconds ?? 0) < 100,
    });
    const tracker = createEventTracker();
    deploys.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    await tracker.waitOrdered('add/b');
    expect(deploys.get('a', 'ns')).toBeUndefined();
    expect(deploys.list().map((d) => d.metadata?.name)).toEqual(['b']);
    expect(deploys.listUnfiltered('ns').length).toBe(2);

    await kube.api.patch(
      { resource: builtins.Deployment, name: 'a', namespace: 'ns' },
      { spec: { minReadySeconds: 5 } },
      { type: 'merge' },
    );
    await tracker.waitOrdered('add/a');
    await kube.api.patch(
      { resource: builtins.Deployment, name: 'a', namespace: 'ns' },
      { spec: { minReadySeconds: 6 } },
      { type: 'merge' },
    );
    await tracker.waitOrdered('update/a');
    await kube.api.patch(
      { resource: builtins.Deployment, name: 'a', namespace: 'ns' },
      { spec: { minReadySeconds: 150 } },
      { type: 'merge' },
    );
    await tracker.waitOrdered('delete/a');
    await kube.api.patch(
      { resource: builtins.Deployment, name: 'a', namespace: 'ns' },
      { spec: { minReadySeconds: 151 } },
      { type: 'merge' },
    );
    await kube.api.delete({ resource: builtins.Deployment, name: 'a', namespace: 'ns' });
    await kube.api.delete({ resource: builtins.Deployment, name: 'b', namespace: 'ns' });
    await tracker.waitOrdered('delete/b'); // nothing for a: it was filtered out
  });

  it('composes with the KubeClient-wide filter; listUnfiltered ignores both', async () => {
    const clientWide = namespaceFilter(['a', 'b']);
    const { kube, stop } = fakeKube({
      objectFilter: clientWide,
      objects: [cm('x', 'a'), cm('y', 'b', { keep: 'no' }), cm('z', 'c')],
    });
    const cms = createClient(kube, builtins.ConfigMap, {
      objectFilter: (c) => c.metadata?.labels?.keep !== 'no',
    });
    const tracker = createEventTracker();
    cms.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    await tracker.waitOrdered('add/x');
    expect(cms.list().map((c) => c.metadata?.name)).toEqual(['x']);
    expect(
      cms
        .listUnfiltered()
        .map((c) => c.metadata?.name)
        .sort(),
    ).toEqual(['x', 'y', 'z']);
    // the client-wide filter changes: objects enter through the informer, then the client filter
    clientWide.set(['a', 'b', 'c']);
    await tracker.waitOrdered('add/z');
    clientWide.set(['b']);
    await tracker.waitUnordered('delete/x', 'delete/z');
  });
});

describe('handlers, sync and indexes', () => {
  it('a handler on a stopped informer never syncs; shutdownHandler removes only one', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const cms = createClient(kube, builtins.ConfigMap);
    const t1 = createEventTracker();
    const t2 = createEventTracker();
    const r1 = cms.addEventHandler(trackerHandler(t1));
    cms.addEventHandler(trackerHandler(t2));
    await kube.runAndWait(stop.signal);
    await t1.waitOrdered('add/a');
    await t2.waitOrdered('add/a');
    cms.shutdownHandler(r1);
    cms.shutdownHandler(r1); // idempotent
    await kube.api.create(builtins.ConfigMap, cm('b'));
    await t2.waitOrdered('add/b');
    await t1.empty();

    stop.abort();
    await waitFor('the informer to stop', () =>
      kube.informers().every((i) => i.health().state === 'stopped'),
    );
    const dead = cms.addEventHandler(trackerHandler(createEventTracker()));
    expect(dead.hasSynced()).toBe(false);
    dead.remove();
    expect(cms.hasSyncedIgnoringHandlers()).toBe(true);
  });

  it('indexes are live, shared by name across clients of one informer, and filtered at lookup', async () => {
    const { kube, stop } = fakeKube({
      objects: [cm('a', 'ns', { team: 'x' }), cm('b', 'ns', { team: 'y' })],
    });
    const all = createClient(kube, builtins.ConfigMap);
    const onlyA = createClient(kube, builtins.ConfigMap, { objectFilter: (c) => c.metadata?.name === 'a' });
    const byTeam = all.index('team', (c) => [c.metadata?.labels?.team ?? '']);
    // same name, different function: the first index is reused (Istio's semantics)
    const reused = onlyA.index('team', () => ['ignored']);
    expect(byTeam.lookup('x')).toEqual([]); // nothing listed yet
    await kube.runAndWait(stop.signal);
    expect(byTeam.lookup('x').map((c) => c.metadata?.name)).toEqual(['a']);
    expect(reused.lookup('ignored')).toEqual([]);
    expect(reused.lookup('y')).toEqual([]); // b is filtered out for onlyA
    expect(reused.lookup('x').map((c) => c.metadata?.name)).toEqual(['a']);
    await kube.api.create(builtins.ConfigMap, cm('c', 'ns', { team: 'y' }));
    await waitFor('c in the index', () => byTeam.lookup('y').length === 2);
    // a kclient index never shadows the built-in namespace index
    const ns = all.index('namespace', () => ['custom']);
    expect(ns.lookup('custom').length).toBe(3);
  });

  it('run() runs only this informer and settles once it stopped', async () => {
    const { kube } = fakeKube({ objects: [cm('a')] });
    const own = new AbortController();
    const cms = createClient(kube, builtins.ConfigMap);
    let settled = false;
    const running = cms.run(own.signal).then(() => {
      settled = true;
    });
    expect(await cms.waitUntilSynced(own.signal)).toBe(true);
    expect(cms.get('a', 'ns')).toBeDefined();
    expect(kube.isRunning()).toBe(false);
    expect(settled).toBe(false);
    own.abort();
    await running;
    expect(kube.informers()[0]!.health().state).toBe('stopped');
  });

  it('waitUntilSynced waits for the handlers too, and resolves false on abort', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const cms = createClient(kube, builtins.ConfigMap);
    const seen: string[] = [];
    cms.addEventHandler({ onAdd: (o) => seen.push(o.metadata!.name!) });
    const waiting = cms.waitUntilSynced(stop.signal);
    await kube.runAndWait(stop.signal);
    expect(await waiting).toBe(true);
    expect(seen).toEqual(['a']); // delivered before it resolved
    const never = createClient(fakeKube().kube, builtins.ConfigMap); // its informer never runs
    const aborted = new AbortController();
    const pending = never.waitUntilSynced(aborted.signal);
    aborted.abort();
    expect(await pending).toBe(false);
  });
});

describe('constructors', () => {
  it('createMetadataClient keeps only apiVersion, kind and metadata, in its own informer', async () => {
    const { kube, stop } = fakeKube({ objects: [{ ...cm('a'), data: { big: 'x' } } as V1ConfigMap] });
    const meta = createMetadataClient(kube, builtins.ConfigMap);
    const full = createClient(kube, builtins.ConfigMap);
    await kube.runAndWait(stop.signal);
    expect(meta.get('a', 'ns')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: expect.any(Object),
    });
    expect(full.get('a', 'ns')?.data).toEqual({ big: 'x' });
    expect(kube.informers().length).toBe(2);
    expect(
      toPartialObjectMetadata({
        metadata: { name: 'n', managedFields: [{ manager: 'm' }] },
        spec: 1,
      } as KubeObject),
    ).toEqual({ metadata: { name: 'n' } });
  });

  it('createUntypedClient by GVR: known kinds at once, unknown ones resolved through discovery at the first write', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const cms = createUntypedClient(kube, { group: '', version: 'v1', resource: 'configmaps' });
    expect(cms.resource.kind).toBe('ConfigMap');
    const gvr = { group: 'late.example.com', version: 'v1', resource: 'things' };
    const things = createUntypedClient(kube, gvr, { namespace: 'ns' });
    expect(things.resource.kind).toBe('');
    await expect(
      things.create({
        apiVersion: 'late.example.com/v1',
        kind: 'Thing',
        metadata: { name: 't', namespace: 'ns' },
      }),
    ).rejects.toBeInstanceOf(UnknownResourceError);
    await makeCRD(kube, gvr);
    kube.registry.invalidate();
    await things.create({
      apiVersion: 'late.example.com/v1',
      kind: 'Thing',
      metadata: { name: 't', namespace: 'ns' },
    });
    await kube.runAndWait(stop.signal);
    await waitFor('t in the cache', () => things.get('t', 'ns') !== undefined);
    expect(cms.get('a', 'ns')?.kind).toBe('ConfigMap');
  });

  it('createWriteClient fills apiVersion and kind, and uses the default field manager', async () => {
    const { kube } = fakeKube();
    const writer = createWriteClient(kube, builtins.ConfigMap, { fieldManager: 'me' });
    const created = await writer.create({ metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } });
    expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(created.metadata?.managedFields?.map((m) => m.manager)).toEqual(['me']);
    await expect(writer.apply({ metadata: { name: 'a', namespace: 'ns' } }, {} as never)).rejects.toThrow(
      /needs opts.fieldManager/,
    );
    expect(kube.informers()).toEqual([]);
    // a namespaced kind without a namespace is refused before any request
    const requests = kube.cluster.requestCount('create') + kube.cluster.requestCount('patch');
    await expect(writer.create({ metadata: { name: 'b' } })).rejects.toThrow(/ConfigMap is namespaced/);
    await expect(writer.patch({ name: 'b' }, {}, { type: 'merge' })).rejects.toThrow(/namespace is required/);
    await expect(writer.apply({ metadata: { name: 'b' } }, { fieldManager: 'me' })).rejects.toThrow(
      /namespaced/,
    );
    await expect(writer.delete({ name: 'b' })).rejects.toThrow(/namespaced/);
    expect(kube.cluster.requestCount('create') + kube.cluster.requestCount('patch')).toBe(requests);
    // cluster-scoped kinds need none
    const nodes = createWriteClient(kube, builtins.Node);
    await nodes.create({ metadata: { name: 'n1' } });
    await nodes.delete({ name: 'n1' });
  });

  it('createDelayedClient on a built-in kind is a normal client', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const cms = createDelayedClient(kube, builtins.ConfigMap);
    await kube.runAndWait(stop.signal);
    expect(cms.get('a', 'ns')).toBeDefined();
  });
});

/** `kube` with a CRD watcher that counts its active `onChange` listeners. */
function spyOnCrdWatcher(fake: KubeClient): { kube: KubeClient; listeners: () => number } {
  let active = 0;
  const real = fake.crdWatcher;
  const watcher: CrdWatcher = {
    knownOrCallback: (gvr, cb) => real.knownOrCallback(gvr, cb),
    onceKnown: (gvr, cb) => real.onceKnown(gvr, cb),
    waitForCRD: (gvr, signal) => real.waitForCRD(gvr, signal),
    known: (gvr) => real.known(gvr),
    hasSynced: () => real.hasSynced(),
    waitUntilSynced: (signal) => real.waitUntilSynced(signal),
    onChange: (cb) => {
      active++;
      const off = real.onChange(cb);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        active--;
        off();
      };
    },
  };
  const kube = new Proxy(fake, {
    get: (target, prop) => {
      if (prop === 'crdWatcher') return watcher;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { kube, listeners: () => active };
}

const thingGvr = { group: 'delayed.example.com', version: 'v1', resource: 'things' };

describe('delayed client details', () => {
  const Thing = defineResource<KubeObject>({
    group: 'delayed.example.com',
    version: 'v1',
    kind: 'Thing',
    plural: 'things',
    namespaced: true,
  });

  it('stops waiting for a CRD that never appeared once its handlers are shut down', async () => {
    const { kube, stop } = fakeKube();
    const watcher = kube.crdWatcher as CrdWatcher & { pendingCallbacks(): number };
    const before = watcher.pendingCallbacks();
    const things = createDelayedClient(kube, Thing);
    expect(watcher.pendingCallbacks()).toBe(before + 1);
    await kube.runAndWait(stop.signal);
    things.shutdownHandlers();
    expect(watcher.pendingCallbacks()).toBe(before);
  });

  it('before the CRD watcher synced, writes go to the server (which decides); after, nothing is sent', async () => {
    const { kube, stop } = fakeKube();
    const things = createDelayedClient(kube, Thing);
    expect(kube.crdWatcher.hasSynced()).toBe(false);
    const err = await things.create({ metadata: { name: 'a', namespace: 'ns' } }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ResourceNotServedError);
    expect(isNotFound(err)).toBe(true); // the server's answer: the resource is not served
    expect(kube.cluster.requestCount('create', Thing)).toBe(1);

    await kube.runAndWait(stop.signal);
    expect(await kube.crdWatcher.waitUntilSynced(stop.signal)).toBe(true);
    await expect(things.create({ metadata: { name: 'a', namespace: 'ns' } })).rejects.toBeInstanceOf(
      ResourceNotServedError,
    );
    expect(kube.cluster.requestCount('create', Thing)).toBe(1);
  });

  it('before the CRD loads, hasSynced also waits for a dynamic object filter', async () => {
    const { kube, stop } = fakeKube();
    let filterSynced = false;
    const filter: DynamicFilter = { matches: () => true, hasSynced: () => filterSynced };
    const things = createDelayedClient(kube, Thing, { objectFilter: filter });
    const reg = things.addEventHandler(trackerHandler(createEventTracker()));
    await kube.runAndWait(stop.signal);
    expect(await kube.crdWatcher.waitUntilSynced(stop.signal)).toBe(true);
    expect(things.hasSynced()).toBe(false);
    expect(things.hasSyncedIgnoringHandlers()).toBe(false);
    expect(reg.hasSynced()).toBe(true); // the handler itself has nothing to wait for
    filterSynced = true;
    expect(things.hasSynced()).toBe(true);
    expect(things.hasSyncedIgnoringHandlers()).toBe(true);
  });

  it('listens to the CRD watcher only while loaded and until shutdownHandlers', async () => {
    const { kube: fake, stop } = fakeKube();
    const { kube, listeners } = spyOnCrdWatcher(fake);
    const clients = [
      createDelayedClient(kube, Thing),
      createDelayedClient(kube, Thing),
      createDelayedClient(kube, Thing),
    ];
    const tracker = createEventTracker();
    clients[0]!.addEventHandler(trackerHandler(tracker));
    expect(listeners()).toBe(0); // nothing to retry before the CRD loads
    await fake.runAndWait(stop.signal);
    await makeCRD(fake, thingGvr, { kind: 'Thing' });
    await fake.crdWatcher.waitForCRD(thingGvr, stop.signal);
    await waitFor('every client to load', () => listeners() === 3);
    await createWriteClient(fake, Thing).create({ metadata: { name: 'a', namespace: 'ns' } });
    await tracker.waitOrdered('add/a');

    for (const c of clients) c.shutdownHandlers();
    expect(listeners()).toBe(0);
    // registering again listens again; shutdownAll stops it
    clients[1]!.index('by-name', (t) => [t.metadata?.name ?? '']);
    clients[2]!.addEventHandler(trackerHandler(createEventTracker()));
    expect(listeners()).toBe(2);
    shutdownAll(...clients);
    expect(listeners()).toBe(0);
  });

  it('start() before the CRD exists starts the real informer when it appears; removed handlers stay removed', async () => {
    const { kube, stop } = fakeKube();
    const things = createDelayedClient(kube, Thing);
    const kept = createEventTracker();
    const dropped = createEventTracker();
    things.addEventHandler(trackerHandler(kept));
    const reg = things.addEventHandler(trackerHandler(dropped));
    reg.remove();
    expect(reg.hasSynced()).toBe(false);
    void things.run(stop.signal);
    await kube.runAndWait(stop.signal);
    await waitFor('known missing', () => things.hasSynced());
    await makeCRD(kube, { group: Thing.group, version: 'v1', resource: 'things' }, { kind: 'Thing' });
    await kube.crdWatcher.waitForCRD({ group: Thing.group, version: 'v1', resource: 'things' }, stop.signal);
    await createWriteClient(kube, Thing).create({ metadata: { name: 'a', namespace: 'ns' } });
    await kept.waitOrdered('add/a');
    await dropped.empty();
    expect(things.hasSyncedIgnoringHandlers()).toBe(true);
  });
});
