/**
 * Scenarios that run unchanged on the fake cluster (unit tests) and on the real control plane
 * (integration tests): the behaviours where the fake could differ from Kubernetes.
 */

import { builtins, defineResource, type KubeClient, type KubeObject } from '@kubeloom/kube';
import { createTestNamespace, waitFor } from '@kubeloom/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { createClient, createDelayedClient, createWriteClient } from '../src/create-client.ts';
import { createNamespaceSelectorFilter } from '../src/create-namespace-selector-filter.ts';
import { ResourceNotServedError } from '../src/errors.ts';
import { createEventTracker, trackerHandler } from '../src/testing/event-tracker.ts';
import { deleteCRD, makeCRD } from '../src/testing/make-crd.ts';
import { uniqueSuffix } from './test-support.ts';

/**
 * Creates a namespace with a generated name and the given labels: `createTestNamespace` on a
 * real control plane, a plain create on the fake cluster (which has no kubeconfig).
 */
export async function newNamespace(kube: KubeClient, labels: Record<string, string> = {}): Promise<string> {
  if (kube.kubeConfig) return await createTestNamespace(kube.kubeConfig, 'kclient', labels);
  const ns = await kube.api.create(builtins.Namespace, {
    metadata: { generateName: 'kclient-', labels: { 'kubeloom.dev/test': 'true', ...labels } },
  });
  return ns.metadata!.name!;
}

async function relabel(kube: KubeClient, ns: string, labels: Record<string, string | null>): Promise<void> {
  await kube.api.patch(
    { resource: builtins.Namespace, name: ns },
    { metadata: { labels } },
    { type: 'merge' },
  );
}

const names = (objs: readonly KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

interface Gadget extends KubeObject {
  spec?: { color?: string };
  status?: { ready?: boolean };
}

/**
 * A delayed client started before its CRD exists: empty reads, refused writes, synced once the
 * CRD is known missing; then the CRD is installed and the handlers and index registered before
 * see the objects; one handler is removed alone; the CRD is deleted (deletes arrive) and
 * reinstalled (the informer resumes).
 */
export async function delayedClientScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const gvr = { group: `delayed-${uniqueSuffix()}.example.com`, version: 'v1', resource: 'gadgets' };
  const Gadget = defineResource<Gadget>({
    group: gvr.group,
    version: 'v1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
    subresources: { status: true },
  });
  const ns = await newNamespace(kube);
  const gadgets = createDelayedClient(kube, Gadget);
  const tracker = createEventTracker({ timeoutMs: 20_000 });
  const second = createEventTracker({ timeoutMs: 20_000 });
  const reg = gadgets.addEventHandler(trackerHandler(tracker));
  const reg2 = gadgets.addEventHandler(trackerHandler(second));
  const byColor = gadgets.index('color', (g) => (g.spec?.color ? [g.spec.color] : []));
  expect(gadgets.hasSynced()).toBe(false); // the CRD watcher has not synced: we don't know yet

  expect(await kube.runAndWait(signal)).toBe(true);
  await waitFor('the CRD to be known missing', () => gadgets.hasSynced());
  expect(reg.hasSynced()).toBe(true);
  expect(gadgets.hasSyncedIgnoringHandlers()).toBe(true);
  expect(gadgets.list()).toEqual([]);
  expect(gadgets.listUnfiltered()).toEqual([]);
  expect(gadgets.get('a', ns)).toBeUndefined();
  expect(byColor.lookup('red')).toEqual([]);
  const refused = await gadgets.create({ metadata: { name: 'a', namespace: ns } }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ResourceNotServedError);
  expect((refused as Error).message).toMatch(new RegExp(`gadgets\\.${gvr.group.replace(/\./g, '\\.')}`));
  await expect(gadgets.patch({ name: 'a', namespace: ns }, {}, { type: 'merge' })).rejects.toBeInstanceOf(
    ResourceNotServedError,
  );
  await expect(
    gadgets.applyStatus({ metadata: { name: 'a', namespace: ns } }, { fieldManager: 'x' }),
  ).rejects.toBeInstanceOf(ResourceNotServedError);
  await expect(gadgets.delete({ name: 'a', namespace: ns })).rejects.toBeInstanceOf(ResourceNotServedError);

  try {
    await makeCRD(kube, gvr, { kind: 'Gadget' });
    expect(await kube.crdWatcher.waitForCRD(gvr, signal)).toBe(true);
    await gadgets.create({ metadata: { name: 'a', namespace: ns }, spec: { color: 'red' } });
    await tracker.waitOrdered('add/a');
    await second.waitOrdered('add/a');
    await waitFor('the client to sync', () => gadgets.hasSynced());
    expect(names(gadgets.list(ns))).toEqual(['a']);
    expect(gadgets.get('a', ns)?.spec).toEqual({ color: 'red' });
    expect(names(byColor.lookup('red'))).toEqual(['a']);
    // an index registered after the CRD appeared works too
    const late = gadgets.index('late', (g) => [g.metadata?.name ?? '']);
    expect(names(late.lookup('a'))).toEqual(['a']);

    // removing one handler leaves the other
    reg2.remove();
    await gadgets.create({ metadata: { name: 'b', namespace: ns }, spec: { color: 'red' } });
    await tracker.waitOrdered('add/b');
    await gadgets.applyStatus(
      { metadata: { name: 'b', namespace: ns }, status: { ready: true } },
      { fieldManager: 'scenario' },
    );
    await tracker.waitOrdered('update/b');
    await second.empty();
    expect(names(byColor.lookup('red'))).toEqual(['a', 'b']);

    // delete the CRD: the API server deletes every object, handlers see deletes
    await deleteCRD(kube, gvr);
    await tracker.waitUnordered('delete/a', 'delete/b');
    await waitFor('the CRD watcher to forget the CRD', () => !kube.crdWatcher.known(gvr));
    expect(gadgets.list()).toEqual([]);
    await expect(gadgets.create({ metadata: { name: 'c', namespace: ns } })).rejects.toBeInstanceOf(
      ResourceNotServedError,
    );

    // reinstall: the informer resumes and the same handlers and indexes see new objects
    await makeCRD(kube, gvr, { kind: 'Gadget' });
    expect(await kube.crdWatcher.waitForCRD(gvr, signal)).toBe(true);
    await gadgets.create({ metadata: { name: 'c', namespace: ns }, spec: { color: 'blue' } });
    await tracker.waitOrdered('add/c');
    expect(names(byColor.lookup('blue'))).toEqual(['c']);
    expect(names(gadgets.list())).toEqual(['c']);
    await second.empty();
  } finally {
    gadgets.shutdownHandlers();
    await deleteCRD(kube, gvr);
  }
}

/**
 * A delayed client created after its CRD is already served loads at once and is fully
 * consistent: `hasSynced` waits for the real informer.
 */
export async function delayedClientPresentScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const gvr = { group: `present-${uniqueSuffix()}.example.com`, version: 'v1', resource: 'gizmos' };
  const Gizmo = await makeCRD(kube, gvr);
  try {
    const ns = await newNamespace(kube);
    await createWriteClient(kube, Gizmo).create({ metadata: { name: 'g', namespace: ns } });
    const seed = createClient(kube, builtins.ConfigMap, { namespace: ns }); // something to run
    expect(await kube.runAndWait(signal)).toBe(true);
    await waitFor(
      'the CRD watcher to know the CRD',
      () => kube.crdWatcher.known(gvr) && kube.crdWatcher.hasSynced(),
    );
    const gizmos = createDelayedClient(kube, Gizmo);
    const tracker = createEventTracker({ timeoutMs: 20_000 });
    gizmos.addEventHandler(trackerHandler(tracker));
    await kube.waitForCacheSync('gizmos', signal, () => gizmos.hasSynced());
    // synced means the initial list reached the handler
    expect(tracker.events()).toEqual(['add/g']);
    expect(names(gizmos.list(ns))).toEqual(['g']);
    expect(seed.hasSynced()).toBe(true);
  } finally {
    await deleteCRD(kube, gvr);
  }
}

/**
 * A client filtered by a namespace label selector: relabeling a namespace in and out of the
 * selector delivers adds and deletes; changing the selector does too; a handler may read the
 * client while handling a filter change; a client on Namespaces sees namespaces enter and leave.
 */
export async function dynamicFilterScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const key = `kclient-team-${uniqueSuffix()}`;
  const nsA = await newNamespace(kube, { [key]: 'blue' });
  const nsB = await newNamespace(kube, { [key]: 'red' });
  await kube.api.create(builtins.ConfigMap, { metadata: { name: 'a1', namespace: nsA } });
  await kube.api.create(builtins.ConfigMap, { metadata: { name: 'b1', namespace: nsB } });
  const filter = createNamespaceSelectorFilter(kube, { matchLabels: { [key]: 'blue' } }, { signal });
  const cms = createClient<V1ConfigMap>(kube, builtins.ConfigMap, { objectFilter: filter });
  const tracker = createEventTracker({ timeoutMs: 20_000 });
  const listedDuringEvents: string[][] = [];
  cms.addEventHandler(trackerHandler(tracker));
  cms.addEventHandler({
    // reading the client from a handler during a filter change must work (Istio TestFilterDeadlock)
    onAdd: (cm) => {
      if (cm.metadata?.namespace === nsA || cm.metadata?.namespace === nsB) {
        listedDuringEvents.push(names([...cms.list(nsA), ...cms.list(nsB)]));
      }
    },
  });
  const namespaces = createClient(kube, builtins.Namespace, { objectFilter: filter });
  const nsTracker = createEventTracker({ timeoutMs: 20_000 });
  namespaces.addEventHandler({
    onAdd: (n) => {
      if (n.metadata?.name === nsA || n.metadata?.name === nsB) nsTracker.record(`add/${n.metadata.name}`);
    },
    onDelete: (n) => {
      const name = ('tombstone' in n ? n.obj : n).metadata?.name;
      if (name === nsA || name === nsB) nsTracker.record(`delete/${name}`);
    },
  });

  expect(await kube.runAndWait(signal)).toBe(true);
  await kube.waitForCacheSync(
    'filtered',
    signal,
    () => cms.hasSynced(),
    () => namespaces.hasSynced(),
  );
  expect(filter.hasSynced()).toBe(true);
  await tracker.waitOrdered('add/a1');
  await nsTracker.waitOrdered(`add/${nsA}`);
  expect(names(cms.list(nsA))).toEqual(['a1']);
  expect(cms.get('b1', nsB)).toBeUndefined();
  expect(names(cms.listUnfiltered(nsB))).toEqual(['b1']);
  expect(
    names(namespaces.list().filter((n) => n.metadata?.name === nsA || n.metadata?.name === nsB)),
  ).toEqual([nsA]);

  // relabel B into the selector: b1 arrives as an add
  await relabel(kube, nsB, { [key]: 'blue' });
  await tracker.waitOrdered('add/b1');
  await nsTracker.waitOrdered(`add/${nsB}`);
  expect(listedDuringEvents.at(-1)).toEqual(['a1', 'b1']);
  // relabel A out: a1 leaves as a delete; new objects in A stay invisible
  await relabel(kube, nsA, { [key]: 'red' });
  await tracker.waitOrdered('delete/a1');
  await nsTracker.waitOrdered(`delete/${nsA}`);
  await kube.api.create(builtins.ConfigMap, { metadata: { name: 'a2', namespace: nsA } });
  await kube.api.patch(
    { resource: builtins.ConfigMap, name: 'b1', namespace: nsB },
    { data: { touched: 'yes' } },
    { type: 'merge' },
  );
  await tracker.waitOrdered('update/b1'); // a2 produced nothing before this
  expect(cms.get('a2', nsA)).toBeUndefined();

  // change the selector itself: everything in A enters, everything in B leaves
  filter.setSelector({ matchLabels: { [key]: 'red' } });
  await tracker.waitUnordered('delete/b1', 'add/a1', 'add/a2');
  await nsTracker.waitUnordered(`delete/${nsB}`, `add/${nsA}`);
  expect(names(cms.list())).toEqual(['a1', 'a2']);

  // an object that moves through an update (label change) is handled per object, too
  const byLabel = createClient<V1ConfigMap>(kube, builtins.ConfigMap, {
    namespace: nsA,
    objectFilter: (cm) => cm.metadata?.labels?.keep === 'true',
  });
  const labelTracker = createEventTracker({ timeoutMs: 20_000 });
  byLabel.addEventHandler(trackerHandler(labelTracker));
  await kube.waitForCacheSync('byLabel', signal, () => byLabel.hasSynced());
  await labelTracker.empty();
  await kube.api.patch(
    { resource: builtins.ConfigMap, name: 'a1', namespace: nsA },
    { metadata: { labels: { keep: 'true' } } },
    { type: 'merge' },
  );
  await labelTracker.waitOrdered('add/a1');
  await kube.api.patch(
    { resource: builtins.ConfigMap, name: 'a1', namespace: nsA },
    { data: { x: '1' } },
    { type: 'merge' },
  );
  await labelTracker.waitOrdered('update/a1');
  await kube.api.patch(
    { resource: builtins.ConfigMap, name: 'a1', namespace: nsA },
    { metadata: { labels: { keep: 'false' } } },
    { type: 'merge' },
  );
  await labelTracker.waitOrdered('delete/a1');
  await tracker.waitOrdered('update/a1', 'update/a1', 'update/a1');
  filter.close();
}

/**
 * `hasSynced` includes handler delivery: a slow handler that is still processing the initial
 * list keeps it false; a handler added later keeps it false until it received the current state.
 */
export async function slowHandlerScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const ns = await newNamespace(kube);
  for (const name of ['x', 'y', 'z'])
    await kube.api.create(builtins.ConfigMap, { metadata: { name, namespace: ns } });
  const cms = createClient(kube, builtins.ConfigMap, { namespace: ns });
  const syncedWhileHandling: boolean[] = [];
  const busy = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // a slow handler: synchronous work on the delivery loop
    }
  };
  const slowReg = cms.addEventHandler({
    onAdd: () => {
      busy(5);
      syncedWhileHandling.push(cms.hasSynced(), slowReg.hasSynced());
    },
  });
  expect(await kube.runAndWait(signal)).toBe(true);
  expect(syncedWhileHandling).toEqual([false, false, false, false, false, false]);
  expect(cms.hasSynced()).toBe(true);

  let lateAdds = 0;
  const lateReg = cms.addEventHandler({
    onAdd: (_cm, initial) => {
      busy(5);
      expect(initial).toBe(true);
      expect(cms.hasSynced()).toBe(false);
      lateAdds++;
    },
  });
  expect(cms.hasSyncedIgnoringHandlers()).toBe(true);
  expect(lateReg.hasSynced()).toBe(false);
  expect(cms.hasSynced()).toBe(false);
  await kube.waitForCacheSync('late handler', signal, () => cms.hasSynced());
  expect(lateAdds).toBe(3);
  expect(lateReg.hasSynced()).toBe(true);
}
