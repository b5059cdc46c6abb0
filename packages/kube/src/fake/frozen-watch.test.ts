/**
 * The fake's frozen watch (the informer's, without a copy per event): the informer gets the
 * stored objects frozen and shared, a custom transform still gets its own mutable copy, and a
 * wrapper that replaces `watch` is not bypassed.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ApiClient, WatchEvent } from '../api.ts';
import { builtins } from '../builtins.ts';
import { createKubeClient } from '../create-kube-client.ts';
import { noopLogger } from '../logger.ts';
import type { KubeObject } from '../object.ts';
import { createFakeKubeClient } from './create-fake-kube-client.ts';
import { createFakeApiClient } from './fake-api-client.ts';

const cm = (name: string, value: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { value },
});

/** Resolves once `check` holds, polling each macrotask (bounded). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

describe('fake cluster: frozen watch', () => {
  it('delivers watch events to the informer frozen, without managedFields, and the store stays intact', async () => {
    const stop = new AbortController();
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const informer = kube.informer(builtins.ConfigMap);
    await kube.runAndWait(stop.signal);
    await kube.api.patch({ resource: builtins.ConfigMap, name: 'a', namespace: 'default' }, cm('a', '1'), {
      type: 'apply',
      fieldManager: 'test',
    });
    await until(() => informer.store.get('default/a') !== undefined);
    const cached = informer.store.get('default/a')!;
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(cached.data)).toBe(true);
    expect(cached.metadata?.managedFields).toBeUndefined();
    expect(() => {
      (cached.data as Record<string, string>).value = 'changed';
    }).toThrow(TypeError);
    const stored = kube.cluster.getObject(builtins.ConfigMap, 'a', 'default')!;
    expect(stored.data).toEqual({ value: '1' });
    expect(stored.metadata?.managedFields?.[0]?.manager).toBe('test');
    stop.abort();
  });

  it('gives a custom transform a mutable copy of each event', async () => {
    const stop = new AbortController();
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const informer = kube.informer(builtins.ConfigMap, {
      transform: {
        name: 'mark-seen',
        fn: (o) => {
          (o as V1ConfigMap).data = { ...(o as V1ConfigMap).data, seen: 'yes' };
          return o;
        },
      },
    });
    await kube.runAndWait(stop.signal);
    await kube.api.create(builtins.ConfigMap, cm('b', '2'));
    await until(() => informer.store.get('default/b') !== undefined);
    expect(informer.store.get('default/b')?.data).toEqual({ value: '2', seen: 'yes' });
    expect(kube.cluster.getObject(builtins.ConfigMap, 'b', 'default')?.data).toEqual({ value: '2' });
    stop.abort();
  });

  it('does not bypass a wrapper that replaces watch', async () => {
    const stop = new AbortController();
    const fake = createFakeApiClient();
    let wrapped = 0;
    const api: ApiClient = {
      ...fake,
      watch: ((resource, opts) => {
        const inner = fake.watch(resource, opts);
        return {
          async *[Symbol.asyncIterator]() {
            for await (const e of inner as AsyncIterable<WatchEvent<KubeObject>>) {
              wrapped++;
              yield e;
            }
          },
        };
      }) as ApiClient['watch'],
    };
    await using kube = createKubeClient({ api, logger: noopLogger });
    const informer = kube.informer(builtins.ConfigMap);
    await kube.runAndWait(stop.signal);
    await fake.create(builtins.ConfigMap, cm('c', '3'));
    await until(() => informer.store.get('default/c') !== undefined);
    expect(wrapped).toBeGreaterThan(0);
    stop.abort();
  });
});
