import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

type CM = KubeObject & { data?: Record<string, string> };

/** The body of a test ConfigMap: its data and labels. */
interface CMContent {
  readonly data: Record<string, string>;
  readonly labels?: Record<string, string>;
}

/** A ConfigMap `namespace/name` with `content`. */
function cm(namespace: string, name: string, { data, labels }: CMContent): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  } as KubeObject;
}

function managers(obj: KubeObject): Array<{ manager?: string; operation?: string; subresource?: string }> {
  return (obj.metadata?.managedFields ?? []).map((m) => ({
    manager: m.manager,
    operation: m.operation,
    ...(m.subresource ? { subresource: m.subresource } : {}),
  }));
}

/** Server-side apply: create, ownership, conflicts, force, removal of dropped fields, status. */
export function applyTests(ctx: ConformanceContext): void {
  const { group, Widget } = ctx.fx;
  it('apply creates a missing object and records the manager in managedFields', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const created = (await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'a' } }),
      { type: 'apply', fieldManager: 'alice' },
    )) as CM;
    expect(created.data).toEqual({ k: 'a' });
    expect(created.metadata?.uid).toBeDefined();
    expect(managers(created)).toEqual([{ manager: 'alice', operation: 'Apply' }]);
    expect(created.metadata?.managedFields?.[0]?.fieldsV1).toEqual({ 'f:data': { 'f:k': {} } });
  });

  it('apply without a fieldManager: the typed verb refuses before sending; the apiserver answers 422 Invalid', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await expect(
      api.patch(
        { resource: builtins.ConfigMap, name: 's', namespace: ns },
        cm(ns, 's', { data: { k: 'a' } }),
        {
          type: 'apply',
        },
      ),
    ).rejects.toThrow(TypeError);
    const err = await apiError(
      api.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}/configmaps/s`,
        body: JSON.stringify(cm(ns, 's', { data: { k: 'a' } })),
        contentType: 'application/apply-patch+yaml',
      }),
    );
    expectStatus(err, {
      code: 422,
      reason: 'Invalid',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ],
      },
    });
  });

  it('a field owned by another manager with a different value is a 409 conflict with causes; force takes it over', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'a', j: '1' } }),
      { type: 'apply', fieldManager: 'alice' },
    );
    const one = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 's', namespace: ns },
        cm(ns, 's', { data: { k: 'b', j: '1' } }),
        {
          type: 'apply',
          fieldManager: 'bob',
        },
      ),
    );
    expectStatus(one, {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.k',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.k' }],
      },
    });
    const two = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 's', namespace: ns },
        cm(ns, 's', { data: { k: 'b', j: '2' } }),
        {
          type: 'apply',
          fieldManager: 'bob',
        },
      ),
    );
    expectStatus(two, {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.j\n- .data.k',
    });
    expect(two.causes.map((c) => c.field)).toEqual(['.data.j', '.data.k']);
    const forced = (await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'b' } }),
      { type: 'apply', fieldManager: 'bob', force: true },
    )) as CM;
    expect(forced.data).toEqual({ k: 'b', j: '1' });
    const owners = Object.fromEntries(
      (forced.metadata?.managedFields ?? []).map((m) => [m.manager, m.fieldsV1]),
    );
    expect(owners).toEqual({ alice: { 'f:data': { 'f:j': {} } }, bob: { 'f:data': { 'f:k': {} } } });
  });

  it('the same value is shared ownership, not a conflict; a field dropped from the config is removed unless co-owned', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { shared: 'x', mine: '1' }, labels: { app: 'a' } }),
      { type: 'apply', fieldManager: 'alice' },
    );
    await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { shared: 'x' } }),
      { type: 'apply', fieldManager: 'bob' },
    );
    const dropped = (await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: {} }),
      { type: 'apply', fieldManager: 'alice' },
    )) as CM;
    // alice no longer applies shared, mine or the label: mine and the label go, shared stays (bob owns it).
    expect(dropped.data).toEqual({ shared: 'x' });
    expect(dropped.metadata?.labels ?? {}).toEqual({});
  });

  it('an update by another manager that changes a field makes it the owner; apply then conflicts with "<manager>" using <version>', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const applied = await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'a' } }),
      { type: 'apply', fieldManager: 'alice' },
    );
    await api.update(builtins.ConfigMap, { ...applied, data: { k: 'a', z: '3' } } as KubeObject, {
      fieldManager: 'carol',
    });
    const err = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 's', namespace: ns },
        cm(ns, 's', { data: { z: '4' } }),
        {
          type: 'apply',
          fieldManager: 'alice',
        },
      ),
    );
    expectStatus(err, {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "carol" using v1: .data.z',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "carol" using v1', field: '.data.z' },
        ],
      },
    });
  });

  it('apply to the status subresource changes only status and records subresource: status', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const body = (status: Record<string, unknown>, spec: Record<string, unknown>) =>
      ({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w', namespace: ns },
        spec,
        status,
      }) as KubeObject;
    await api.patch({ resource: Widget, name: 'w', namespace: ns }, body({ ignored: true }, { size: 1 }), {
      type: 'apply',
      fieldManager: 'ctl',
    });
    const st = (await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      body({ ready: true }, { size: 5 }),
      { type: 'apply', fieldManager: 'ctl-status', subresource: 'status' },
    )) as KubeObject & { spec: unknown; status: unknown };
    expect(st.spec).toEqual({ size: 1 });
    expect(st.status).toEqual({ ready: true });
    expect(managers(st)).toEqual([
      { manager: 'ctl', operation: 'Apply' },
      { manager: 'ctl-status', operation: 'Apply', subresource: 'status' },
    ]);
  });

  it('apply merges containers by name in built-in lists', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const full = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } },
      },
    } as KubeObject;
    await api.patch({ resource: builtins.Deployment, name: 'd', namespace: ns }, full, {
      type: 'apply',
      fieldManager: 'one',
    });
    const partial = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: { template: { spec: { containers: [{ name: 'b', image: 'b:1' }] } } },
    } as KubeObject;
    const merged = (await api.patch({ resource: builtins.Deployment, name: 'd', namespace: ns }, partial, {
      type: 'apply',
      fieldManager: 'two',
    })) as KubeObject & {
      spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } };
    };
    expect(merged.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'a=a:1',
      'b=b:1',
    ]);
  });
  it('a list item a manager stops applying is removed; items others own stay', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const dep = (containers: Array<Record<string, unknown>>, withSelector: boolean) =>
      ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: ns },
        spec: {
          ...(withSelector ? { selector: { matchLabels: { app: 'd' } } } : {}),
          template: { ...(withSelector ? { metadata: { labels: { app: 'd' } } } : {}), spec: { containers } },
        },
      }) as KubeObject;
    await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      dep(
        [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
        true,
      ),
      { type: 'apply', fieldManager: 'one' },
    );
    await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      dep([{ name: 'c', image: 'c:1' }], false),
      { type: 'apply', fieldManager: 'two' },
    );
    const after = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      dep([{ name: 'a', image: 'a:2' }], true),
      { type: 'apply', fieldManager: 'one' },
    )) as KubeObject & {
      spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } };
    };
    expect(after.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'a=a:2',
      'c=c:1',
    ]);
  });

  it('dryRun apply answers the result without persisting it, when creating and when changing', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const dryCreate = (await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'a' } }),
      { type: 'apply', fieldManager: 'alice', dryRun: 'All' },
    )) as CM;
    expect(dryCreate.data).toEqual({ k: 'a' });
    expect(managers(dryCreate)).toEqual([{ manager: 'alice', operation: 'Apply' }]);
    expect((await apiError(api.get({ resource: builtins.ConfigMap, name: 's', namespace: ns }))).code).toBe(
      404,
    );
    const applied = await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'a' } }),
      { type: 'apply', fieldManager: 'alice' },
    );
    const dryChange = (await api.patch(
      { resource: builtins.ConfigMap, name: 's', namespace: ns },
      cm(ns, 's', { data: { k: 'b' } }),
      { type: 'apply', fieldManager: 'alice', dryRun: 'All' },
    )) as CM;
    expect(dryChange.data).toEqual({ k: 'b' });
    const after = (await api.get({ resource: builtins.ConfigMap, name: 's', namespace: ns })) as CM;
    expect(after.data).toEqual({ k: 'a' });
    expect(after.metadata?.resourceVersion).toBe(applied.metadata?.resourceVersion);
  });

  it('apply merges ownerReferences by uid and finalizers as a set; what a manager stops applying goes', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${uid}`, uid });
    const config = (finalizers?: string[], ownerReferences?: unknown[]) =>
      ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'o',
          namespace: ns,
          ...(finalizers ? { finalizers } : {}),
          ...(ownerReferences ? { ownerReferences } : {}),
        },
      }) as KubeObject;
    await api.patch(
      { resource: builtins.ConfigMap, name: 'o', namespace: ns },
      config(['a.example.com/x'], [owner('u1')]),
      { type: 'apply', fieldManager: 'alice' },
    );
    const both = await api.patch(
      { resource: builtins.ConfigMap, name: 'o', namespace: ns },
      config(['b.example.com/y'], [owner('u2')]),
      { type: 'apply', fieldManager: 'bob' },
    );
    expect(both.metadata?.finalizers).toEqual(['a.example.com/x', 'b.example.com/y']);
    expect(both.metadata?.ownerReferences?.map((o) => o.uid)).toEqual(['u1', 'u2']);
    const fields = Object.fromEntries(
      (both.metadata?.managedFields ?? []).map((m) => [m.manager, m.fieldsV1]),
    );
    expect(
      Object.keys((fields.bob as { 'f:metadata': Record<string, Record<string, unknown>> })['f:metadata']),
    ).toEqual(['f:finalizers', 'f:ownerReferences']);
    expect(
      (fields.bob as { 'f:metadata': { 'f:finalizers': unknown } })['f:metadata']['f:finalizers'],
    ).toEqual({ 'v:"b.example.com/y"': {} });
    const aliceLeft = await api.patch({ resource: builtins.ConfigMap, name: 'o', namespace: ns }, config(), {
      type: 'apply',
      fieldManager: 'alice',
    });
    expect(aliceLeft.metadata?.finalizers).toEqual(['b.example.com/y']);
    expect(aliceLeft.metadata?.ownerReferences?.map((o) => o.uid)).toEqual(['u2']);
  });

  it('apply merges volumes and imagePullSecrets by name, and pod status conditions by type', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    type PodSpec = { volumes?: Array<{ name: string }>; imagePullSecrets?: Array<{ name: string }> };
    const dep = (podSpec: Record<string, unknown>, full: boolean) =>
      ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: ns },
        spec: {
          ...(full ? { selector: { matchLabels: { app: 'd' } } } : {}),
          template: {
            ...(full ? { metadata: { labels: { app: 'd' } } } : {}),
            spec: { ...(full ? { containers: [{ name: 'c', image: 'example/c:1' }] } : {}), ...podSpec },
          },
        },
      }) as KubeObject;
    await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      dep({ volumes: [{ name: 'v1', emptyDir: {} }], imagePullSecrets: [{ name: 's1' }] }, true),
      { type: 'apply', fieldManager: 'one' },
    );
    const merged = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      dep({ volumes: [{ name: 'v2', emptyDir: {} }], imagePullSecrets: [{ name: 's2' }] }, false),
      { type: 'apply', fieldManager: 'two' },
    )) as KubeObject & { spec: { template: { spec: PodSpec } } };
    expect(merged.spec.template.spec.volumes?.map((v) => v.name)).toEqual(['v1', 'v2']);
    expect(merged.spec.template.spec.imagePullSecrets?.map((v) => v.name)).toEqual(['s1', 's2']);
    await api.create(builtins.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'example/c:1' }] },
    } as KubeObject);
    const podStatus = (conditions: unknown[]) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: ns },
        status: { conditions },
      }) as KubeObject;
    await api.patch(
      { resource: builtins.Pod, name: 'p', namespace: ns },
      podStatus([{ type: 'A', status: 'True' }]),
      { type: 'apply', fieldManager: 'one', subresource: 'status' },
    );
    const pod = (await api.patch(
      { resource: builtins.Pod, name: 'p', namespace: ns },
      podStatus([{ type: 'B', status: 'False' }]),
      { type: 'apply', fieldManager: 'two', subresource: 'status' },
    )) as KubeObject & { status: { conditions: Array<{ type: string; status: string }> } };
    expect(pod.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['A=True', 'B=False']);
  });

  it('managedFields sent with an update: absent keeps them, another list replaces them, an empty list strips them all', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const created = await api.create(builtins.ConfigMap, cm(ns, 'm', { data: { k: 'v' } }), {
      fieldManager: 'creator',
    });
    const { managedFields: _, ...withoutFields } = created.metadata!;
    const kept = await api.update(
      builtins.ConfigMap,
      { ...created, metadata: withoutFields, data: { k: 'v', i: '1' } } as KubeObject,
      { fieldManager: 'writer' },
    );
    expect(kept.metadata?.managedFields?.map((m) => m.manager)).toEqual(['creator', 'writer']);
    const replaced = await api.update(
      builtins.ConfigMap,
      {
        ...kept,
        metadata: {
          ...kept.metadata,
          managedFields: [
            {
              manager: 'custom',
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:k': {} } },
            },
          ],
        },
        data: { k: 'v', i: '1', j: 'w' },
      } as KubeObject,
      { fieldManager: 'writer' },
    );
    expect(replaced.metadata?.managedFields?.map((m) => [m.manager, m.fieldsV1])).toEqual([
      ['custom', { 'f:data': { 'f:k': {} } }],
      ['writer', { 'f:data': { 'f:j': {} } }],
    ]);
    expect(replaced.metadata?.managedFields?.[0]?.time).toBeUndefined();
    const stripped = await api.update(
      builtins.ConfigMap,
      {
        ...replaced,
        metadata: { ...replaced.metadata, managedFields: [] },
        data: { k: 'v', y: '2' },
      } as KubeObject,
      { fieldManager: 'writer' },
    );
    expect(stripped.metadata?.managedFields).toBeUndefined();
    expect((stripped as CM).data).toEqual({ k: 'v', y: '2' });
  });
}
