import { expect, it } from 'vitest';
import { builtins } from '../builtins.ts';
import type { KubeObject } from '../object.ts';
import { apiError, configMap, deployment, expectStatus, Widget, widget } from './fixtures.ts';
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
  it('merge patch (RFC 7386): objects merge, null deletes, lists replace', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a', { keep: '1', drop: '2' }, { x: 'y' }));
    const patched = (await api.patch(
      builtins.ConfigMap,
      'a',
      ns,
      { data: { drop: null, add: '3' }, metadata: { labels: { z: 'w' } } },
      'merge',
    )) as KubeObject & {
      data: Record<string, string>;
    };
    expect(patched.data).toEqual({ keep: '1', add: '3' });
    expect(patched.metadata?.labels).toEqual({ x: 'y', z: 'w' });
  });

  it('merge patch of a missing object is 404', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(api.patch(builtins.ConfigMap, 'missing', ns, { data: { a: 'b' } }, 'merge'));
    expectStatus(err, { code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' });
  });

  it('a patch carrying a stale resourceVersion is 409 Conflict', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.patch(builtins.ConfigMap, 'a', ns, { data: { v: '1' } }, 'merge');
    const err = await apiError(
      api.patch(
        builtins.ConfigMap,
        'a',
        ns,
        { metadata: { resourceVersion: a.metadata?.resourceVersion }, data: { v: '2' } },
        'merge',
      ),
    );
    expect(err.reason).toBe('Conflict');
  });

  it('JSON patch (RFC 6902): add, replace, remove, copy, move, and test', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a', { one: '1', two: '2' }));
    const patched = (await api.patch(
      builtins.ConfigMap,
      'a',
      ns,
      [
        { op: 'test', path: '/data/one', value: '1' },
        { op: 'add', path: '/data/three', value: '3' },
        { op: 'replace', path: '/data/one', value: 'uno' },
        { op: 'remove', path: '/data/two' },
        { op: 'copy', from: '/data/three', path: '/data/copied' },
        { op: 'move', from: '/data/copied', path: '/data/moved' },
      ],
      'json',
    )) as KubeObject & { data: Record<string, string> };
    expect(patched.data).toEqual({ one: 'uno', three: '3', moved: '3' });
    // Pointer escapes: ~1 is '/', ~0 is '~' (on a custom resource, whose spec accepts any key).
    await api.create(Widget, widget(ns, 'w', {}));
    const escaped = (await api.patch(
      Widget,
      'w',
      ns,
      [{ op: 'add', path: '/spec/a~0b~1c', value: 1 }],
      'json',
    )) as KubeObject & { spec: unknown };
    expect(escaped.spec).toEqual({ 'a~b/c': 1 });
  });

  it('an invalid label is 422 Invalid with a metadata.labels cause', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    const err = await apiError(
      api.patch(builtins.ConfigMap, 'a', ns, { metadata: { labels: { 'a~b/c': 'x' } } }, 'merge'),
    );
    expect(err.code).toBe(422);
    expect(err.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.labels' });
    expect(err.status?.message).toMatch(
      /^ConfigMap "a" is invalid: metadata.labels: Invalid value: "a~b\/c": prefix part a lowercase RFC 1123 subdomain/,
    );
  });

  it('a failing JSON patch test, or a path that does not exist, is 422 Invalid', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a', { one: '1' }));
    const failed = await apiError(
      api.patch(builtins.ConfigMap, 'a', ns, [{ op: 'test', path: '/data/one', value: 'other' }], 'json'),
    );
    expectStatus(failed, {
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
    const missing = await apiError(
      api.patch(builtins.ConfigMap, 'a', ns, [{ op: 'remove', path: '/data/none' }], 'json'),
    );
    expect(missing.code).toBe(422);
  });

  it('strategic merge patch merges containers, env and ports by key, and $patch: delete removes an item', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.Deployment, deployment(ns, 'd'));
    const patched = (await api.patch(
      builtins.Deployment,
      'd',
      ns,
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
      'strategic',
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
    const err = await apiError(api.patch(Widget, 'w', ns, { spec: { a: 1 } }, 'strategic'));
    expectStatus(err, {
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });
}
