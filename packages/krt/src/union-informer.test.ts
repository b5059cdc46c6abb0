/**
 * krt collections over kclient's union clients: the union is a client like any other, so
 * informer collections, derived collections and their events work over several scopes.
 */

import { createUnionClient } from '@kubeloom/kclient';
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { collection } from './collection.ts';
import type { Event } from './core.ts';
import { informer } from './informer.ts';

const cm = (name: string, namespace: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
  data: { v: name },
});

describe('krt over union clients', () => {
  it('an informer collection over two namespaces, and one derived from it', async () => {
    await using kube = createFakeKubeClient({
      logger: noopLogger,
      objects: [cm('x', 'a'), cm('y', 'b'), cm('z', 'c')],
    });
    const stop = new AbortController();
    const signal = stop.signal;
    const configMaps = informer(kube, builtins.ConfigMap, {
      signal,
      name: 'cms',
      filter: { namespaces: ['a', 'b'] },
    });
    const values = collection(configMaps, (_ctx, o) => `${o.metadata?.namespace}/${o.metadata?.name}`, {
      signal,
      name: 'values',
    });
    await kube.runAndWait(signal);
    await values.waitUntilSynced(signal);
    expect(values.list().sort()).toEqual(['a/x', 'b/y']);
    await kube.api.create(builtins.ConfigMap, cm('w', 'b'));
    await waitFor('the derived collection to follow', () => values.list().length === 3);
    expect(configMaps.get('c/z')).toBeUndefined();
    stop.abort();
  });

  it('a collection over a union client whose members change, with no delete for an object moving between them', async () => {
    await using kube = createFakeKubeClient({
      logger: noopLogger,
      objects: [cm('mine', 'ns', { r: 'me' }), cm('adopted', 'ns', { r: 'dead' })],
    });
    const stop = new AbortController();
    const signal = stop.signal;
    const client = createUnionClient(kube, builtins.ConfigMap, { members: [{ labelSelector: 'r=me' }] });
    const configMaps = informer(client, { signal, name: 'shard' });
    const events: Event<V1ConfigMap>[] = [];
    configMaps.register((e) => {
      events.push(e);
    });
    await kube.runAndWait(signal);
    await configMaps.waitUntilSynced(signal);
    client.setMembers([{ labelSelector: 'r=me' }, { labelSelector: 'r=dead' }]);
    await waitFor('the adopted object', () => configMaps.get('ns/adopted'));
    expect(configMaps.hasSynced()).toBe(true);
    await client.patch(
      { name: 'adopted', namespace: 'ns' },
      { metadata: { labels: { r: 'me' } } },
      { type: 'merge' },
    );
    await waitFor('the relabel', () => configMaps.get('ns/adopted')?.metadata?.labels?.r === 'me');
    expect(events.map((e) => `${e.type} ${e.new?.metadata?.name ?? e.old?.metadata?.name}`)).toEqual([
      'add mine',
      'add adopted',
      'update adopted',
    ]);
    stop.abort();
  });
});
