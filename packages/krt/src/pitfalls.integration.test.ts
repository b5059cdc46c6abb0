/**
 * Istio pitfall P10 on the real control plane (istio-pkg-kube.md §7): a collection over a CRD
 * that is installed after the controller started must not stay empty or unsynced until a
 * restart. krt wraps kclient's delayed client, which swaps the real informer in once discovery
 * serves the CRD; krt's handler and automatic indexes move with it.
 */
import { createDelayedClient } from '@kubeloom/kclient';
import {
  createKubeClient,
  defineResource,
  type KubeClient,
  type KubeObject,
  noopLogger,
} from '@kubeloom/kube';
import {
  type CRDObject,
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  waitFor,
} from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';
import { staticCollection } from './static.ts';

interface Gadget extends KubeObject {
  spec?: { selector?: Record<string, string> };
}

const GROUP = 'krt-delayed.kubeloom.dev';
const Gadget = defineResource<Gadget>({
  group: GROUP,
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
});

const crd: CRDObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { selector: { type: 'object', additionalProperties: { type: 'string' } } },
              },
            },
          },
        },
      },
    ],
  },
};

describe('P10: a CRD installed after start', () => {
  const stops: AbortController[] = [];
  afterEach(() => {
    for (const s of stops.splice(0)) s.abort();
  });

  it('a collection over a delayed client syncs while the CRD is missing, then follows it once installed', async () => {
    const { kubeConfig } = sharedControlPlane();
    const ns = await createTestNamespace(kubeConfig, 'krt-delayed');
    const kube: KubeClient = createKubeClient({ kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    stops.push(stop);
    stop.signal.addEventListener('abort', () => kube.shutdown());
    const signal = stop.signal;

    const gadgets = informer(createDelayedClient(kube, Gadget), { signal, name: 'gadgets' });
    const byNs = namespaceIndex(gadgets);
    const pods = staticCollection([{ metadata: { name: 'p', namespace: ns, labels: { app: 'x' } } }], {
      signal,
    });
    const selected = collection(
      pods,
      (ctx, p) => ({
        metadata: p.metadata,
        gadgets: byNs
          .fetch(ctx, p.metadata.namespace, filter.selectsNonEmpty(p.metadata.labels))
          .map((g) => g.metadata!.name!),
      }),
      { signal, name: 'selected' },
    );

    expect(await kube.runAndWait(signal)).toBe(true);
    // The CRD is known to be missing: synced, empty, nothing blocks.
    expect(await selected.waitUntilSynced(signal)).toBe(true);
    expect(gadgets.list()).toEqual([]);
    expect(selected.get(`${ns}/p`)?.gadgets).toEqual([]);

    await installCRDs(kubeConfig, [crd]);
    await kube.api.create(Gadget, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: ns },
      spec: { selector: { app: 'x' } },
    });
    await waitFor('the gadget to be selected', () => selected.get(`${ns}/p`)?.gadgets.length === 1);
    expect(selected.get(`${ns}/p`)?.gadgets).toEqual(['g1']);
  }, 180_000);
});
