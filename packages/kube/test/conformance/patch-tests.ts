import type { V1Deployment } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, configMap, deployment, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

type Container = {
  name: string;
  image?: string;
  env?: Array<{ name: string; value?: string }>;
  ports?: unknown[];
};
type Dep = KubeObject & { spec: { template: { spec: { containers: Container[] } } } };

/** Merge patch, JSON patch, strategic merge patch. */
export function patchTests(ctx: ConformanceContext): void {
  const { Widget, widget } = ctx.fx;
  it('merge patch (RFC 7386): objects merge, null deletes, lists replace', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(
      builtins.ConfigMap,
      configMap(ns, 'a', { data: { keep: '1', drop: '2' }, labels: { x: 'y' } }),
    );
    const patched = (await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      { data: { drop: null, add: '3' }, metadata: { labels: { z: 'w' } } },
      { type: 'merge' },
    )) as KubeObject & {
      data: Record<string, string>;
    };
    expect(patched.data).toEqual({ keep: '1', add: '3' });
    expect(patched.metadata?.labels).toEqual({ x: 'y', z: 'w' });
  });

  it('merge patch of a missing object is 404', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'missing', namespace: ns },
        { data: { a: 'b' } },
        { type: 'merge' },
      ),
    );
    expectStatus(err, { code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' });
  });

  it('a patch carrying a stale resourceVersion is 409 Conflict', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      { data: { v: '1' } },
      { type: 'merge' },
    );
    const err = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { metadata: { resourceVersion: a.metadata?.resourceVersion }, data: { v: '2' } },
        { type: 'merge' },
      ),
    );
    expect(err.reason).toBe('Conflict');
  });

  it('JSON patch (RFC 6902): add, replace, remove, copy, move, and test', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { one: '1', two: '2' } }));
    const patched = (await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: ns },
      [
        { op: 'test', path: '/data/one', value: '1' },
        { op: 'add', path: '/data/three', value: '3' },
        { op: 'replace', path: '/data/one', value: 'uno' },
        { op: 'remove', path: '/data/two' },
        { op: 'copy', from: '/data/three', path: '/data/copied' },
        { op: 'move', from: '/data/copied', path: '/data/moved' },
      ],
      { type: 'json' },
    )) as KubeObject & { data: Record<string, string> };
    expect(patched.data).toEqual({ one: 'uno', three: '3', moved: '3' });
    // Pointer escapes: ~1 is '/', ~0 is '~' (on a custom resource, whose spec accepts any key).
    await api.create(Widget, widget(ns, 'w'));
    const escaped = (await api.patch(
      { resource: Widget, name: 'w', namespace: ns },
      [{ op: 'add', path: '/spec/a~0b~1c', value: 1 }],
      { type: 'json' },
    )) as KubeObject & { spec: unknown };
    expect(escaped.spec).toEqual({ 'a~b/c': 1 });
  });

  it('an invalid label key or value is 422 Invalid with a metadata.labels cause', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const err = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { metadata: { labels: { 'a~b/c': 'x' } } },
        { type: 'merge' },
      ),
    );
    expect(err.code).toBe(422);
    expect(err.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.labels' });
    expect(err.status?.message).toMatch(
      /^ConfigMap "a" is invalid: metadata.labels: Invalid value: "a~b\/c": prefix part a lowercase RFC 1123 subdomain/,
    );
    const value = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { metadata: { labels: { ok: 'bad value!' } } },
        { type: 'merge' },
      ),
    );
    expect(value.code).toBe(422);
    expect(value.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          "Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        field: 'metadata.labels',
      },
    ]);
  });

  it('a failing JSON patch test, or a path that does not exist, is 422 Invalid', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { one: '1' } }));
    const failed = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        [{ op: 'test', path: '/data/one', value: 'other' }],
        { type: 'json' },
      ),
    );
    expectStatus(failed, {
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
    const missing = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        [{ op: 'remove', path: '/data/none' }],
        { type: 'json' },
      ),
    );
    expect(missing.code).toBe(422);
  });

  it('strategic merge patch merges containers, env and ports by key, and $patch: delete removes an item', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.Deployment, deployment(ns, 'd'));
    const patched = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'example/main:2',
                  env: [{ name: 'B', value: '2' }],
                  ports: [{ containerPort: 8080 }],
                },
                { name: 'side', $patch: 'delete' },
                { name: 'extra', image: 'example/extra:1' },
              ],
            },
          },
        },
      },
      { type: 'strategic' },
    )) as Dep;
    const containers = patched.spec.template.spec.containers;
    expect(containers.map((c) => c.name).sort()).toEqual(['extra', 'main']);
    const main = containers.find((c) => c.name === 'main')!;
    expect(main.image).toBe('example/main:2');
    expect(main.env?.map((e) => e.name).sort()).toEqual(['A', 'B']);
    expect(main.ports).toHaveLength(2);
  });

  it('strategic merge patch of a custom resource is 415 UnsupportedMediaType', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(Widget, widget(ns, 'w'));
    const err = await apiError(
      api.patch({ resource: Widget, name: 'w', namespace: ns }, { spec: { a: 1 } }, { type: 'strategic' }),
    );
    expectStatus(err, {
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    // A descriptor that says so is refused by the typed verb before sending.
    await expect(
      api.patch(
        { resource: { ...Widget, strategicMergePatch: false }, name: 'w', namespace: ns },
        { spec: { a: 1 } },
        { type: 'strategic' },
      ),
    ).rejects.toThrow(TypeError);
  });

  it('strategic merge patch: pod conditions by type, ownerReferences by uid, finalizers as a set; new items go first unless the server listed them first', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'example/c:1' }] },
    } as KubeObject);
    const conditions = (list: unknown[]) => ({ status: { conditions: list } });
    await api.patch(
      { resource: builtins.Pod, name: 'p', namespace: ns },
      conditions([
        { type: 'A', status: 'True' },
        { type: 'B', status: 'False' },
      ]),
      { type: 'strategic', subresource: 'status' },
    );
    const pod = (await api.patch(
      { resource: builtins.Pod, name: 'p', namespace: ns },
      conditions([
        { type: 'B', status: 'True' },
        { type: 'C', status: 'True' },
      ]),
      { type: 'strategic', subresource: 'status' },
    )) as KubeObject & { status: { conditions: Array<{ type: string; status: string }> } };
    expect(pod.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['A=True', 'B=True', 'C=True']);
    const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${uid}`, uid });
    const c = configMap(ns, 'c');
    c.metadata!.ownerReferences = [owner('u1')];
    c.metadata!.finalizers = ['a.example.com/x'];
    await api.create(builtins.ConfigMap, c);
    const merged = await api.patch(
      { resource: builtins.ConfigMap, name: 'c', namespace: ns },
      { metadata: { ownerReferences: [owner('u2')], finalizers: ['b.example.com/y'] } },
      { type: 'strategic' },
    );
    expect(merged.metadata?.ownerReferences?.map((o) => o.uid)).toEqual(['u2', 'u1']);
    expect(merged.metadata?.finalizers).toEqual(['b.example.com/y', 'a.example.com/x']);
    const again = await api.patch(
      { resource: builtins.ConfigMap, name: 'c', namespace: ns },
      {
        metadata: { finalizers: ['a.example.com/x'], ownerReferences: [{ ...owner('u1'), name: 'renamed' }] },
      },
      { type: 'strategic' },
    );
    expect(again.metadata?.finalizers).toEqual(['b.example.com/y', 'a.example.com/x']);
    expect(again.metadata?.ownerReferences?.map((o) => `${o.uid}=${o.name}`)).toEqual([
      'u2=owner-u2',
      'u1=renamed',
    ]);
    const removed = await api.patch(
      { resource: builtins.ConfigMap, name: 'c', namespace: ns },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b.example.com/y'] } },
      { type: 'strategic' },
    );
    expect(removed.metadata?.finalizers).toEqual(['a.example.com/x']);
  });

  it('strategic merge patch: volumes and imagePullSecrets by name; $setElementOrder orders a list; $retainKeys clears unlisted keys', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const d = deployment(ns, 'd') as V1Deployment;
    d.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    d.spec!.template.spec!.volumes = [{ name: 'v1', emptyDir: {} }];
    d.spec!.template.spec!.imagePullSecrets = [{ name: 's1' }];
    await api.create(builtins.Deployment, d);
    type Patched = Dep & {
      spec: {
        strategy: unknown;
        template: { spec: { volumes: Array<{ name: string }>; imagePullSecrets: Array<{ name: string }> } };
      };
    };
    const merged = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      {
        spec: {
          template: { spec: { volumes: [{ name: 'v2', emptyDir: {} }], imagePullSecrets: [{ name: 's2' }] } },
        },
      },
      { type: 'strategic' },
    )) as Patched;
    expect(merged.spec.template.spec.volumes.map((v) => v.name)).toEqual(['v2', 'v1']);
    expect(merged.spec.template.spec.imagePullSecrets.map((v) => v.name)).toEqual(['s2', 's1']);
    const plain = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      { spec: { template: { spec: { containers: [{ name: 'main', image: 'example/main:2' }] } } } },
      { type: 'strategic' },
    )) as Patched;
    expect(plain.spec.template.spec.containers.map((c) => c.name)).toEqual(['main', 'side']);
    const ordered = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'side' }, { name: 'main' }],
              containers: [{ name: 'main', image: 'example/main:3' }],
            },
          },
        },
      },
      { type: 'strategic' },
    )) as Patched;
    expect(ordered.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'side=example/side:1',
      'main=example/main:3',
    ]);
    const retained = (await api.patch(
      { resource: builtins.Deployment, name: 'd', namespace: ns },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { type: 'strategic' },
    )) as Patched;
    expect(retained.spec.strategy).toEqual({ type: 'Recreate' });
  });
}
