import { describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { isNotFound } from './errors.ts';
import { createFakeApiClient } from './fake/fake-api-client.ts';
import type { ObservedRequest } from './request-observer.ts';

describe('requestObserver', () => {
  it('reports every verb with its resource, method and status code', async () => {
    const seen: ObservedRequest[] = [];
    await using kube = createKubeClient({ api: createFakeApiClient(), requestObserver: (r) => seen.push(r) });
    const { api } = kube;
    const cm = { metadata: { name: 'a', namespace: 'default' }, data: { x: '1' } };
    await api.create(builtins.ConfigMap, cm);
    await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'default' });
    await expect(
      api.get({ resource: builtins.ConfigMap, name: 'missing', namespace: 'default' }),
    ).rejects.toSatisfy(isNotFound);
    await api.list(builtins.Deployment, { namespace: 'default' });
    await api.patch(
      { resource: builtins.ConfigMap, name: 'a', namespace: 'default' },
      { data: { x: '2' } },
      { type: 'merge' },
    );
    const stop = new AbortController();
    const events = api.watch(builtins.ConfigMap, { namespace: 'default', signal: stop.signal });
    for await (const _ of events) break; // the synthetic ADDED of `a`
    await api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: 'default' });
    stop.abort();
    expect(seen.map((r) => `${r.verb} ${r.method} ${r.resource} ${r.code}`)).toEqual([
      'create POST configmaps 201',
      'get GET configmaps 200',
      'get GET configmaps 404',
      'list GET deployments.apps 200',
      'patch PATCH configmaps 200',
      'watch GET configmaps 200',
      'delete DELETE configmaps 200',
    ]);
    for (const r of seen) expect(r.durationSeconds).toBeGreaterThanOrEqual(0);
  });

  it('is not affected by an observer that throws', async () => {
    await using kube = createKubeClient({
      api: createFakeApiClient(),
      requestObserver: () => {
        throw new Error('observer bug');
      },
    });
    await expect(kube.api.list(builtins.ConfigMap, {})).resolves.toMatchObject({ items: [] });
  });
});
