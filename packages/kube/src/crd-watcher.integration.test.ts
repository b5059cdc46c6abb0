import {
  createTestNamespace,
  installCRDs,
  sharedControlPlane,
  uninstallCRDs,
  waitFor,
} from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { type InvalidError, isAlreadyExists, isConflict, isInvalid, isNotFound } from './errors.ts';
import { noopLogger } from './logger.ts';
import { UnknownResourceError } from './registry.ts';

/** A CRD `plural.group` of `kind` (one version, v1, with the status subresource). */
function crd({
  group,
  plural,
  kind,
  scope = 'Namespaced',
}: {
  group: string;
  plural: string;
  kind: string;
  scope?: string;
}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer', minimum: 0 } } },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

describe('registry and CRD watcher on the real apiserver', () => {
  const stops: AbortController[] = [];
  afterEach(() => {
    for (const s of stops.splice(0)) s.abort();
  });

  it('resolves built-in kinds statically and custom kinds through discovery; unknown kinds give a clear error', async () => {
    const { kubeConfig } = sharedControlPlane();
    const kube = createKubeClient({ kubeConfig, logger: noopLogger });
    expect(await kube.registry.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(
      builtins.Deployment,
    );
    const pc = await kube.registry.forKind({
      group: 'scheduling.k8s.io',
      version: 'v1',
      kind: 'PriorityClass',
    });
    expect(pc).toMatchObject({ plural: 'priorityclasses', namespaced: false });
    await expect(
      kube.registry.forKind({ group: 'nope.example.com', version: 'v1', kind: 'Nope' }),
    ).rejects.toBeInstanceOf(UnknownResourceError);
    await expect(
      kube.registry.forKind({ group: 'nope.example.com', version: 'v1', kind: 'Nope' }),
    ).rejects.toThrow(
      /unknown resource kind Nope in nope\.example\.com\/v1.*check that the CRD is installed/,
    );
    await installCRDs(kubeConfig, [
      crd({ group: 'reg.kubeloom.dev', plural: 'gizmos', kind: 'Gizmo', scope: 'Cluster' }),
    ]);
    kube.registry.invalidate();
    const gizmo = await kube.registry.forObject({ apiVersion: 'reg.kubeloom.dev/v1', kind: 'Gizmo' });
    expect(gizmo).toMatchObject({
      plural: 'gizmos',
      namespaced: false,
      subresources: { status: true, scale: false },
      strategicMergePatch: false,
    });
    kube.shutdown();
  });

  it('knownOrCallback is false before the CRD exists and calls back once when it is served; deletion is reported', async () => {
    const { kubeConfig } = sharedControlPlane();
    const kube = createKubeClient({ kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    stops.push(stop);
    const gvr = { group: 'watch.kubeloom.dev', version: 'v1', resource: 'sprockets' };
    let calls = 0;
    expect(kube.crdWatcher.knownOrCallback(gvr, () => calls++)).toBe(false);
    const changes: string[] = [];
    kube.crdWatcher.onChange((g, present) => {
      if (g.group === gvr.group) changes.push(`${g.resource}:${present}`);
    });
    await kube.runAndWait(stop.signal);
    expect(await kube.crdWatcher.waitUntilSynced(stop.signal)).toBe(true);
    expect(kube.crdWatcher.known(gvr)).toBe(false);
    const waiting = kube.crdWatcher.waitForCRD(gvr, stop.signal);
    await installCRDs(kubeConfig, [crd({ group: gvr.group, plural: 'sprockets', kind: 'Sprocket' })]);
    expect(await waiting).toBe(true);
    await waitFor('callback', () => calls === 1);
    expect(kube.crdWatcher.known(gvr)).toBe(true);
    expect(kube.crdWatcher.knownOrCallback(gvr, () => calls++)).toBe(true);
    // The resource is usable at once: discovery already serves it.
    const ns = await createTestNamespace(kubeConfig, 'crdw');
    const desc = await kube.registry.forResource(gvr);
    await kube.api.create(desc, {
      apiVersion: 'watch.kubeloom.dev/v1',
      kind: 'Sprocket',
      metadata: { name: 's', namespace: ns },
    });
    await uninstallCRDs(kubeConfig, ['sprockets.watch.kubeloom.dev']);
    await waitFor('removal', () => !kube.crdWatcher.known(gvr));
    expect(changes).toEqual(['sprockets:true', 'sprockets:false']);
    expect(calls).toBe(1);
    const aborted = new AbortController();
    aborted.abort();
    expect(await kube.crdWatcher.waitForCRD(gvr, aborted.signal)).toBe(false);
    kube.shutdown();
  });

  it('surfaces typed errors from the real apiserver', async () => {
    const { kubeConfig } = sharedControlPlane();
    const kube = createKubeClient({ kubeConfig, logger: noopLogger });
    const ns = await createTestNamespace(kubeConfig, 'errors');
    const missing = await kube.api
      .get({ resource: builtins.ConfigMap, name: 'missing', namespace: ns })
      .catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    const created = await kube.api.create(builtins.ConfigMap, { metadata: { name: 'c', namespace: ns } });
    expect(
      isAlreadyExists(
        await kube.api
          .create(builtins.ConfigMap, { metadata: { name: 'c', namespace: ns } })
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    await kube.api.update(builtins.ConfigMap, { ...created, data: { a: '1' } });
    const stale = await kube.api
      .update(builtins.ConfigMap, { ...created, data: { a: '2' } })
      .catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const invalid = (await kube.api
      .create(builtins.ConfigMap, { metadata: { name: 'Bad_Name', namespace: ns } })
      .catch((e: unknown) => e)) as InvalidError;
    expect(isInvalid(invalid)).toBe(true);
    expect(invalid.causes.some((c) => c.field === 'metadata.name')).toBe(true);
    kube.shutdown();
  });
});
