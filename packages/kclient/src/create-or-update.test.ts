import { builtins, isAlreadyExists, type KubeObject } from '@kubeloom/kube';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createWriteClient } from './create-client.ts';
import { createOrUpdate } from './create-or-update.ts';
import type { Writer } from './interfaces.ts';
import { makeCRD } from './testing/make-crd.ts';

afterEach(closeFakes);

const gvr = { group: 'cou.example.com', version: 'v1', resource: 'gadgets' };
const gadget = (size: number): KubeObject & { spec: { size: number } } => ({
  metadata: { name: 'g', namespace: 'ns' },
  spec: { size },
});

describe('createOrUpdate', () => {
  it('updates an existing custom resource with its current resourceVersion (no 422)', async () => {
    const { kube } = fakeKube();
    const Gadget = await makeCRD(kube, gvr);
    const writer = createWriteClient(kube, Gadget);
    await writer.create(gadget(1));
    // what the old implementation sent: an update without resourceVersion
    await expect(writer.update(gadget(2))).rejects.toThrow(/resourceVersion/);
    const updated = await createOrUpdate(writer, gadget(2));
    expect(updated.spec).toEqual({ size: 2 });
    expect(kube.cluster.requestCount('get', Gadget)).toBe(1);
  });

  it('retries a conflict with a fresh read', async () => {
    const { kube } = fakeKube();
    const Gadget = await makeCRD(kube, gvr);
    const writer = createWriteClient(kube, Gadget);
    await writer.create(gadget(1));
    kube.cluster.failNext('update', 1, { code: 409, reason: 'Conflict', resource: Gadget });
    const updated = await createOrUpdate(writer, gadget(3), { retry: { initialDelayMs: 1 } });
    expect(updated.spec).toEqual({ size: 3 });
    expect(kube.cluster.requestCount('update', Gadget)).toBe(2);
    expect(kube.cluster.requestCount('get', Gadget)).toBe(2);
  });

  it('creates again when the object was deleted between AlreadyExists and the read', async () => {
    const { kube } = fakeKube();
    const writer = createWriteClient(kube, builtins.ConfigMap);
    kube.cluster.failNext('create', 1, { code: 409, reason: 'AlreadyExists', resource: builtins.ConfigMap });
    const created = await createOrUpdate(writer, {
      metadata: { name: 'c', namespace: 'ns' },
      data: { a: '1' },
    });
    expect(created.data).toEqual({ a: '1' });
    expect(kube.cluster.requestCount('create')).toBe(2);
    expect(kube.cluster.requestCount('update')).toBe(0);
  });

  it('needs a way to read for a writer that is not a kclient writer', async () => {
    const { kube } = fakeKube({
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } }],
    });
    const inner = createWriteClient(kube, builtins.ConfigMap);
    const foreign: Writer<V1ConfigMap> = {
      create: (o, opts) => inner.create(o, opts),
      update: (o, opts) => inner.update(o, opts),
      updateStatus: (o, opts) => inner.updateStatus(o, opts),
      patch: (...args) => inner.patch(...args),
      patchStatus: (...args) => inner.patchStatus(...args),
      apply: (c, o) => inner.apply(c, o),
      applyStatus: (c, o) => inner.applyStatus(c, o),
      delete: (...args) => inner.delete(...args),
    };
    const obj = { metadata: { name: 'c', namespace: 'ns' }, data: { a: '2' } };
    await expect(createOrUpdate(foreign, obj)).rejects.toThrow(/pass opts.get/);
    expect(kube.cluster.requestCount('create')).toBe(0);
    const reads: string[] = [];
    const updated = await createOrUpdate(foreign, obj, {
      get: async (name, namespace) => {
        reads.push(`${namespace}/${name}`);
        return await kube.api.get({ resource: builtins.ConfigMap, name, namespace });
      },
    });
    expect(updated.data).toEqual({ a: '2' });
    expect(reads).toEqual(['ns/c']);
  });

  it('gives up after the retries and rethrows other errors', async () => {
    const { kube } = fakeKube();
    const writer = createWriteClient(kube, builtins.ConfigMap);
    kube.cluster.failNext('create', 1, { code: 500 });
    await expect(createOrUpdate(writer, { metadata: { name: 'c', namespace: 'ns' } })).rejects.toThrow();
    kube.cluster.failAlways('create', { code: 409, reason: 'AlreadyExists' });
    const err = await createOrUpdate(
      writer,
      { metadata: { name: 'c', namespace: 'ns' } },
      { retry: { steps: 3, initialDelayMs: 1 } },
    ).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(kube.cluster.requestCount('create')).toBe(1 + 1 + 3);
  });
});
