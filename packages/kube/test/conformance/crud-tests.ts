import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, type ConfigMapObject, configMap, expectStatus, rv } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

/** Create, get, update, delete; resourceVersion, uid, generateName, conflicts, finalizers, preconditions, dryRun. */
export function crudTests(ctx: ConformanceContext): void {
  const { group, Widget, widget } = ctx.fx;
  it('create fills uid, creationTimestamp, resourceVersion, kind and apiVersion; get returns the same object', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const created = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { k: 'v' } }));
    expect(created).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: ns },
      data: { k: 'v' },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(String(created.metadata?.creationTimestamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    rv(created);
    // ConfigMaps have no generation; custom resources start at 1.
    expect(created.metadata?.generation).toBeUndefined();
    const got = await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns });
    expect(got).toEqual(created);
    const w = await api.create(Widget, widget(ns, 'w', { spec: { size: 1 } }));
    expect(w.metadata?.generation).toBe(1);
  });

  it('resourceVersions increase with every write, across objects', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const b = await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    const a2 = await api.update(builtins.ConfigMap, { ...a, data: { x: '1' } } as KubeObject);
    expect(rv(b)).toBeGreaterThan(rv(a));
    expect(rv(a2)).toBeGreaterThan(rv(b));
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    expect(BigInt(list.metadata.resourceVersion!)).toBeGreaterThanOrEqual(rv(a2));
  });

  it('create of an existing name is 409 AlreadyExists', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const err = await apiError(api.create(builtins.ConfigMap, configMap(ns, 'a')));
    expect(err.reason).toBe('AlreadyExists');
    expectStatus(err, {
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "a" already exists',
      details: { name: 'a', kind: 'configmaps' },
    });
  });

  it('get of a missing object is 404 NotFound naming the resource (and group)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(api.get({ resource: builtins.ConfigMap, name: 'missing', namespace: ns }));
    expectStatus(err, {
      code: 404,
      reason: 'NotFound',
      message: 'configmaps "missing" not found',
      details: { name: 'missing', kind: 'configmaps' },
    });
    const grouped = await apiError(
      api.get({ resource: builtins.Deployment, name: 'missing', namespace: ns }),
    );
    expectStatus(grouped, {
      code: 404,
      reason: 'NotFound',
      message: 'deployments.apps "missing" not found',
      details: { name: 'missing', group: 'apps', kind: 'deployments' },
    });
  });

  it('update with a stale resourceVersion is 409 Conflict; without one it is unconditional for built-ins', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { v: '1' } }));
    await api.update(builtins.ConfigMap, { ...a, data: { v: '2' } } as KubeObject);
    const err = await apiError(api.update(builtins.ConfigMap, { ...a, data: { v: '3' } } as KubeObject));
    expectStatus(err, {
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'a', kind: 'configmaps' },
    });
    const unconditional = await api.update(builtins.ConfigMap, configMap(ns, 'a', { data: { v: '4' } }));
    expect(unconditional.data).toEqual({ v: '4' });
  });

  it('update of a custom resource without resourceVersion is 422 Invalid', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(Widget, widget(ns, 'w', { spec: { size: 1 } }));
    const err = await apiError(api.update(Widget, widget(ns, 'w', { spec: { size: 2 } })));
    expectStatus(err, {
      code: 422,
      reason: 'Invalid',
      message: `widgets.${group} "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
      details: {
        name: 'w',
        group: group,
        kind: 'widgets',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ],
      },
    });
    expect(err.causes).toHaveLength(1);
  });

  it('update of a missing object is 404', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(api.update(builtins.ConfigMap, configMap(ns, 'missing')));
    expectStatus(err, { code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' });
  });

  it('an update that changes nothing keeps the resourceVersion', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { v: '1' } }));
    const same = await api.update(builtins.ConfigMap, a);
    expect(same.metadata?.resourceVersion).toBe(a.metadata?.resourceVersion);
    const patched = await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      { data: { v: '1' } },
      { type: 'merge' },
    );
    expect(patched.metadata?.resourceVersion).toBe(a.metadata?.resourceVersion);
  });

  it('generateName appends five random characters', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-', namespace: ns },
    } as KubeObject;
    const a = await api.create(builtins.ConfigMap, obj);
    const b = await api.create(builtins.ConfigMap, obj);
    expect(a.metadata?.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a.metadata?.generateName).toBe('gen-');
    expect(b.metadata?.name).not.toBe(a.metadata?.name);
  });

  it('a missing or invalid name is 422 Invalid with a metadata.name cause', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const missing = await apiError(
      api.create(builtins.ConfigMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns },
      } as KubeObject),
    );
    expectStatus(missing, {
      code: 422,
      reason: 'Invalid',
      message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      details: {
        kind: 'ConfigMap',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: name or generateName is required',
            field: 'metadata.name',
          },
        ],
      },
    });
    const bad = await apiError(api.create(builtins.ConfigMap, configMap(ns, 'Bad_Name')));
    expect(bad.code).toBe(422);
    expect(bad.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(bad.status?.message).toContain(
      'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );
  });

  it('delete answers a Success Status and the object is gone; deleting again is 404', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const res = await api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: ns });
    expect(res).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'a', kind: 'configmaps', uid: a.metadata?.uid },
    });
    expect((await apiError(api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns }))).code).toBe(
      404,
    );
    expect(
      (await apiError(api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: ns }))).reason,
    ).toBe('NotFound');
  });

  it('delete preconditions on uid and resourceVersion are 409 Conflict', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const uid = await apiError(
      api.delete(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { preconditions: { uid: 'not-the-uid' } },
      ),
    );
    expectStatus(uid, {
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (not-the-uid) does not match the UID in record (${a.metadata?.uid}). The object might have been deleted and then recreated`,
      details: { name: 'a', kind: 'ConfigMap' },
    });
    const version = await apiError(
      api.delete(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { preconditions: { resourceVersion: '1' } },
      ),
    );
    expectStatus(version, {
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${a.metadata?.resourceVersion}). The object might have been modified`,
    });
    await api.delete(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      {
        preconditions: { uid: a.metadata!.uid!, resourceVersion: a.metadata!.resourceVersion! },
      },
    );
  });

  it('finalizers: delete sets deletionTimestamp; removing the last finalizer deletes the object', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const obj = configMap(ns, 'f');
    obj.metadata!.finalizers = ['example.com/hold'];
    await api.create(builtins.ConfigMap, obj);
    const marked = (await api.delete({
      resource: builtins.ConfigMap,
      name: 'f',
      namespace: ns,
    })) as KubeObject;
    expect(marked.kind).toBe('ConfigMap');
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    expect(marked.metadata?.deletionGracePeriodSeconds).toBe(0);
    expect(marked.metadata?.finalizers).toEqual(['example.com/hold']);
    const again = (await api.delete({
      resource: builtins.ConfigMap,
      name: 'f',
      namespace: ns,
    })) as KubeObject;
    expect(again.metadata?.resourceVersion).toBe(marked.metadata?.resourceVersion);
    const stillThere = await api.get({ resource: builtins.ConfigMap, name: 'f', namespace: ns });
    expect(stillThere.metadata?.deletionTimestamp).toBeDefined();
    // No new finalizer may be added while deleting.
    const add = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'f', namespace: ns },
        { metadata: { finalizers: ['example.com/hold', 'example.com/other'] } },
        { type: 'merge' },
      ),
    );
    expect(add.code).toBe(422);
    expect(add.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'metadata.finalizers' });
    const last = await api.patch(
      { resource: builtins.ConfigMap, name: 'f', namespace: ns },
      { metadata: { finalizers: null } },
      { type: 'merge' },
    );
    expect(last.metadata?.finalizers).toBeUndefined();
    expect((await apiError(api.get({ resource: builtins.ConfigMap, name: 'f', namespace: ns }))).code).toBe(
      404,
    );
  });

  it('propagationPolicy Foreground and Orphan hold the object with their finalizers (no garbage collector runs)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'fg'));
    await api.create(builtins.ConfigMap, configMap(ns, 'or'));
    const fg = (await api.delete(
      { resource: builtins.ConfigMap, name: 'fg', namespace: ns },
      {
        propagationPolicy: 'Foreground',
      },
    )) as KubeObject;
    expect(fg.metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect(fg.metadata?.deletionTimestamp).toBeDefined();
    const or = (await api.delete(
      { resource: builtins.ConfigMap, name: 'or', namespace: ns },
      {
        propagationPolicy: 'Orphan',
      },
    )) as KubeObject;
    expect(or.metadata?.finalizers).toEqual(['orphan']);
    await api.patch(
      { resource: builtins.ConfigMap, name: 'fg', namespace: ns },
      { metadata: { finalizers: null } },
      { type: 'merge' },
    );
    expect((await apiError(api.get({ resource: builtins.ConfigMap, name: 'fg', namespace: ns }))).code).toBe(
      404,
    );
  });

  it('deleting a custom resource with a finalizer bumps its generation', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(
      Widget,
      widget(ns, 'w', { metadata: { name: 'w', namespace: ns, finalizers: ['example.com/hold'] } }),
    );
    const marked = (await api.delete({ resource: Widget, name: 'w', namespace: ns })) as KubeObject;
    expect(marked.metadata?.generation).toBe(2);
    await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      { type: 'json' },
    );
    expect((await apiError(api.get({ resource: Widget, name: 'w', namespace: ns }))).code).toBe(404);
  });

  it('dryRun=All validates without persisting', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const dry = await api.create(
      builtins.ConfigMap,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'dry-', namespace: ns },
      } as KubeObject,
      {
        dryRun: 'All',
      },
    );
    expect(dry.metadata?.name).toMatch(/^dry-/);
    expect(dry.metadata?.uid).toBeDefined();
    expect(dry.metadata?.resourceVersion).toBeUndefined();
    expect(
      (await apiError(api.get({ resource: builtins.ConfigMap, name: dry.metadata!.name!, namespace: ns })))
        .code,
    ).toBe(404);
    const real = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { v: '1' } }));
    const dryUpdate = await api.update(builtins.ConfigMap, { ...real, data: { v: '2' } } as ConfigMapObject, {
      dryRun: 'All',
    });
    expect(dryUpdate.data).toEqual({ v: '2' });
    expect((await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns })).data).toEqual({
      v: '1',
    });
    await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      { data: { v: '3' } },
      { type: 'merge', dryRun: 'All' },
    );
    await api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: ns }, { dryRun: 'All' });
    const after = await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns });
    expect(after.data).toEqual({ v: '1' });
    expect(after.metadata?.resourceVersion).toBe(real.metadata?.resourceVersion);
  });

  it('objects passed in and returned are copies: mutating them does not change the server', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const input = configMap(ns, 'a', { data: { v: '1' } });
    const a = (await api.create(builtins.ConfigMap, input)) as KubeObject & {
      data: Record<string, string>;
    };
    input.data!.v = 'input mutated';
    a.data.v = 'mutated';
    const got = (await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: ns })) as KubeObject & {
      data: Record<string, string>;
    };
    expect(got.data.v).toBe('1');
  });
}
