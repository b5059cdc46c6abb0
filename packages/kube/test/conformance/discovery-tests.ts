import { waitFor } from '@kubeloom/testing';
import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

interface ResourceList {
  kind: string;
  groupVersion: string;
  resources: Array<{
    name: string;
    namespaced: boolean;
    kind: string;
    verbs: string[];
    shortNames?: string[];
    singularName?: string;
  }>;
}

/** Discovery of built-ins and of CRDs; unknown resources. */
export function discoveryTests(ctx: ConformanceContext): void {
  const { Ephemeral, ephemeralCrd, group } = ctx.fx;
  it('serves /version, /api, /api/v1, /apis and /apis/<group>/<version>', async () => {
    const { api } = ctx.target;
    const version = await api.request<{ major: string; minor: string; gitVersion: string }>({
      method: 'GET',
      path: '/version',
    });
    expect(version.major).toBe('1');
    expect(version.minor).toMatch(/^\d+$/);
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    const core = await api.request<{ kind: string; versions: string[] }>({ method: 'GET', path: '/api' });
    expect(core).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const v1 = await api.request<ResourceList>({ method: 'GET', path: '/api/v1' });
    expect(v1).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    expect(v1.resources.find((r) => r.name === 'configmaps')).toMatchObject({
      namespaced: true,
      kind: 'ConfigMap',
      singularName: 'configmap',
    });
    expect(v1.resources.find((r) => r.name === 'namespaces')).toMatchObject({
      namespaced: false,
      kind: 'Namespace',
    });
    expect(v1.resources.find((r) => r.name === 'pods/status')).toMatchObject({
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
    const groups = await api.request<{
      kind: string;
      groups: Array<{ name: string; preferredVersion: { groupVersion: string } }>;
    }>({
      method: 'GET',
      path: '/apis',
    });
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups.find((g) => g.name === 'apps')?.preferredVersion.groupVersion).toBe('apps/v1');
    const apps = await api.request<ResourceList>({ method: 'GET', path: '/apis/apps/v1' });
    expect(apps.resources.find((r) => r.name === 'deployments')).toMatchObject({
      namespaced: true,
      kind: 'Deployment',
    });
    expect(apps.resources.find((r) => r.name === 'deployments/scale')).toMatchObject({ kind: 'Scale' });
  });

  it('serves the resources of a CRD once created (scope, status subresource, short names) and stops when it is deleted', async () => {
    const { api, newNamespace, installCrd, uninstallCrd } = ctx.target;
    const ns = await newNamespace();
    await installCrd(ephemeralCrd);
    const crd = await api.get({ resource: builtins.CustomResourceDefinition, name: `ephemerals.${group}` });
    const conditions =
      (crd as KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }).status
        ?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'Established')?.status).toBe('True');
    const list = await api.request<ResourceList>({ method: 'GET', path: `/apis/${group}/v1` });
    expect(list.resources.find((r) => r.name === 'ephemerals')).toMatchObject({
      namespaced: true,
      kind: 'Ephemeral',
      singularName: 'ephemeral',
    });
    expect(list.resources.find((r) => r.name === 'ephemerals/status')).toBeDefined();
    const groups = await api.request<{ groups: Array<{ name: string }> }>({ method: 'GET', path: '/apis' });
    expect(groups.groups.map((g) => g.name)).toContain(group);
    await api.create(Ephemeral, {
      apiVersion: `${group}/v1`,
      kind: 'Ephemeral',
      metadata: { name: 'e', namespace: ns },
    } as KubeObject);
    await uninstallCrd(`ephemerals.${group}`);
    await waitFor('discovery and the API to forget the uninstalled CRD', async () => {
      const after = await api.request<ResourceList>({ method: 'GET', path: `/apis/${group}/v1` });
      expect(after.resources.find((r) => r.name === 'ephemerals')).toBeUndefined();
      const gone = await apiError(api.list(Ephemeral, { namespace: ns }));
      expect(gone.code).toBe(404);
      expect(gone.reason).toBe('NotFound');
      return true;
    });
  });

  it('a resource that is not served is 404 NotFound', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const unknown = {
      group: 'nowhere.kubeloom.dev',
      version: 'v1',
      kind: 'Nothing',
      plural: 'nothings',
      namespaced: true,
    };
    // A group/version nobody serves: the apiserver's mux answers plain text, not a Status.
    const err = await apiError(api.get({ resource: unknown, name: 'x', namespace: ns }));
    expect(err.code).toBe(404);
    expect(err.reason).toBe('NotFound');
    expect(err.status?.message).toBe('404 page not found\n');
    expect((await apiError(api.request({ method: 'GET', path: '/apis/nowhere.kubeloom.dev/v1' }))).code).toBe(
      404,
    );
    // A served group/version without that resource: a NotFound Status.
    const inServed = await apiError(
      api.get({ resource: { ...unknown, group: 'apps' }, name: 'x', namespace: ns }),
    );
    expectStatus(inServed, {
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
      details: {},
    });
  });
}
