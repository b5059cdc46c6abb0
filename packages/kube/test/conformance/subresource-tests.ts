import type { V1Deployment } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, deployment, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

type WithStatus = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

/** The status subresource and metadata.generation. */
export function subresourceTests(ctx: ConformanceContext): void {
  const { Widget, widget } = ctx.fx;
  it('create of a kind with a status subresource drops status (custom) or resets it (built-in)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const w = (await api.create(
      Widget,
      widget(ns, 'w', { spec: { size: 1 }, status: { ready: true } }),
    )) as WithStatus;
    expect(w.status).toBeUndefined();
    const d = deployment(ns, 'd') as V1Deployment;
    d.status = { replicas: 5 };
    const created = await api.create(builtins.Deployment, d);
    expect(created.status).toEqual({});
  });

  it('a main-resource update ignores status; a /status update ignores everything but status', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const w = (await api.create(Widget, widget(ns, 'w', { spec: { size: 1 } }))) as WithStatus;
    const main = (await api.update(Widget, {
      ...w,
      spec: { size: 2 },
      status: { ready: true },
    } as KubeObject)) as WithStatus;
    expect(main.spec).toEqual({ size: 2 });
    expect(main.status).toBeUndefined();
    const status = (await api.update(
      Widget,
      {
        ...main,
        metadata: { ...main.metadata, labels: { ignored: 'yes' } },
        spec: { size: 99 },
        status: { ready: true },
      } as KubeObject,
      { subresource: 'status' },
    )) as WithStatus;
    expect(status.status).toEqual({ ready: true });
    expect(status.spec).toEqual({ size: 2 });
    expect(status.metadata?.labels).toBeUndefined();
    expect(BigInt(status.metadata!.resourceVersion!)).toBeGreaterThan(
      BigInt(main.metadata!.resourceVersion!),
    );
    const got = (await api.get(
      { resource: Widget, name: 'w', namespace: ns },
      { subresource: 'status' },
    )) as WithStatus;
    expect(got.status).toEqual({ ready: true });
    const patched = (await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      { status: { ready: false }, spec: { size: 7 } },
      { type: 'merge', subresource: 'status' },
    )) as WithStatus;
    expect(patched.status).toEqual({ ready: false });
    expect(patched.spec).toEqual({ size: 2 });
  });

  it('a /status update with a stale resourceVersion is 409 Conflict', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const w = (await api.create(Widget, widget(ns, 'w'))) as WithStatus;
    await api.update(Widget, { ...w, status: { n: 1 } } as KubeObject, { subresource: 'status' });
    const err = await apiError(
      api.update(Widget, { ...w, status: { n: 2 } } as KubeObject, { subresource: 'status' }),
    );
    expect(err.reason).toBe('Conflict');
  });

  it('the status subresource of a kind without one is 404', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: ns },
    } as KubeObject);
    const err = await apiError(
      api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns }, { subresource: 'status' }),
    );
    expect(err.code).toBe(404);
  });

  it('metadata.generation increases on spec changes only', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(Widget, widget(ns, 'w', { spec: { size: 1 } }));
    const labelled = await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      { metadata: { labels: { a: 'b' } } },
      { type: 'merge' },
    );
    expect(labelled.metadata?.generation).toBe(1);
    const spec = await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      { spec: { size: 2 } },
      { type: 'merge' },
    );
    expect(spec.metadata?.generation).toBe(2);
    const status = await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      { status: { ok: true } },
      { type: 'merge', subresource: 'status' },
    );
    expect(status.metadata?.generation).toBe(2);
    const d = await api.create(builtins.Deployment, deployment(ns, 'd'));
    expect(d.metadata?.generation).toBe(1);
    const scaled = await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      { spec: { replicas: 3 } },
      { type: 'merge' },
    );
    expect(scaled.metadata?.generation).toBe(2);
  });

  it('an unserved subresource path is 404 NotFound', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(
      api.get({ resource: Widget, name: 'missing', namespace: ns }, { subresource: 'status' }),
    );
    expectStatus(err, { code: 404, reason: 'NotFound' });
  });

  it('dryRun on /status writes (update, merge patch, apply) answers the result without persisting it', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const w = (await api.create(Widget, widget(ns, 'w', { spec: { size: 1 } }))) as WithStatus;
    const dryUpdate = (await api.update(Widget, { ...w, status: { ready: true } } as KubeObject, {
      subresource: 'status',
      dryRun: 'All',
    })) as WithStatus;
    expect(dryUpdate.status).toEqual({ ready: true });
    const dryPatch = (await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      { status: { n: 1 } },
      { type: 'merge', subresource: 'status', dryRun: 'All' },
    )) as WithStatus;
    expect(dryPatch.status).toEqual({ n: 1 });
    const dryApply = (await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      {
        apiVersion: w.apiVersion,
        kind: 'Widget',
        metadata: { name: 'w', namespace: ns },
        status: { applied: true },
      },
      { type: 'apply', subresource: 'status', fieldManager: 'ctl', dryRun: 'All' },
    )) as WithStatus;
    expect(dryApply.status).toEqual({ applied: true });
    const after = (await api.get({ resource: Widget, name: 'w', namespace: ns })) as WithStatus;
    expect(after.status).toBeUndefined();
    expect(after.metadata?.resourceVersion).toBe(w.metadata?.resourceVersion);
  });
}
