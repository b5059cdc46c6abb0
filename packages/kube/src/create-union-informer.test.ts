import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import { createUnionInformer } from './create-union-informer.ts';
import { createFakeKubeClient } from './fake/create-fake-kube-client.ts';
import type { FakeKubeClient } from './fake/fake-kube-client.ts';
import { isTombstone, type ResourceEventHandler, type Tombstone } from './informer.ts';
import { noopLogger } from './logger.ts';
import { namespaceFilter } from './object-filter.ts';
import type { UnionInformer } from './union-informer.ts';

const cm = (name: string, namespace: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
});

/** Records union events as text: `add a/x initial`, `update a/x`, `delete a/x tombstone`. */
function recorder() {
  const events: string[] = [];
  const key = (o: V1ConfigMap) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  const handler: ResourceEventHandler<V1ConfigMap> = {
    onAdd: (o, initial) => events.push(`add ${key(o)}${initial ? ' initial' : ''}`),
    onUpdate: (_o, n) => events.push(`update ${key(n)}`),
    onDelete: (o: V1ConfigMap | Tombstone<V1ConfigMap>) =>
      events.push(`delete ${key(isTombstone(o) ? o.obj : o)}${isTombstone(o) ? ' tombstone' : ''}`),
  };
  return { events, handler };
}

const open: Array<{ kube: FakeKubeClient; stop: AbortController; unions: UnionInformer<V1ConfigMap>[] }> = [];

afterEach(async () => {
  for (const { kube, stop, unions } of open.splice(0)) {
    stop.abort();
    for (const u of unions) await u[Symbol.asyncDispose]();
    await kube[Symbol.asyncDispose]();
    // Nothing left running: every informer the client still knows stopped (released ones are
    // checked by the tests that release them).
    for (const i of kube.informers()) expect(i.isStarted() ? i.health().state : 'stopped').toBe('stopped');
  }
});

function setup(objects: V1ConfigMap[] = []) {
  const kube = createFakeKubeClient({ logger: noopLogger, objects });
  const h = { kube, stop: new AbortController(), unions: [] as UnionInformer<V1ConfigMap>[] };
  open.push(h);
  const union = (members: Parameters<typeof createUnionInformer>[0]['members']) => {
    const u = createUnionInformer({ kube, resource: builtins.ConfigMap, members });
    h.unions.push(u);
    return u;
  };
  return { ...h, union };
}

/** Waits (30 s bound) for a condition, named by its source text. */
const until = <T>(condition: () => T) => waitFor(condition.toString(), condition);

const names = (u: UnionInformer<V1ConfigMap>) => u.store.keys().sort();

describe('createUnionInformer', () => {
  it('is one cache over two namespaces: the initial lists, then live events of both, nothing of a third', async () => {
    const { kube, stop, union } = setup([cm('x', 'a'), cm('y', 'b'), cm('z', 'c')]);
    const u = union([{ namespace: 'a' }, { namespace: 'b' }]);
    const rec = recorder();
    u.addEventHandler(rec.handler);
    expect(u.hasSynced()).toBe(false);
    await kube.runAndWait(stop.signal);
    expect(await u.waitUntilSynced(stop.signal)).toBe(true);
    expect(names(u)).toEqual(['a/x', 'b/y']);
    expect(rec.events.sort()).toEqual(['add a/x initial', 'add b/y initial']);
    expect(Object.isFrozen(u.store.get('a/x'))).toBe(true);
    // The same frozen object as the member's cache.
    expect(u.store.get('a/x')).toBe(kube.informer(builtins.ConfigMap, { namespace: 'a' }).store.get('a/x'));
    rec.events.length = 0;
    await kube.api.create(builtins.ConfigMap, cm('w', 'b'));
    await kube.api.create(builtins.ConfigMap, cm('v', 'c'));
    await kube.api.patch(
      { resource: builtins.ConfigMap, name: 'x', namespace: 'a' },
      { data: { k: 'v' } },
      { type: 'merge' },
    );
    await kube.api.delete({ resource: builtins.ConfigMap, name: 'y', namespace: 'b' });
    await until(() => rec.events.length >= 3);
    expect(rec.events.sort()).toEqual(['add b/w', 'delete b/y', 'update a/x']);
    expect(names(u)).toEqual(['a/x', 'b/w']);
    expect(u.store.byNamespace('c')).toEqual([]);
    expect(u.health()).toMatchObject({
      synced: true,
      state: 'watching',
      objects: 2,
      resourceVersion: undefined,
    });
    expect(u.lastSyncResourceVersion()).toBeUndefined();
    expect(u.members()).toEqual([{ namespace: 'a' }, { namespace: 'b' }]);
  });

  it('never reports a delete for an object relabelled from one member to the other, in either event order', async () => {
    const { kube, stop, union } = setup([cm('x', 'ns', { shard: '1' })]);
    // Member-level arrival order, to check that both orders happened.
    const arrivals: string[] = [];
    for (const shard of ['1', '2']) {
      kube.informer(builtins.ConfigMap, { labelSelector: `shard=${shard}` }).addEventHandler({
        onAdd: () => arrivals.push(`add@${shard}`),
        onDelete: () => arrivals.push(`delete@${shard}`),
      });
    }
    const u = union([{ labelSelector: 'shard=1' }, { labelSelector: 'shard=2' }]);
    const rec = recorder();
    u.addEventHandler(rec.handler);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    const relabel = async (shard: string) => {
      arrivals.length = 0;
      const updated = await kube.api.patch(
        { resource: builtins.ConfigMap, name: 'x', namespace: 'ns' },
        { metadata: { labels: { shard } } },
        { type: 'merge' },
      );
      await until(
        () =>
          arrivals.length === 2 &&
          u.store.get('ns/x')?.metadata?.resourceVersion === updated.metadata?.resourceVersion,
      );
      return arrivals.join(' ');
    };
    const orders = [await relabel('2'), await relabel('1'), await relabel('2')];
    // Both orders were exercised: the add in the new member first, and the delete in the old one first.
    expect(orders.some((o) => o.startsWith('add'))).toBe(true);
    expect(orders.some((o) => o.startsWith('delete'))).toBe(true);
    expect(rec.events).toEqual(['add ns/x initial', 'update ns/x', 'update ns/x', 'update ns/x']);
    expect(u.store.get('ns/x')?.metadata?.labels).toEqual({ shard: '2' });
    // A real delete is delivered, once.
    await kube.api.delete({ resource: builtins.ConfigMap, name: 'x', namespace: 'ns' });
    await until(() => rec.events.length === 5);
    expect(rec.events[4]).toBe('delete ns/x');
    expect(u.store.size).toBe(0);
  });

  it('removing a member deletes (as tombstones) only what no other member holds, and releases its informer', async () => {
    const { kube, stop, union } = setup([
      cm('both', 'ns', { a: 'y', b: 'y' }),
      cm('only-a', 'ns', { a: 'y' }),
      cm('only-b', 'ns', { b: 'y' }),
    ]);
    const u = union([{ labelSelector: 'a=y' }, { labelSelector: 'b=y' }]);
    const rec = recorder();
    u.addEventHandler(rec.handler);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    expect(names(u)).toEqual(['ns/both', 'ns/only-a', 'ns/only-b']);
    const memberB = kube.informers().find((i) => i.key.labelSelector === 'b=y')!;
    rec.events.length = 0;
    u.setMembers([{ labelSelector: 'a=y' }]);
    expect(rec.events).toEqual(['delete ns/only-b tombstone']);
    expect(names(u)).toEqual(['ns/both', 'ns/only-a']);
    expect(u.hasSynced()).toBe(true);
    expect(u.membersSynced()).toBe(true);
    // Nobody else asked for b=y: its informer is stopped and forgotten.
    await until(() => memberB.health().state === 'stopped');
    expect(kube.informers()).not.toContain(memberB);
    // Its later events do not reach the union.
    await kube.api.create(builtins.ConfigMap, cm('late-b', 'ns', { b: 'y' }));
    await kube.api.create(builtins.ConfigMap, cm('late-a', 'ns', { a: 'y' }));
    await until(() => u.store.get('ns/late-a') !== undefined);
    expect(u.store.get('ns/late-b')).toBeUndefined();
  });

  it('keeps a removed member running when someone else uses its informer', async () => {
    const { kube, stop, union } = setup([cm('x', 'a')]);
    const shared = kube.informer(builtins.ConfigMap, { namespace: 'a' });
    const u = union([{ namespace: 'a' }, { namespace: 'b' }]);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    u.setMembers([{ namespace: 'b' }]);
    await u.waitForMembers(stop.signal);
    expect(names(u)).toEqual([]);
    await kube.api.create(builtins.ConfigMap, cm('y', 'a'));
    await until(() => shared.store.get('a/y') !== undefined);
    expect(shared.health().state).not.toBe('stopped');
    expect(kube.informers()).toContain(shared);
  });

  it('an added member delivers adds, and updates for keys held at another resourceVersion, once it syncs; the union stays synced', async () => {
    const { kube, stop, union } = setup([cm('x', 'a'), cm('y', 'b')]);
    const u = union([{ namespace: 'a' }]);
    const rec = recorder();
    u.addEventHandler(rec.handler);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    rec.events.length = 0;
    u.setMembers([{ namespace: 'a' }, { namespace: 'b' }, { labelSelector: 'late=1' }]);
    expect(u.hasSynced()).toBe(true);
    expect(u.membersSynced()).toBe(false);
    expect(await u.waitForMembers(stop.signal)).toBe(true);
    expect(rec.events).toEqual(['add b/y']);
    // A key held by one member that another starts holding at a newer version: one update.
    await kube.api.patch(
      { resource: builtins.ConfigMap, name: 'x', namespace: 'a' },
      { metadata: { labels: { late: '1' } } },
      { type: 'merge' },
    );
    await until(() => u.store.get('a/x')?.metadata?.labels?.late === '1');
    // Let the second member's event of the same version arrive too: it is not delivered again.
    const lateMember = kube.informers().find((i) => i.key.labelSelector === 'late=1')!;
    await until(() => lateMember.store.get('a/x') !== undefined);
    expect(rec.events).toEqual(['add b/y', 'update a/x']);
  });

  it('custom indexes, and handlers that join late (after sync, and while members sync) get the current state first', async () => {
    const { kube, stop, union } = setup([cm('x', 'a', { app: 'web' }), cm('y', 'b', { app: 'db' })]);
    const u = union([{ namespace: 'a' }, { namespace: 'b' }]);
    u.store.addIndexer('app', (o) => [o.metadata?.labels?.app ?? '']);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    expect(u.store.byIndex('app', 'web').map((o) => o.metadata?.name)).toEqual(['x']);
    const late = recorder();
    const reg = u.addEventHandler(late.handler);
    expect(reg.hasSynced()).toBe(false);
    await until(() => reg.hasSynced());
    expect(late.events.sort()).toEqual(['add a/x initial', 'add b/y initial']);
    await kube.api.create(builtins.ConfigMap, cm('z', 'b', { app: 'web' }));
    await until(() => late.events.length === 3);
    expect(late.events[2]).toBe('add b/z');
    expect(
      u.store
        .byIndex('app', 'web')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['x', 'z']);
    reg.remove();

    // A union whose first member synced and whose second cannot list yet.
    const off = kube.cluster.failAlways('list', { resource: builtins.ConfigMap });
    const v = union([{ namespace: 'a' }, { namespace: 'c' }]);
    await until(() => v.store.size === 1);
    const mid = recorder();
    const midReg = v.addEventHandler(mid.handler);
    await until(() => mid.events.length === 1);
    expect(mid.events).toEqual(['add a/x initial']);
    expect(midReg.hasSynced()).toBe(false);
    expect(v.hasSynced()).toBe(false);
    off();
    expect(await v.waitUntilSynced(stop.signal)).toBe(true);
    expect(midReg.hasSynced()).toBe(true);
  });

  it('waitUntilSynced and waitForMembers resolve false on abort and once stopped; run() settles after dispose, leaving nothing running', async () => {
    const { kube, union } = setup([cm('x', 'a')]);
    const u = union([{ namespace: 'a' }]);
    const off = kube.cluster.failAlways('list');
    const run = new AbortController();
    const ran = u.run(run.signal);
    expect(u.isStarted()).toBe(true);
    expect(u.run(new AbortController().signal)).toBe(ran);
    const waiting = new AbortController();
    const pending = u.waitUntilSynced(waiting.signal);
    waiting.abort();
    expect(await pending).toBe(false);
    await until(() => u.health().state === 'backoff');
    expect(u.health().listAttempts).toBeGreaterThan(0);
    const stillWaiting = u.waitForMembers();
    const member = kube.informers()[0]!;
    run.abort();
    await ran;
    expect(await stillWaiting).toBe(false);
    expect(u.health().state).toBe('stopped');
    // The union's member was started by the union and used by nobody else: stopped, forgotten.
    expect(member.health().state).toBe('stopped');
    expect(kube.informers()).toEqual([]);
    expect(await u.waitUntilSynced()).toBe(false);
    expect(() => u.setMembers([])).toThrow(/stopped/);
    off();
  });

  it('an invalid scope throws and changes nothing', async () => {
    const { kube, union } = setup();
    const u = union([{ namespace: 'a' }]);
    expect(() => u.setMembers([{ namespace: 'b' }, { labelSelector: 'a in (b' }])).toThrow(/unable to parse/);
    expect(() =>
      createUnionInformer({ kube, resource: builtins.Namespace, members: [{ namespace: 'a' }] }),
    ).toThrow(TypeError);
    expect(u.members()).toEqual([{ namespace: 'a' }]);
    expect(kube.informers().map((i) => i.key.namespace)).toEqual(['a']);
  });

  it('a union with no members is synced and empty', async () => {
    const { union } = setup([cm('x', 'a')]);
    const u = union([]);
    expect(u.hasSynced()).toBe(true);
    expect(await u.waitForMembers()).toBe(true);
    expect(u.store.size).toBe(0);
  });

  it('replacing a member by an overlapping one is make-before-break: no delete for what both select', async () => {
    const { kube, stop, union } = setup([cm('one', 'ns', { x: '1' }), cm('two', 'ns', { x: '2' })]);
    const u = union([{ labelSelector: 'x=1' }]);
    const rec = recorder();
    u.addEventHandler(rec.handler);
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    u.setMembers([{ labelSelector: 'x in (1,2)' }]);
    expect(await u.waitForMembers(stop.signal)).toBe(true);
    expect(u.members()).toEqual([{ labelSelector: 'x in (1,2)' }]);
    expect(rec.events).toEqual(['add ns/one initial', 'add ns/two']);
    expect(kube.informers().map((i) => i.key.labelSelector)).toEqual(['x in (1,2)']);
  });

  it('under a client-wide object filter: hidden objects stay out of reads and events, listUnfiltered has them; handler failures are counted', async () => {
    const kube = createFakeKubeClient({
      logger: noopLogger,
      objects: [cm('x', 'a'), cm('y', 'b')],
      objectFilter: namespaceFilter(['a']),
    });
    const stop = new AbortController();
    const u = createUnionInformer({
      kube,
      resource: builtins.ConfigMap,
      members: [{ namespace: 'a' }, { namespace: 'b' }],
    });
    open.push({ kube, stop, unions: [u] });
    const rec = recorder();
    u.addEventHandler(rec.handler);
    u.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    await kube.runAndWait(stop.signal);
    await u.waitUntilSynced(stop.signal);
    expect(names(u)).toEqual(['a/x']);
    expect(rec.events).toEqual(['add a/x initial']);
    expect(
      u
        .listUnfiltered()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['x', 'y']);
    expect(u.health()).toMatchObject({ handlerErrors: 1, objects: 1 });
    expect(u.health().lastError).toMatch(/boom/);
  });
});
