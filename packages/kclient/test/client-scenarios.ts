/** Client scenarios that run on the fake cluster and on the real control plane. */

import {
  builtins,
  ConflictError,
  InvalidError,
  isNotFound,
  type KubeClient,
  type KubeObject,
  NotFoundError,
} from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { expect } from 'vitest';
import {
  createClient,
  createMetadataClient,
  createUntypedClient,
  createWriteClient,
} from '../src/create-client.ts';
import { createOrUpdate } from '../src/create-or-update.ts';
import { retryOnConflict } from '../src/retry-on-conflict.ts';
import { ClientTestError } from '../src/testing/client-test-error.ts';
import { createDirectClient } from '../src/testing/direct-client.ts';
import { createEventTracker, trackerHandler } from '../src/testing/event-tracker.ts';
import { deleteCRD, makeCRD } from '../src/testing/make-crd.ts';
import { names } from '../src/testing/names.ts';
import { wrap } from '../src/testing/test-client.ts';
import { newNamespace } from './scenarios.ts';
import { uniqueSuffix } from './test-support.ts';

function deployment(name: string, namespace: string, image = 'nginx:1'): V1Deployment {
  return {
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image }] },
      },
    },
  };
}

/** ConfigMap: every Reader, Writer and Informer method. */
export async function configMapScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const ns = await newNamespace(kube);
  const cms = createClient(kube, builtins.ConfigMap, { namespace: ns, fieldManager: 'kclient-test' });
  const tracker = createEventTracker();
  const reg = cms.addEventHandler(trackerHandler(tracker));
  const byTier = cms.index('tier', (cm) => (cm.metadata?.labels?.tier ? [cm.metadata.labels.tier] : []));
  await cms.create({ metadata: { name: 'pre', namespace: ns, labels: { tier: 'a' } }, data: { x: '1' } });
  expect(cms.hasSynced()).toBe(false);

  expect(await kube.runAndWait(signal)).toBe(true);
  expect(cms.hasSynced()).toBe(true);
  expect(reg.hasSynced()).toBe(true);
  // After sync the handler has already seen the initial list.
  await tracker.waitOrdered('add/pre');
  expect(cms.get('pre', ns)?.data).toEqual({ x: '1' });
  expect(cms.get('pre')).toBeUndefined(); // namespaced kind: the namespace is part of the key
  expect(byTier.lookup('a').map((c) => c.metadata?.name)).toEqual(['pre']);

  const created = await cms.create({ metadata: { name: 'live', namespace: ns, labels: { tier: 'b' } } });
  expect(created.kind).toBe('ConfigMap');
  expect(created.metadata?.managedFields?.[0]?.manager).toBe('kclient-test');
  await tracker.waitOrdered('add/live');
  expect(
    cms
      .list(ns)
      .map((c) => c.metadata?.name)
      .sort(),
  ).toEqual(['live', 'pre']);
  expect(cms.list(undefined, 'tier=b').map((c) => c.metadata?.name)).toEqual(['live']);
  expect(cms.list(ns, { matchLabels: { tier: 'a' } }).map((c) => c.metadata?.name)).toEqual(['pre']);
  expect(cms.list('elsewhere')).toEqual([]);
  expect(byTier.lookup('b').map((c) => c.metadata?.name)).toEqual(['live']);

  // update (conditional on the cached resourceVersion), merge, json and strategic patches
  const cached = structuredClone(cms.get('live', ns)!);
  cached.data = { v: '1' };
  await cms.update(cached);
  await tracker.waitOrdered('update/live');
  cached.data = { v: 'stale' };
  await expect(cms.update(cached)).rejects.toBeInstanceOf(ConflictError);
  await cms.patch({ name: 'live', namespace: ns }, { data: { m: 'merge' } }, { type: 'merge' });
  await tracker.waitOrdered('update/live');
  await cms.patch({ name: 'live', namespace: ns }, [{ op: 'add', path: '/data/j', value: 'json' }], {
    type: 'json',
  });
  await tracker.waitOrdered('update/live');
  await cms.patch(
    { name: 'live', namespace: ns },
    { metadata: { labels: { tier: 'c' } } },
    { type: 'strategic' },
  );
  await tracker.waitOrdered('update/live');
  expect(cms.get('live', ns)?.data).toEqual({ v: '1', m: 'merge', j: 'json' });
  expect(byTier.lookup('b')).toEqual([]);
  expect(byTier.lookup('c').map((c) => c.metadata?.name)).toEqual(['live']);

  // retryOnConflict: the first attempt writes a stale object, the second re-reads
  const stale = structuredClone(cms.get('live', ns)!);
  await cms.patch({ name: 'live', namespace: ns }, { data: { racer: 'x' } }, { type: 'merge' });
  let attempts = 0;
  await retryOnConflict(async () => {
    attempts++;
    const base =
      attempts === 1
        ? stale
        : structuredClone(await kube.api.get({ resource: builtins.ConfigMap, name: 'live', namespace: ns }));
    base.data = { ...base.data, n: String(attempts) };
    return await cms.update(base);
  });
  expect(attempts).toBe(2);
  await waitFor('the retried update in the cache', () => cms.get('live', ns)?.data?.n === '2');
  tracker.clear();

  // updateStatus is refused for a kind without status
  await expect(cms.updateStatus(cached)).rejects.toThrow(/no status subresource/);
  await expect(cms.patch({ name: 'live', namespace: ns }, {}, { type: 'bogus' as never })).rejects.toThrow(
    /unknown patch type "bogus"/,
  );

  // delete with a precondition
  const rv = cms.get('live', ns)!.metadata!.resourceVersion!;
  await expect(
    cms.delete({ name: 'live', namespace: ns }, { preconditions: { resourceVersion: '1' } }),
  ).rejects.toBeInstanceOf(ConflictError);
  await cms.delete(
    { name: 'live', namespace: ns },
    { preconditions: { resourceVersion: rv }, propagationPolicy: 'Background' },
  );
  await tracker.waitOrdered('delete/live');
  expect(cms.get('live', ns)).toBeUndefined();

  // removing one registration stops its events; shutdownHandlers removes the rest
  const other = createEventTracker();
  const otherReg = cms.addEventHandler(trackerHandler(other));
  expect(cms.hasSynced()).toBe(false); // the late handler has not seen the current state yet
  await other.waitOrdered('add/pre');
  expect(cms.hasSynced()).toBe(true);
  otherReg.remove();
  cms.shutdownHandlers();
  await cms.patch({ name: 'pre', namespace: ns }, { data: { after: 'shutdown' } }, { type: 'merge' });
  await waitFor('the patch in the cache', () => cms.get('pre', ns)?.data?.after === 'shutdown');
  await tracker.empty();
  await other.empty();
  expect(reg.hasSynced()).toBe(true);
}

/**
 * createOrUpdate, the write client and the direct client, on a ConfigMap and on a custom kind
 * (whose updates the API server refuses without a resourceVersion); `wrap` over a cached client.
 */
export async function writeHelpersScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const ns = await newNamespace(kube);
  const writer = createWriteClient(kube, builtins.ConfigMap);
  const direct = createDirectClient(kube, builtins.ConfigMap);
  await createOrUpdate(writer, { metadata: { name: 'c', namespace: ns }, data: { a: '1' } });
  await createOrUpdate(writer, { metadata: { name: 'c', namespace: ns }, data: { a: '2' } });
  expect((await direct.get('c', ns))?.data).toEqual({ a: '2' });
  expect(await direct.get('missing', ns)).toBeUndefined();
  await direct.createOrUpdate({ metadata: { name: 'd', namespace: ns, labels: { k: 'v' } } });
  expect((await direct.list(ns)).map((c) => c.metadata?.name).sort()).toEqual(['c', 'd']);
  expect((await direct.list(ns, 'k=v')).map((c) => c.kind)).toEqual(['ConfigMap']);
  await direct.delete({ name: 'd', namespace: ns });
  await expect(direct.delete({ name: 'd', namespace: ns })).rejects.toThrow(
    /clienttest: delete ConfigMap .*\/d failed/,
  );

  // a custom kind: an update without resourceVersion would be a 422
  const gvr = { group: `cou-${uniqueSuffix()}.example.com`, version: 'v1', resource: 'caches' };
  const Cache = await makeCRD(kube, gvr);
  try {
    expect(Cache.kind).toBe('Cache');
    const caches = createWriteClient(kube, Cache);
    const first = await createOrUpdate(caches, { metadata: { name: 'c', namespace: ns }, spec: { size: 1 } });
    const second = await createOrUpdate(caches, {
      metadata: { name: 'c', namespace: ns },
      spec: { size: 2 },
    });
    expect(second.spec).toEqual({ size: 2 });
    expect(second.metadata?.resourceVersion).not.toBe(first.metadata?.resourceVersion);
    // an object that carries its own (stale) resourceVersion is updated conditionally
    await expect(createOrUpdate(caches, { ...first, spec: { size: 3 } })).rejects.toBeInstanceOf(
      ConflictError,
    );

    // clienttest writers share the implementation; createOrUpdateStatus too
    const directCaches = createDirectClient(kube, Cache);
    await directCaches.createOrUpdate({ metadata: { name: 'c', namespace: ns }, spec: { size: 4 } });
    const withStatus = await directCaches.createOrUpdateStatus({
      metadata: { name: 'c', namespace: ns },
      spec: { size: 5 },
      status: { phase: 'Ready' },
    });
    expect(withStatus.status).toEqual({ phase: 'Ready' });
    expect(withStatus.spec).toEqual({ size: 5 });
    const fresh = await directCaches.createOrUpdateStatus({
      metadata: { name: 'fresh', namespace: ns },
      spec: {},
      status: { phase: 'New' },
    });
    expect(fresh.status).toEqual({ phase: 'New' });

    // wrap: writes fail the test with the kind named, reads are the client's (cached)
    const client = createClient(kube, Cache, { namespace: ns });
    const cached = wrap(client);
    void client.run(signal);
    await kube.waitForCacheSync('caches', signal, () => client.hasSynced());
    await cached.createOrUpdate({ metadata: { name: 'c', namespace: ns }, spec: { size: 6 } });
    await waitFor(
      'the update in the cache',
      () => (cached.get('c', ns)?.spec as { size?: number })?.size === 6,
    );
    expect(names(cached.list(ns))).toEqual(new Set(['c', 'fresh']));
    const failed = await cached
      .update({ metadata: { name: 'missing', namespace: ns }, spec: {} })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ClientTestError);
    expect((failed as Error).message).toMatch(new RegExp(`^clienttest: update Cache ${ns}/missing failed`));
    expect((failed as Error).cause).toBeInstanceOf(NotFoundError);
    await cached.delete({ name: 'fresh', namespace: ns });
    await expect(cached.delete({ name: 'fresh', namespace: ns })).rejects.toThrow(
      new RegExp(`clienttest: delete Cache ${ns}/fresh failed`),
    );
  } finally {
    await deleteCRD(kube, gvr);
  }
}

/** Deployment: status writes, strategic merge on containers, server-side apply with two managers. */
export async function deploymentScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const ns = await newNamespace(kube);
  const deploys = createClient(kube, builtins.Deployment, { namespace: ns });
  const tracker = createEventTracker();
  deploys.addEventHandler(trackerHandler(tracker));
  expect(await kube.runAndWait(signal)).toBe(true);

  const d = await deploys.create(deployment('web', ns));
  await tracker.waitOrdered('add/web');
  const withStatus = structuredClone(d);
  withStatus.status = { observedGeneration: 1, replicas: 3 };
  const afterStatus = await deploys.updateStatus(withStatus);
  expect(afterStatus.status?.replicas).toBe(3);
  await tracker.waitOrdered('update/web');
  await deploys.patchStatus({ name: 'web', namespace: ns }, { status: { replicas: 4 } }, { type: 'merge' });
  await tracker.waitOrdered('update/web');
  expect(deploys.get('web', ns)?.status?.replicas).toBe(4);

  // strategic merge: containers merge by name instead of replacing the list
  await deploys.patch(
    { name: 'web', namespace: ns },
    {
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1' }] } } },
    },
    { type: 'strategic' },
  );
  await tracker.waitOrdered('update/web');
  expect(
    deploys
      .get('web', ns)
      ?.spec?.template.spec?.containers.map((c) => c.name)
      .sort(),
  ).toEqual(['main', 'sidecar']);

  // server-side apply, two managers
  const applied = await deploys.apply(
    { metadata: { name: 'ssa', namespace: ns }, spec: { ...deployment('ssa', ns).spec!, replicas: 2 } },
    { fieldManager: 'alpha' },
  );
  expect(applied.spec?.replicas).toBe(2);
  await deploys.apply(
    { metadata: { name: 'ssa', namespace: ns, labels: { owner: 'beta' } } },
    { fieldManager: 'beta' },
  );
  const beta = {
    metadata: { name: 'ssa', namespace: ns, labels: { owner: 'beta' } },
    spec: { replicas: 5 },
  };
  const conflict = await deploys.apply(beta, { fieldManager: 'beta' }).catch((e: unknown) => e);
  expect(conflict).toBeInstanceOf(ConflictError);
  expect((conflict as ConflictError).message).toMatch(/alpha/);
  const forced = await deploys.apply(beta, { fieldManager: 'beta', force: true });
  expect(forced.spec?.replicas).toBe(5);
  expect(forced.metadata?.labels).toEqual({ owner: 'beta' });
  // a manager that stops applying a field gives it up: beta without labels removes them
  const dropped = await deploys.apply(
    { metadata: { name: 'ssa', namespace: ns }, spec: { replicas: 5 } },
    { fieldManager: 'beta' },
  );
  expect(dropped.metadata?.labels).toBeUndefined();
  const managers = (forced.metadata?.managedFields ?? []).map((m) => m.manager).sort();
  expect(managers).toEqual(['alpha', 'beta']);
  await expect(
    deploys.apply({ metadata: { name: 'ssa', namespace: ns } }, { fieldManager: '' }),
  ).rejects.toThrow(/fieldManager/);
  await tracker.waitUnordered('add/ssa', 'update/ssa', 'update/ssa', 'update/ssa');
}

/** A custom kind: CRUD, applyStatus through the status subresource, strategic patch refused, untyped and metadata-only clients. */
export async function customKindScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  const ns = await newNamespace(kube);
  const gvr = { group: `kc${uniqueSuffix()}.example.com`, version: 'v1', resource: 'widgets' };
  const Widget = await makeCRD(kube, gvr);
  try {
    const widgets = createClient(kube, Widget, { namespace: ns });
    const tracker = createEventTracker();
    widgets.addEventHandler(trackerHandler(tracker));
    expect(await kube.runAndWait(signal)).toBe(true);

    await widgets.create({ metadata: { name: 'w1', namespace: ns }, spec: { size: 1 } });
    await tracker.waitOrdered('add/w1');
    expect(widgets.get('w1', ns)).toMatchObject({ apiVersion: `${gvr.group}/v1`, kind: 'Widget' });
    await widgets.patch({ name: 'w1', namespace: ns }, { spec: { size: 2 } }, { type: 'merge' });
    await tracker.waitOrdered('update/w1');
    await expect(
      widgets.patch({ name: 'w1', namespace: ns }, { spec: {} }, { type: 'strategic' }),
    ).rejects.toThrow(/strategic merge patch is not supported/);

    // status: the main resource ignores status, the subresource ignores spec
    await widgets.apply(
      { metadata: { name: 'w1', namespace: ns }, status: { ready: true } },
      { fieldManager: 'ctrl' },
    );
    await widgets.applyStatus(
      { metadata: { name: 'w1', namespace: ns }, status: { ready: true }, spec: { size: 99 } },
      { fieldManager: 'ctrl' },
    );
    await waitFor(
      'the status in the cache',
      () => (widgets.get('w1', ns)?.status as { ready?: boolean })?.ready === true,
    );
    expect(widgets.get('w1', ns)?.spec).toEqual({ size: 2 });
    const conflict = await widgets
      .applyStatus(
        { metadata: { name: 'w1', namespace: ns }, status: { ready: false } },
        { fieldManager: 'other' },
      )
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    await widgets.applyStatus(
      { metadata: { name: 'w1', namespace: ns }, status: { ready: false } },
      { fieldManager: 'other', force: true },
    );
    const current = await kube.api.get({ resource: Widget, name: 'w1', namespace: ns });
    const written = await widgets.updateStatus({ ...current, status: { ready: true, phase: 'Started' } });
    expect(written.status).toEqual({ ready: true, phase: 'Started' });
    await widgets.patchStatus(
      { name: 'w1', namespace: ns },
      { status: { phase: 'Done' } },
      { type: 'merge' },
    );
    await waitFor(
      'the status patch',
      () => (widgets.get('w1', ns)?.status as { phase?: string })?.phase === 'Done',
    );
    await widgets.delete({ name: 'w1', namespace: ns });
    await waitFor('the delete', () => widgets.get('w1', ns) === undefined);

    // untyped by GVR and metadata-only clients see the same objects
    await widgets.create({
      metadata: { name: 'w2', namespace: ns, labels: { k: 'v' } },
      spec: { big: 'x'.repeat(100) },
    });
    const untyped = createUntypedClient(kube, gvr, { namespace: ns });
    const meta = createMetadataClient(kube, Widget, { namespace: ns });
    await kube.waitForCacheSync(
      'untyped',
      signal,
      untyped.hasSynced.bind(untyped),
      meta.hasSynced.bind(meta),
    );
    await waitFor(
      'w2 in both caches',
      () => untyped.get('w2', ns) !== undefined && meta.get('w2', ns) !== undefined,
    );
    expect((untyped.get('w2', ns) as KubeObject & { spec?: unknown }).spec).toEqual({
      big: 'x'.repeat(100),
    });
    const m = meta.get('w2', ns)!;
    expect(Object.keys(m).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(m.metadata.labels).toEqual({ k: 'v' });
    expect(m.metadata.managedFields).toBeUndefined();
    await untyped.patch({ name: 'w2', namespace: ns }, { spec: { big: 'y' } }, { type: 'merge' });
    await waitFor('the untyped patch', () => (widgets.get('w2', ns)?.spec as { big?: string })?.big === 'y');
  } finally {
    await deleteCRD(kube, gvr);
  }
}

/** Bad input: invalid objects carry the field causes, patches on missing objects are NotFound. */
export async function badInputScenario(kube: KubeClient, signal: AbortSignal): Promise<void> {
  void signal;
  const ns = await newNamespace(kube);
  const cms = createClient(kube, builtins.ConfigMap);
  const invalid = await cms
    .create({
      metadata: { name: 'Not_A_DNS_Name', namespace: ns },
      data: { 'bad key!': 'x' },
    } as V1ConfigMap)
    .catch((e: unknown) => e);
  expect(invalid).toBeInstanceOf(InvalidError);
  const fields = (invalid as InvalidError).causes.map((c) => c.field);
  expect(fields).toContain('metadata.name');
  expect((invalid as InvalidError).message).toMatch(/Not_A_DNS_Name/);

  const missing = await cms
    .patch({ name: 'nope', namespace: ns }, { data: { a: 'b' } }, { type: 'merge' })
    .catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(isNotFound(missing)).toBe(true);
  await expect(cms.delete({ name: 'nope', namespace: ns })).rejects.toBeInstanceOf(NotFoundError);
  await expect(cms.update({ metadata: { namespace: ns } })).rejects.toThrow(/metadata.name is required/);

  // server-side apply through patch: the same shape; the body gets apiVersion/kind, a manager is required
  const ref = { name: 'applied', namespace: ns };
  const body = { metadata: ref, data: { k: 'v' } };
  await expect(cms.patch(ref, body, { type: 'apply' })).rejects.toThrow(/needs a fieldManager/);
  await expect(cms.patch(ref, body, undefined as never)).rejects.toThrow(/unknown patch type undefined/);
  const applied = await cms.patch(ref, body, { type: 'apply', fieldManager: 'kclient-apply' });
  expect(applied.data).toEqual({ k: 'v' });
  expect(applied.metadata?.managedFields?.map((m) => m.manager)).toEqual(['kclient-apply']);
  // `a in ()` is valid (the empty value), as the apiserver has it; `a in (b` is not.
  expect(() => createClient(kube, builtins.ConfigMap, { labelSelector: 'a in (b' })).toThrow(
    `invalid label selector "a in (b": unable to parse requirement: found '', expected: ',' or ')'`,
  );
}
