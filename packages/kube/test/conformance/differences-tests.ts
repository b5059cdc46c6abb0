import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import { createFakeApiClient } from '../../src/fake/index.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, configMap, deployment } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';
import { WatchReader } from './watch-reader.ts';

type Crd = KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> | null } };

type Dep = KubeObject & {
  spec: { strategy?: unknown; template: { spec: { containers: Array<{ imagePullPolicy?: string }> } } };
};

/**
 * Behaviours where the fake deliberately differs from the apiserver. Each test states the real
 * behaviour and the fake's, so a change on either side shows up here.
 */
export function differencesTests(ctx: ConformanceContext): void {
  const { group } = ctx.fx;
  it('DIFFERENCE: deleting a namespace (real: stays Terminating without a namespace controller; fake: deleted with its objects at once)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.delete({ resource: builtins.Namespace, name: ns });
    if (kind === 'real') {
      const terminating = (await api.get({ resource: builtins.Namespace, name: ns })) as KubeObject & {
        status?: { phase?: string };
      };
      expect(terminating.metadata?.deletionTimestamp).toBeDefined();
      expect(terminating.status?.phase).toBe('Terminating');
      expect((await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns })).metadata?.name).toBe(
        'a',
      );
    } else {
      expect((await apiError(api.get({ resource: builtins.Namespace, name: ns }))).code).toBe(404);
      expect((await apiError(api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns }))).code).toBe(
        404,
      );
    }
  });

  it('DIFFERENCE: defaulting of built-ins (real: defaults such as imagePullPolicy and strategy; fake: none)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const d = (await api.create(builtins.Deployment, deployment(ns, 'd'))) as Dep;
    if (kind === 'real') {
      expect(d.spec.strategy).toBeDefined();
      expect(d.spec.template.spec.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    } else {
      expect(d.spec.strategy).toBeUndefined();
      expect(d.spec.template.spec.containers[0]?.imagePullPolicy).toBeUndefined();
    }
  });

  it('DIFFERENCE: schema validation (real: a ConfigMap value must be a string; fake: not validated)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const bad = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bad', namespace: ns },
      data: { k: 1 },
    } as unknown as KubeObject;
    if (kind === 'real') {
      const err = await apiError(api.create(builtins.ConfigMap, bad));
      expect(err.code).toBe(400);
    } else {
      expect((await api.create(builtins.ConfigMap, bad)).metadata?.name).toBe('bad');
    }
  });

  it('DIFFERENCE: merge keys by field name (real: EndpointSlice ports are atomic, a strategic merge patch replaces them; fake: its field-name table keys every `ports` list by port and protocol)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.EndpointSlice, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'es', namespace: ns },
      addressType: 'IPv4',
      endpoints: [],
      ports: [{ name: 'a', port: 80, protocol: 'TCP' }],
    } as KubeObject);
    const patched = (await api.patch(
      { resource: builtins.EndpointSlice, name: 'es', namespace: ns },
      { ports: [{ name: 'b', port: 81, protocol: 'TCP' }] },
      { type: 'strategic' },
    )) as KubeObject & { ports: Array<{ name: string }> };
    expect(patched.ports.map((p) => p.name)).toEqual(kind === 'real' ? ['b'] : ['b', 'a']);
  });

  it('DIFFERENCE: managedFields are leaf-level (real: an Update that creates a map also owns the map itself, ".", and atomic structs such as an ownerReference are owned whole; fake: only leaves, walked field by field)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const created = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { k: 'v' } }));
    const fields = created.metadata?.managedFields?.[0]?.fieldsV1;
    if (kind === 'real') expect(fields).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
    else expect(fields).toEqual({ 'f:data': { 'f:k': {} } });
    const owned = configMap(ns, 'o');
    owned.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u1' }];
    const applied = await api.patch({ resource: builtins.ConfigMap, name: 'o', namespace: ns }, owned, {
      type: 'apply',
      fieldManager: 'alice',
    });
    const appliedFields = (applied.metadata?.managedFields?.[0]?.fieldsV1 ?? {}) as Record<
      string,
      Record<string, unknown>
    >;
    const item = appliedFields['f:metadata']?.['f:ownerReferences'];
    if (kind === 'real') expect(item).toEqual({ 'k:{"uid":"u1"}': {} });
    else
      expect(item).toEqual({
        'k:{"uid":"u1"}': { '.': {}, 'f:apiVersion': {}, 'f:kind': {}, 'f:name': {}, 'f:uid': {} },
      });
  });

  it('DIFFERENCE: namespaces need not exist by default (real: 404 NotFound; fake: allowed unless strictNamespaces, which this suite sets)', async () => {
    const { api, kind } = ctx.target;
    const missing = `missing-${Math.random().toString(36).slice(2, 10)}`;
    if (kind === 'real') {
      expect((await apiError(api.create(builtins.ConfigMap, configMap(missing, 'a')))).code).toBe(404);
    } else {
      const lenient = createFakeApiClient();
      const created = await lenient.create(builtins.ConfigMap, configMap(missing, 'a'));
      expect(created.metadata?.namespace).toBe(missing);
      lenient.cluster.close();
    }
  });

  it('DIFFERENCE: CRD status (real: the create answers no conditions, Established comes later; fake: Established and NamesAccepted at once)', async () => {
    const { api, kind, uninstallCrd } = ctx.target;
    const crd = structuredClone(ctx.fx.ephemeralCrd) as V1CustomResourceDefinition;
    crd.metadata!.name = `freshes.${group}`;
    crd.spec.names = { plural: 'freshes', singular: 'fresh', kind: 'Fresh', listKind: 'FreshList' };
    try {
      const created = (await api.create(builtins.CustomResourceDefinition, crd)) as Crd;
      const conditions = (created.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
      if (kind === 'real') expect(conditions).toEqual([]);
      else expect(conditions).toEqual(['NamesAccepted=True', 'Established=True']);
    } finally {
      await uninstallCrd(`freshes.${group}`);
    }
  });

  it('DIFFERENCE: CRD deletion (real: answers the CRD, Terminating behind the customresourcecleanup finalizer, gone a moment later; fake: answers Success and is gone at once)', async () => {
    const { api, kind, installCrd, uninstallCrd } = ctx.target;
    const crd = structuredClone(ctx.fx.ephemeralCrd) as V1CustomResourceDefinition;
    crd.metadata!.name = `doomeds.${group}`;
    crd.spec.names = { plural: 'doomeds', singular: 'doomed', kind: 'Doomed', listKind: 'DoomedList' };
    await installCrd(crd);
    try {
      const answer = (await api.delete({
        resource: builtins.CustomResourceDefinition,
        name: `doomeds.${group}`,
      })) as Crd;
      if (kind === 'real') {
        expect(answer.kind).toBe('CustomResourceDefinition');
        expect(answer.metadata?.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
        expect(answer.status?.conditions?.find((c) => c.type === 'Terminating')?.status).toBe('True');
      } else {
        expect(answer).toMatchObject({ kind: 'Status', status: 'Success' });
        expect(
          (await apiError(api.get({ resource: builtins.CustomResourceDefinition, name: `doomeds.${group}` })))
            .code,
        ).toBe(404);
      }
    } finally {
      await uninstallCrd(`doomeds.${group}`);
    }
  });

  it('DIFFERENCE: discovery (real: every built-in resource, e.g. podtemplates; fake: only those of builtins.ts, extra descriptors and CRDs)', async () => {
    const { api, kind } = ctx.target;
    const v1 = await api.request<{ resources: Array<{ name: string }> }>({ method: 'GET', path: '/api/v1' });
    const served = v1.resources.map((r) => r.name);
    expect(served).toContain('configmaps');
    expect(served.includes('podtemplates')).toBe(kind === 'real');
  });

  it('DIFFERENCE: pod deletion (real: a scheduled pod waits for its kubelet, 30 s grace period; fake: deleted at once, no grace period)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { nodeName: 'node-without-kubelet', containers: [{ name: 'c', image: 'example/c:1' }] },
    } as KubeObject);
    await api.delete({ resource: builtins.Pod, name: 'p', namespace: ns });
    if (kind === 'real') {
      const pending = await api.get({ resource: builtins.Pod, name: 'p', namespace: ns });
      expect(pending.metadata?.deletionTimestamp).toBeDefined();
      expect(pending.metadata?.deletionGracePeriodSeconds).toBe(30);
      await api.delete({ resource: builtins.Pod, name: 'p', namespace: ns }, { gracePeriodSeconds: 0 });
    } else {
      expect((await apiError(api.get({ resource: builtins.Pod, name: 'p', namespace: ns }))).code).toBe(404);
    }
  });

  it("DIFFERENCE: close() of a client (real: drops idle connections, a live watch goes on; fake: ends the client's watches)", async () => {
    const { api, newNamespace, otherClient, kind } = ctx.target;
    const ns = await newNamespace();
    const other = otherClient();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const controller = new AbortController();
    const w = new WatchReader(
      other.watch(builtins.ConfigMap, {
        namespace: ns,
        resourceVersion: list.metadata.resourceVersion,
        signal: controller.signal,
      }),
      controller,
    );
    try {
      const live = w.take(1);
      await api.create(builtins.ConfigMap, configMap(ns, 'a'));
      expect((await live)[0]?.type).toBe('ADDED');
      other.close();
      await api.create(builtins.ConfigMap, configMap(ns, 'b'));
      if (kind === 'real') {
        const next = await w.next();
        expect(next !== 'end' && next.type === 'ADDED' && next.object.metadata?.name).toBe('b');
      } else {
        expect(await w.next()).toBe('end');
      }
    } finally {
      w.close();
    }
  });
}
