/**
 * The examples of the README and the API docs, compiled and run: each `// #region` is copied into
 * README.md (`pnpm check:readme` keeps them equal) and pulled into doc comments with
 * `{@includeCode}`. They run against the fake cluster; the same code runs against a real one with
 * `createKubeClient()` instead of `createFakeKubeClient()`.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from './api.ts';
import { builtins } from './builtins.ts';
import type { KubeClient } from './client.ts';
import { createKubeClient } from './create-kube-client.ts';
import { createUnionInformer } from './create-union-informer.ts';
import { ignoreNotFound, isNotFound } from './errors.ts';
import { createFakeKubeClient } from './fake/create-fake-kube-client.ts';
import { createFakeApiClient } from './fake/fake-api-client.ts';
import { extractTombstone } from './informer.ts';
import { noopLogger } from './logger.ts';

const pod = (name: string, app: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'prod', labels: { app } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

// #region informer
async function watchWebPods(kube: KubeClient, signal: AbortSignal) {
  // Construction: no I/O. One list/watch per (resource, namespace, selectors), however many ask.
  const pods = kube.informer(builtins.Pod, { namespace: 'prod', labelSelector: 'app=web' });
  const seen: string[] = [];
  pods.addEventHandler({
    onAdd: (pod, isInInitialList) => seen.push(`add ${pod.metadata?.name} ${isInInitialList}`),
    onUpdate: (_old, pod) => seen.push(`update ${pod.metadata?.name}`),
    onDelete: (podOrTombstone) => seen.push(`delete ${extractTombstone(podOrTombstone).metadata?.name}`),
  });
  // Run: start every informer registered so far; resolves true once all have synced.
  await kube.runAndWait(signal);
  const cached = pods.store.byNamespace('prod'); // frozen objects, without managedFields
  const { state, synced, relists } = pods.health();
  return { seen, cached, state, synced, relists };
}
// #endregion informer

// #region union
async function watchTeamConfigMaps(kube: KubeClient, signal: AbortSignal) {
  // RBAC covers team-a and team-b, not the cluster: one list/watch per namespace, one cache.
  await using configMaps = createUnionInformer({
    kube,
    resource: builtins.ConfigMap,
    members: [{ namespace: 'team-a' }, { namespace: 'team-b' }],
  });
  configMaps.store.addIndexer('app', (cm) => [cm.metadata?.labels?.app ?? '']);
  await kube.runAndWait(signal); // starts the members like any other informer
  await configMaps.waitUntilSynced(signal);
  const before = configMaps.store.byIndex('app', 'web').map((cm) => cm.metadata?.name);
  // The scopes can change at run time: team-c's objects arrive as adds, team-a's leave as deletes.
  configMaps.setMembers([{ namespace: 'team-b' }, { namespace: 'team-c' }]);
  await configMaps.waitForMembers(signal); // the union stays synced meanwhile
  const after = configMaps.store.byIndex('app', 'web').map((cm) => cm.metadata?.name);
  return { before: before.sort(), after: after.sort() };
}
// #endregion union

// #region errors
async function podPhase(api: ApiClient, name: string): Promise<string> {
  // Typed errors: ignoreNotFound turns a 404 into undefined, isNotFound tests any error.
  const found = await ignoreNotFound(api.get({ resource: builtins.Pod, name, namespace: 'prod' }));
  if (!found) return 'absent';
  try {
    await api.get({ resource: builtins.Pod, name: `${name}-sidecar`, namespace: 'prod' });
    return 'with sidecar';
  } catch (err) {
    if (isNotFound(err)) return 'present';
    throw err;
  }
}
// #endregion errors

describe('@kubeloom/kube examples', () => {
  it('informer: handlers see the initial list, the store holds it, health reports it', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Pod, pod('web-1', 'web'));
    await kube.api.create(builtins.Pod, pod('db-1', 'db'));
    const stop = new AbortController();
    const result = await watchWebPods(kube, stop.signal);
    expect(result.seen).toEqual(['add web-1 true']);
    expect(result.cached.map((p) => p.metadata?.name)).toEqual(['web-1']);
    expect(Object.isFrozen(result.cached[0])).toBe(true);
    expect(result).toMatchObject({ synced: true, relists: 0 });
    expect(result.state).not.toBe('stopped');
    stop.abort();
  });

  it('union: one cache over several namespaces, whose set changes at run time', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    for (const namespace of ['team-a', 'team-b', 'team-c', 'team-d']) {
      await kube.api.create(builtins.ConfigMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `web-${namespace}`, namespace, labels: { app: 'web' } },
      });
    }
    const stop = new AbortController();
    expect(await watchTeamConfigMaps(kube, stop.signal)).toEqual({
      before: ['web-team-a', 'web-team-b'],
      after: ['web-team-b', 'web-team-c'],
    });
    // Disposed with the scope: the members only the union used are stopped and forgotten.
    expect(kube.informers()).toEqual([]);
    stop.abort();
  });

  it('errors: 404 as undefined and as a predicate', async () => {
    await using api = createFakeApiClient();
    await api.create(builtins.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
    expect(await podPhase(api, 'web-1')).toBe('absent');
    await api.create(builtins.Pod, pod('web-1', 'web'));
    expect(await podPhase(api, 'web-1')).toBe('present');
  });

  it('patch: one shape, the object, the data and options with the patch type', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'default' },
    });
    await kube.api.create(builtins.Pod, pod('web-1', 'web'));
    // #region patch
    await kube.api.patch(
      { resource: builtins.ConfigMap, name: 'settings', namespace: 'default' },
      { data: { a: '1' } },
      { type: 'merge' },
    );
    await kube.api.patch(
      { resource: builtins.Pod, name: 'web-1', namespace: 'prod' },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1' }, status: { phase: 'Running' } },
      {
        type: 'apply', // 'merge' (RFC 7386) | 'json' (RFC 6902) | 'strategic' (built-in kinds) | 'apply'
        fieldManager: 'my-controller',
        force: true,
        subresource: 'status',
      },
    );
    // #endregion patch
    expect(
      (await kube.api.get({ resource: builtins.ConfigMap, name: 'settings', namespace: 'default' })).data,
    ).toEqual({ a: '1' });
    expect(
      (await kube.api.get({ resource: builtins.Pod, name: 'web-1', namespace: 'prod' })).status?.phase,
    ).toBe('Running');
  });

  it('over any ApiClient: createKubeClient({ api }) loads no kubeconfig', async () => {
    // #region over-api
    const api = createFakeApiClient(); // or a wrapped createApiClient(), or your own ApiClient
    await using kube = createKubeClient({ api, logger: noopLogger });
    const namespaces = kube.informer(builtins.Namespace);
    await kube.api.create(builtins.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
    });
    // #endregion over-api
    const stop = new AbortController();
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    expect(namespaces.store.list().map((ns) => ns.metadata?.name)).toContain('team-a');
    expect(kube.kubeConfig).toBeUndefined();
    stop.abort();
  });
});
