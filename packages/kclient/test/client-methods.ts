/**
 * Every Reader, Writer and Informer method of a client, on one kind. Runs on ConfigMap,
 * Deployment and a custom kind, on the fake cluster (unit) and the real control plane
 * (integration).
 */

import {
  builtins,
  ConflictError,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { createClient } from '../src/create-client.ts';
import type { ApplyConfiguration } from '../src/interfaces.ts';
import { createEventTracker, type EventTracker, trackerHandler } from '../src/testing/event-tracker.ts';
import { deleteCRD, makeCRD } from '../src/testing/make-crd.ts';
import { newNamespace } from './scenarios.ts';
import { uniqueSuffix } from './test-support.ts';

/** A kind the scenario runs on. */
export interface KindUnderTest<T extends KubeObject> {
  /** For titles and index names. */
  readonly name: string;
  /** Prepares the kind (installs a CRD) and returns its descriptor and a cleanup. */
  setup(kube: KubeClient): Promise<{ resource: TypedResourceDescriptor<T>; cleanup(): Promise<void> }>;
  /** A valid new object with these labels and an annotation. */
  make(name: string, namespace: string, labels: Record<string, string>): T;
}

/** ConfigMap: no status subresource, strategic merge patch. */
export const configMapKind: KindUnderTest<V1ConfigMap> = {
  name: 'ConfigMap',
  setup: async () => ({ resource: builtins.ConfigMap, cleanup: async () => {} }),
  make: (name, namespace, labels) => ({
    metadata: { name, namespace, labels, annotations: { seed: '1' } },
    data: { k: 'v' },
  }),
};

/** Deployment: status subresource, strategic merge patch. */
export const deploymentKind: KindUnderTest<V1Deployment> = {
  name: 'Deployment',
  setup: async () => ({ resource: builtins.Deployment, cleanup: async () => {} }),
  make: (name, namespace, labels) => ({
    metadata: { name, namespace, labels, annotations: { seed: '1' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1' }] },
      },
    },
  }),
};

/** A custom resource. */
export interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { replicas?: number; readyReplicas?: number };
}

/** A custom kind (a fresh CRD per run): status subresource, no strategic merge patch. */
export const widgetKind: KindUnderTest<Widget> = {
  name: 'Widget',
  setup: async (kube) => {
    const gvr = { group: `methods-${uniqueSuffix()}.example.com`, version: 'v1', resource: 'widgets' };
    const resource = await makeCRD(kube, gvr);
    return { resource: resource as TypedResourceDescriptor<Widget>, cleanup: () => deleteCRD(kube, gvr) };
  },
  make: (name, namespace, labels) => ({
    metadata: { name, namespace, labels, annotations: { seed: '1' } },
    spec: { size: 1 },
  }),
};

const sortedNames = (objs: readonly KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

/**
 * Waits until `tracker` delivered `delete/<name>` for every name. Updates of those objects may
 * come first (the API server may report the finalizer removal before the deletion); anything
 * else fails.
 */
async function deletesOf(tracker: EventTracker, ...objects: string[]): Promise<void> {
  const left = new Set(objects.map((n) => `delete/${n}`));
  const updates = new Set(objects.map((n) => `update/${n}`));
  while (left.size > 0) {
    const e = await tracker.waitFor(
      (ev) => left.has(ev) || updates.has(ev),
      `one of ${[...left].join(', ')} (or an update of those objects)`,
    );
    left.delete(e);
  }
}

const statusOf = (o: KubeObject | undefined): Record<string, unknown> =>
  ((o as { status?: Record<string, unknown> } | undefined)?.status ?? {}) as Record<string, unknown>;

/**
 * Every method on `kind`: construction without I/O, `start`, `hasSynced` (with handlers) and
 * `hasSyncedIgnoringHandlers`, `get`, `list` (namespace, string and structured selectors),
 * `listUnfiltered`, `index` (shared by name, filtered at lookup), `create`, `update` (conditional),
 * `patch` (merge, json, strategic or refused), `apply`, `updateStatus`/`patchStatus`/`applyStatus`
 * (or refused without a status subresource), `delete` with preconditions and each propagation
 * policy (Orphan and Foreground leave the object with their finalizer: there is no garbage
 * collector), `addEventHandler` (filter flips as adds and deletes, late handlers),
 * `shutdownHandler` and `shutdownHandlers`.
 */
export async function everyMethodScenario<T extends KubeObject>(
  kube: KubeClient,
  signal: AbortSignal,
  kind: KindUnderTest<T>,
): Promise<void> {
  const ns = await newNamespace(kube);
  const { resource, cleanup } = await kind.setup(kube);
  try {
    const manager = 'kclient-methods';
    const plain = createClient(kube, resource, { namespace: ns, fieldManager: manager });
    const client = createClient(kube, resource, {
      namespace: ns,
      fieldManager: manager,
      objectFilter: (o) => o.metadata?.labels?.visible !== 'no',
    });
    expect(client.resource).toBe(resource);

    // writes need no informer
    const created = await plain.create(kind.make('a', ns, { tier: 'x' }));
    expect(created).toMatchObject({ kind: resource.kind, metadata: { name: 'a', namespace: ns } });
    expect(created.metadata?.managedFields?.map((m) => m.manager)).toContain(manager);
    await plain.create(kind.make('b', ns, { tier: 'y' }));
    await plain.create(kind.make('h', ns, { tier: 'x', visible: 'no' }));

    const t1 = createEventTracker({ timeoutMs: 20_000 });
    const t2 = createEventTracker({ timeoutMs: 20_000 });
    const both = async (...events: string[]): Promise<void> => {
      await t1.waitOrdered(...events);
      await t2.waitOrdered(...events);
    };
    const reg1 = client.addEventHandler(trackerHandler(t1));
    const reg2 = client.addEventHandler(trackerHandler(t2));
    const indexName = `methods-tier-${kind.name}`;
    const byTier = client.index(indexName, (o) => {
      const tier = o.metadata?.labels?.tier;
      return tier ? [tier] : [];
    });
    // construction did no I/O and nothing runs yet
    expect(client.hasSynced()).toBe(false);
    expect(client.hasSyncedIgnoringHandlers()).toBe(false);
    expect(reg1.hasSynced()).toBe(false);
    expect(client.list()).toEqual([]);

    void client.run(signal); // only this informer (shared with `plain`)
    expect(await kube.waitForCacheSync(kind.name, signal, () => client.hasSynced())).toBe(true);
    expect(client.hasSyncedIgnoringHandlers()).toBe(true);
    expect(reg1.hasSynced()).toBe(true);
    expect(reg2.hasSynced()).toBe(true);
    expect(plain.hasSynced()).toBe(true);
    // synced means the handlers have the initial list already (filtered)
    expect([...t1.events()].sort()).toEqual(['add/a', 'add/b']);
    await t1.waitUnordered('add/a', 'add/b');
    await t2.waitUnordered('add/a', 'add/b');

    // Reader
    expect(client.get('a', ns)?.metadata?.labels).toEqual({ tier: 'x' });
    expect(client.get('h', ns)).toBeUndefined(); // filtered out
    expect(plain.get('h', ns)?.metadata?.name).toBe('h');
    expect(client.get('missing', ns)).toBeUndefined();
    expect(sortedNames(client.list())).toEqual(['a', 'b']);
    expect(sortedNames(client.list(ns))).toEqual(['a', 'b']);
    expect(sortedNames(client.list(ns, 'tier=x'))).toEqual(['a']);
    expect(sortedNames(client.list(undefined, { matchLabels: { tier: 'y' } }))).toEqual(['b']);
    expect(sortedNames(plain.list(ns, 'tier=x'))).toEqual(['a', 'h']);
    expect(client.list('elsewhere')).toEqual([]);
    expect(sortedNames(client.listUnfiltered())).toEqual(['a', 'b', 'h']);
    expect(sortedNames(client.listUnfiltered(ns, 'tier=x'))).toEqual(['a', 'h']);
    expect(
      sortedNames(client.listUnfiltered(ns, { matchExpressions: [{ key: 'visible', operator: 'Exists' }] })),
    ).toEqual(['h']);
    expect(client.listUnfiltered('elsewhere')).toEqual([]);

    // index: filtered at lookup; the name is shared by the clients of one informer
    expect(sortedNames(byTier.lookup('x'))).toEqual(['a']);
    const reused = plain.index(indexName, () => ['ignored']);
    expect(sortedNames(reused.lookup('x'))).toEqual(['a', 'h']);
    expect(reused.lookup('ignored')).toEqual([]);

    // update, conditional on the cached resourceVersion
    const a = structuredClone(client.get('a', ns)!);
    a.metadata = { ...a.metadata, labels: { tier: 'z' } };
    const updated = await client.update(a);
    expect(updated.metadata?.resourceVersion).not.toBe(a.metadata?.resourceVersion);
    await both('update/a');
    expect(sortedNames(byTier.lookup('z'))).toEqual(['a']);
    expect(byTier.lookup('x')).toEqual([]);
    await expect(client.update(a)).rejects.toBeInstanceOf(ConflictError);

    // patches
    await client.patch(
      { name: 'a', namespace: ns },
      { metadata: { annotations: { merge: '1' } } },
      { type: 'merge' },
    );
    await both('update/a');
    await client.patch(
      { name: 'a', namespace: ns },
      [{ op: 'add', path: '/metadata/annotations/json', value: '2' }],
      { type: 'json' },
    );
    await both('update/a');
    if (resource.strategicMergePatch) {
      await client.patch(
        { name: 'a', namespace: ns },
        { metadata: { annotations: { strategic: '3' } } },
        { type: 'strategic' },
      );
      await both('update/a');
    } else {
      await expect(client.patch({ name: 'a', namespace: ns }, {}, { type: 'strategic' })).rejects.toThrow(
        /strategic merge patch is not supported/,
      );
    }
    expect(client.get('a', ns)?.metadata?.annotations).toEqual({
      seed: '1',
      merge: '1',
      json: '2',
      ...(resource.strategicMergePatch ? { strategic: '3' } : {}),
    });

    // server-side apply
    const applied = await client.apply(
      {
        metadata: { name: 'a', namespace: ns, annotations: { applied: 'yes' } },
      } as unknown as ApplyConfiguration<T>,
      { fieldManager: 'kclient-apply' },
    );
    expect(applied.metadata?.annotations?.applied).toBe('yes');
    expect(applied.metadata?.managedFields?.map((m) => m.manager)).toContain('kclient-apply');
    await both('update/a');

    // status writes
    if (resource.subresources?.status) {
      const withStatus = { ...structuredClone(client.get('a', ns)!), status: { replicas: 3 } } as T;
      expect(statusOf(await client.updateStatus(withStatus)).replicas).toBe(3);
      await both('update/a');
      await client.patchStatus({ name: 'a', namespace: ns }, { status: { replicas: 4 } }, { type: 'merge' });
      await both('update/a');
      await client.applyStatus(
        {
          metadata: { name: 'a', namespace: ns },
          status: { readyReplicas: 1 },
        } as unknown as ApplyConfiguration<T>,
        { fieldManager: 'kclient-status' },
      );
      await both('update/a');
      expect(statusOf(client.get('a', ns))).toMatchObject({ replicas: 4, readyReplicas: 1 });
    } else {
      const cur = client.get('a', ns)!;
      await expect(client.updateStatus(cur)).rejects.toThrow(/no status subresource/);
      await expect(client.patchStatus({ name: 'a', namespace: ns }, {}, { type: 'merge' })).rejects.toThrow(
        /no status subresource/,
      );
      await expect(
        client.applyStatus({ metadata: { name: 'a', namespace: ns } } as unknown as ApplyConfiguration<T>, {
          fieldManager: 'x',
        }),
      ).rejects.toThrow(/no status subresource/);
    }

    // an update across the object filter: out is a delete, back in is an add
    await client.patch(
      { name: 'a', namespace: ns },
      { metadata: { labels: { visible: 'no' } } },
      { type: 'merge' },
    );
    await both('delete/a');
    expect(client.get('a', ns)).toBeUndefined();
    await client.patch(
      { name: 'a', namespace: ns },
      { metadata: { labels: { visible: null } } },
      { type: 'merge' },
    );
    await both('add/a');

    // shutdownHandler removes that handler only
    client.shutdownHandler(reg2);
    await client.patch(
      { name: 'b', namespace: ns },
      { metadata: { annotations: { after: 'shutdownHandler' } } },
      { type: 'merge' },
    );
    await t1.waitOrdered('update/b');
    await t2.empty();

    // a handler added after sync: hasSynced waits until it has the current state
    const t3 = createEventTracker({ timeoutMs: 20_000 });
    const reg3 = client.addEventHandler(trackerHandler(t3));
    expect(client.hasSynced()).toBe(false);
    expect(client.hasSyncedIgnoringHandlers()).toBe(true);
    expect(await kube.waitForCacheSync('late handler', signal, () => client.hasSynced())).toBe(true);
    expect(reg3.hasSynced()).toBe(true);
    await t3.waitUnordered('add/a', 'add/b');
    const all = async (...events: string[]): Promise<void> => {
      await t1.waitUnordered(...events);
      await t3.waitUnordered(...events);
    };

    // delete with preconditions
    const b = client.get('b', ns)!;
    await expect(
      client.delete({ name: 'b', namespace: ns }, { preconditions: { resourceVersion: '1' } }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      client.delete(
        { name: 'b', namespace: ns },
        { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(plain.get('b', ns)).toBeDefined();
    // propagation policies: Orphan and Foreground add their finalizer, so (without a garbage
    // collector) the object stays, being deleted, until someone removes it
    await client.delete(
      { name: 'b', namespace: ns },
      {
        preconditions: { uid: b.metadata!.uid!, resourceVersion: b.metadata!.resourceVersion! },
        propagationPolicy: 'Orphan',
      },
    );
    await client.delete({ name: 'a', namespace: ns }, { propagationPolicy: 'Foreground' });
    await all('update/a', 'update/b');
    expect(client.get('b', ns)?.metadata?.deletionTimestamp).toBeDefined();
    expect(client.get('b', ns)?.metadata?.finalizers).toEqual(['orphan']);
    expect(client.get('a', ns)?.metadata?.deletionTimestamp).toBeDefined();
    expect(client.get('a', ns)?.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await client.patch({ name: 'b', namespace: ns }, { metadata: { finalizers: null } }, { type: 'merge' });
    await client.patch({ name: 'a', namespace: ns }, { metadata: { finalizers: null } }, { type: 'merge' });
    await deletesOf(t1, 'a', 'b');
    await deletesOf(t3, 'a', 'b');
    // Background: gone at once (h is filtered out: no events)
    await plain.delete({ name: 'h', namespace: ns }, { propagationPolicy: 'Background' });
    await waitFor('h to leave the cache', () => plain.get('h', ns) === undefined);
    expect(client.listUnfiltered(ns)).toEqual([]);

    // shutdownHandlers removes every handler of this client; the cache stays live
    client.shutdownHandlers();
    const t4 = createEventTracker({ timeoutMs: 20_000 });
    plain.addEventHandler(trackerHandler(t4)); // a handler of another client is not touched
    await kube.waitForCacheSync('plain', signal, () => plain.hasSynced());
    await client.create(kind.make('c', ns, {}));
    await t4.waitOrdered('add/c');
    expect(client.get('c', ns)?.metadata?.name).toBe('c');
    plain.shutdownHandlers();
    await t1.empty();
    await t2.empty();
    await t3.empty();
    expect(client.hasSynced()).toBe(true);
  } finally {
    await cleanup();
  }
}
