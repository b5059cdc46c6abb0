import { builtins } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createClient, createMetadataClient } from './create-client.ts';
import { createUnionClient } from './create-union-client.ts';
import { shardUnionMembers } from './shard-union-members.ts';
import { createEventTracker, trackerHandler } from './testing/event-tracker.ts';

afterEach(closeFakes);

const cm = (name: string, namespace: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
});

describe('createClient with namespaces', () => {
  it('reads, indexes, handlers and writes over one cache of several namespaces, nothing of the others', async () => {
    const { kube, stop } = fakeKube({
      objects: [cm('x', 'a', { app: 'web' }), cm('y', 'b', { app: 'web' }), cm('z', 'c', { app: 'web' })],
    });
    const client = createClient(kube, builtins.ConfigMap, {
      namespaces: ['a', 'b'],
      labelSelector: 'app=web',
      fieldManager: 'test',
    });
    const byApp = client.index('app', (o) => [o.metadata?.labels?.app ?? '']);
    const tracker = createEventTracker();
    client.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    expect(await client.waitUntilSynced(stop.signal)).toBe(true);
    await tracker.waitUnordered('add/x', 'add/y');
    expect(
      client
        .list()
        .map((o) => o.metadata?.namespace)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(client.list('b').map((o) => o.metadata?.name)).toEqual(['y']);
    expect(client.get('z', 'c')).toBeUndefined();
    expect(
      byApp
        .lookup('web')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['x', 'y']);
    // Writes go to the API server; the cache sees those in its namespaces and selection only.
    await client.create(cm('w', 'b', { app: 'web' }));
    await client.create(cm('v', 'c', { app: 'web' }));
    await client.create(cm('u', 'a', { app: 'db' }));
    await tracker.waitOrdered('add/w');
    await client.delete({ name: 'x', namespace: 'a' });
    await tracker.waitOrdered('delete/x');
    expect(
      client
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['w', 'y']);
    expect(tracker.events()).toEqual([]);
  });

  it('refuses namespace together with namespaces; an empty list sees nothing and is synced', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('x', 'a')] });
    expect(() => createClient(kube, builtins.ConfigMap, { namespace: 'a', namespaces: ['b'] })).toThrow(
      /either namespace or namespaces/,
    );
    const none = createClient(kube, builtins.ConfigMap, { namespaces: [] });
    await kube.runAndWait(stop.signal);
    expect(await none.waitUntilSynced(stop.signal)).toBe(true);
    expect(none.list()).toEqual([]);
  });

  it('metadata clients take namespaces too', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('x', 'a'), cm('y', 'b')] });
    const meta = createMetadataClient(kube, builtins.ConfigMap, { namespaces: ['b'] });
    await kube.runAndWait(stop.signal);
    await meta.waitUntilSynced(stop.signal);
    expect(meta.list().map((o) => [o.metadata.name, 'data' in o])).toEqual([['y', false]]);
  });
});

describe('createUnionClient', () => {
  it('changes its members at run time: added ones deliver adds, removed ones deletes, and the client stays synced', async () => {
    const { kube, stop } = fakeKube({
      objects: [
        cm('mine', 'ns', { r: 'me' }),
        cm('adopted', 'ns', { r: 'dead', backup: 'me' }),
        cm('other', 'ns'),
      ],
    });
    const client = createUnionClient(kube, builtins.ConfigMap, { members: [{ labelSelector: 'r=me' }] });
    const tracker = createEventTracker();
    client.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    await client.waitUntilSynced(stop.signal);
    await tracker.waitOrdered('add/mine');
    client.setMembers([{ labelSelector: 'r=me' }, { labelSelector: 'r=dead,backup=me' }]);
    expect(client.hasSynced()).toBe(true);
    expect(client.members()).toHaveLength(2);
    expect(await client.waitForMembers(stop.signal)).toBe(true);
    await tracker.waitOrdered('add/adopted');
    // Relabelled into this replica's own selector: it moves between members, never deleted.
    await client.patch(
      { name: 'adopted', namespace: 'ns' },
      { metadata: { labels: { r: 'me', backup: null } } },
      {
        type: 'merge',
      },
    );
    await tracker.waitOrdered('update/adopted');
    const own = kube.informers().find((i) => i.key.labelSelector === 'r=me')!;
    await waitFor(
      'the own member to hold the relabelled object',
      () => own.store.get('ns/adopted') !== undefined,
    );
    client.setMembers([{ labelSelector: 'r=me' }]);
    expect(client.membersSynced()).toBe(true);
    expect(
      client
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['adopted', 'mine']);
    expect(tracker.events()).toEqual([]);
    // Dropping the last member deletes what it held, as tombstones.
    client.setMembers([]);
    await tracker.waitUnordered('delete/adopted', 'delete/mine');
    expect(client.list()).toEqual([]);
    expect(client.hasSynced()).toBe(true);
  });
});

describe('createUnionClient over shardUnionMembers', () => {
  it("follows the ring's fenced shards: a fenced shard's objects naming this replica as standby come and go, nothing else", async () => {
    const S = 'shard.kubeloom.dev/web';
    const B = 'standby.kubeloom.dev/web';
    const { kube, stop } = fakeKube({
      objects: [
        cm('own', 'shop', { [S]: 'web-0', [B]: 'web-1' }),
        cm('adoptable', 'shop', { [S]: 'web-2', [B]: 'web-0' }),
        cm('other-standby', 'shop', { [S]: 'web-2', [B]: 'web-1' }),
        cm('elsewhere', 'other', { [S]: 'web-2', [B]: 'web-0' }),
      ],
    });
    const members = (fenced: readonly string[]) =>
      shardUnionMembers({ ring: 'web', identity: 'web-0', fenced, namespace: 'shop' });
    const client = createUnionClient(kube, builtins.ConfigMap, {
      members: members([]),
      fieldManager: 'test',
    });
    const tracker = createEventTracker();
    client.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    const names = () =>
      client
        .list()
        .map((o) => o.metadata?.name)
        .sort();
    expect(names()).toEqual(['own']);
    client.setMembers(members(['web-2']));
    expect(await client.waitForMembers(stop.signal)).toBe(true);
    await tracker.waitUnordered('add/own', 'add/adoptable');
    expect(names()).toEqual(['adoptable', 'own']);
    // The sharder moves the adopted object to this replica: it stays, no delete in between.
    await kube.api.patch(
      { resource: builtins.ConfigMap, name: 'adoptable', namespace: 'shop' },
      { metadata: { labels: { [S]: 'web-0', [B]: 'web-1' } } },
      { type: 'merge' },
    );
    await waitFor('the move seen', () => client.get('adoptable', 'shop')?.metadata?.labels?.[S] === 'web-0');
    // The fence ends: only this replica's own objects stay.
    await kube.api.create(builtins.ConfigMap, cm('late', 'shop', { [S]: 'web-2', [B]: 'web-0' }));
    await waitFor('the late adoptable object', () => client.get('late', 'shop') !== undefined);
    client.setMembers(members([]));
    expect(await client.waitForMembers(stop.signal)).toBe(true);
    await waitFor('the fenced shard’s object gone', () => client.get('late', 'shop') === undefined);
    expect(names()).toEqual(['adoptable', 'own']);
    expect(tracker.all().filter((e) => e.startsWith('delete/'))).toEqual(['delete/late']);
  });
});
