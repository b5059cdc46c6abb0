import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, configMap, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

const KEY_RULE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const sortedCauses = (err: { causes: ReadonlyArray<{ field?: string; message?: string }> }) =>
  err.causes.map((c) => `${c.field}: ${c.message}`).sort();

/** Namespaces (admission), validation of metadata and data keys, Secret conversion, requests without a namespace. */
export function admissionTests(ctx: ConformanceContext): void {
  it('a namespaced object in a missing namespace is 404 NotFound; in a terminating one 403 Forbidden', async () => {
    const { api } = ctx.target;
    const missing = `missing-${Math.random().toString(36).slice(2, 10)}`;
    const err = await apiError(api.create(builtins.ConfigMap, configMap(missing, 'a')));
    expectStatus(err, {
      code: 404,
      reason: 'NotFound',
      message: `namespaces "${missing}" not found`,
      details: { name: missing, kind: 'namespaces' },
    });
    const held = await api.create(builtins.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { generateName: 'conformance-held-', finalizers: ['example.com/hold'] },
    } as KubeObject);
    const ns = held.metadata!.name!;
    const deleting = (await api.delete({ resource: builtins.Namespace, name: ns })) as KubeObject & {
      status?: { phase?: string };
    };
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    expect(deleting.status?.phase).toBe('Terminating');
    const got = (await api.get({ resource: builtins.Namespace, name: ns })) as KubeObject & {
      status?: { phase?: string };
    };
    expect(got.status?.phase).toBe('Terminating');
    const forbidden = await apiError(api.create(builtins.ConfigMap, configMap(ns, 'a')));
    expectStatus(forbidden, {
      code: 403,
      reason: 'Forbidden',
      message: `configmaps "a" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      details: {
        name: 'a',
        kind: 'configmaps',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${ns} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    });
  });

  it('an invalid annotation key is 422 Invalid with a metadata.annotations cause', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const obj = configMap(ns, 'b');
    obj.metadata!.annotations = { 'bad key!': 'x', 'example.com/fine': 'y' };
    const err = await apiError(api.create(builtins.ConfigMap, obj));
    const problem =
      "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    expectStatus(err, {
      code: 422,
      reason: 'Invalid',
      message: `ConfigMap "b" is invalid: metadata.annotations: ${problem}`,
      details: {
        name: 'b',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueInvalid', message: problem, field: 'metadata.annotations' }],
      },
    });
    await api.create(builtins.ConfigMap, configMap(ns, 'ok'));
    const patched = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'ok', namespace: ns },
        { metadata: { annotations: { '/x': 'y' } } },
        { type: 'merge' },
      ),
    );
    expect(patched.code).toBe(422);
    expect(patched.causes.map((c) => c.field)).toEqual(['metadata.annotations']);
  });

  it('ConfigMap data keys: invalid, reserved or duplicated in binaryData are 422 Invalid', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const bad = await apiError(
      api.create(builtins.ConfigMap, {
        ...configMap(ns, 'c', { data: { 'bad key!': 'x', good: 'y' } }),
        binaryData: { 'bad/': 'eA==' },
      } as KubeObject),
    );
    expectStatus(bad, { code: 422, reason: 'Invalid', details: { name: 'c', kind: 'ConfigMap' } });
    // Two causes, listed in the order the apiserver walked its maps.
    expect(bad.status?.message).toMatch(/^ConfigMap "c" is invalid: \[/);
    expect(sortedCauses(bad)).toEqual([
      `binaryData[bad/]: Invalid value: "bad/": ${KEY_RULE}`,
      `data[bad key!]: Invalid value: "bad key!": ${KEY_RULE}`,
    ]);
    expect(bad.causes.every((c) => c.reason === 'FieldValueInvalid')).toBe(true);
    const reserved = await apiError(
      api.create(builtins.ConfigMap, configMap(ns, 'c', { data: { '.': 'x', '..': 'y' } })),
    );
    expect(sortedCauses(reserved)).toEqual([
      `data[..]: Invalid value: "..": must not be '..'`,
      `data[.]: Invalid value: ".": must not be '.'`,
    ]);
    const duplicate = await apiError(
      api.create(builtins.ConfigMap, {
        ...configMap(ns, 'c', { data: { k: 'x' } }),
        binaryData: { k: 'eA==' },
      } as KubeObject),
    );
    expectStatus(duplicate, {
      code: 422,
      reason: 'Invalid',
      message:
        'ConfigMap "c" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData',
    });
    await api.create(builtins.ConfigMap, configMap(ns, 'c', { data: { 'key.name_1-x': 'ok' } }));
    const update = await apiError(
      api.patch(
        { resource: builtins.ConfigMap, name: 'c', namespace: ns },
        { data: { 'no spaces': 'x' } },
        { type: 'merge' },
      ),
    );
    expect(sortedCauses(update)).toEqual([`data[no spaces]: Invalid value: "no spaces": ${KEY_RULE}`]);
  });

  it('Secret data keys are validated; stringData is merged into data (base64) and the type defaults to Opaque', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const secret = (name: string, extra: Record<string, unknown>) =>
      ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, ...extra }) as KubeObject;
    const bad = await apiError(api.create(builtins.Secret, secret('b', { data: { 'bad key!': 'eA==' } })));
    expectStatus(bad, {
      code: 422,
      reason: 'Invalid',
      message: `Secret "b" is invalid: data[bad key!]: Invalid value: "bad key!": ${KEY_RULE}`,
      details: {
        name: 'b',
        kind: 'Secret',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "bad key!": ${KEY_RULE}`,
            field: 'data[bad key!]',
          },
        ],
      },
    });
    const badString = await apiError(
      api.create(builtins.Secret, secret('b', { stringData: { 'b b': 'x' } })),
    );
    expect(sortedCauses(badString)).toEqual([`data[b b]: Invalid value: "b b": ${KEY_RULE}`]);
    const s = (await api.create(
      builtins.Secret,
      secret('s', { data: { a: 'eA==', keep: 'eg==' }, stringData: { a: 'y', b: 'hello' } }),
    )) as KubeObject & { data?: unknown; stringData?: unknown; type?: string };
    expect(s.data).toEqual({ a: 'eQ==', b: 'aGVsbG8=', keep: 'eg==' });
    expect(s.stringData).toBeUndefined();
    expect(s.type).toBe('Opaque');
    const updated = (await api.patch(
      { resource: builtins.Secret, name: 's', namespace: ns },
      { stringData: { c: 'new' } },
      { type: 'merge' },
    )) as KubeObject & {
      data?: unknown;
    };
    expect(updated.data).toEqual({ a: 'eQ==', b: 'aGVsbG8=', c: 'bmV3', keep: 'eg==' });
  });

  it('a by-name request on a namespaced resource without a namespace: the typed verbs refuse before sending; the apiserver answers 404 (405 for a create)', async () => {
    const { api } = ctx.target;
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } as KubeObject;
    await expect(api.get({ resource: builtins.ConfigMap, name: 'x' })).rejects.toThrow(TypeError);
    await expect(api.create(builtins.ConfigMap, bare)).rejects.toThrow(TypeError);
    await expect(api.update(builtins.ConfigMap, bare)).rejects.toThrow(TypeError);
    await expect(
      api.patch({ resource: builtins.ConfigMap, name: 'x' }, { data: {} }, { type: 'merge' }),
    ).rejects.toThrow(TypeError);
    await expect(api.delete({ resource: builtins.ConfigMap, name: 'x' })).rejects.toThrow(
      'delete configmaps/x: ConfigMap is namespaced, so a namespace is required (set metadata.namespace or pass one)',
    );
    const notFound = {
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    };
    expectStatus(await apiError(api.request({ method: 'GET', path: '/api/v1/configmaps/x' })), notFound);
    expectStatus(await apiError(api.request({ method: 'DELETE', path: '/api/v1/configmaps/x' })), notFound);
    expectStatus(await apiError(api.request({ method: 'POST', path: '/api/v1/configmaps', body: bare })), {
      code: 405,
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    // Listing across namespaces is fine.
    expect(Array.isArray((await api.list(builtins.ConfigMap, { limit: 1 })).items)).toBe(true);
  });

  it('a write without a fieldManager is recorded under the client\'s name, "kubeloom" (the apiserver derives it from the User-Agent)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const created = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { k: 'v' } }));
    expect(created.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([
      ['kubeloom', 'Update'],
    ]);
  });

  it('a CRD whose name is not <plural>.<group> is 422 Invalid', async () => {
    const { api } = ctx.target;
    const crd = structuredClone(ctx.fx.ephemeralCrd);
    const name = `wrong.${ctx.fx.group}`;
    crd.metadata!.name = name;
    const problem = `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`;
    expectStatus(await apiError(api.create(builtins.CustomResourceDefinition, crd)), {
      code: 422,
      reason: 'Invalid',
      message: `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: metadata.name: ${problem}`,
      details: {
        name,
        group: 'apiextensions.k8s.io',
        kind: 'CustomResourceDefinition',
        causes: [{ reason: 'FieldValueInvalid', message: problem, field: 'metadata.name' }],
      },
    });
  });
}
