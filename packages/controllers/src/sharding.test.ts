import { builtins, type KubeObject, noopLogger, type ObjectKey } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { configMap, lease, webSharderOptions } from '../test/shard-fixtures.ts';
import { createQueue } from './create-queue.ts';
import { createShardMember } from './create-shard-member.ts';
import { createShardRing } from './create-shard-ring.ts';
import { createSharder } from './create-sharder.ts';
import { hashRing } from './hash-ring.ts';
import { LeaseResource } from './internal/lease.ts';
import { RING_LABEL, shardLabels } from './shard-labels.ts';
import { shardedReconciler } from './sharded-reconciler.ts';

const L = shardLabels('web');

describe('shard labels and identities', () => {
  it('refuses a ring name or identity that cannot be a label, saying what would do', () => {
    expect(() => shardLabels('no/slash')).toThrow(/ring name "no\/slash" must be 1–63 characters/);
    expect(() =>
      createShardMember({
        api: createFakeKubeClient().api,
        ring: 'web',
        namespace: 'default',
        identity: 'Pod_1',
        onJoined: () => {},
      }),
    ).toThrow(/shard identity "Pod_1" must be 1–63 characters of \[a-z0-9-.\]/);
  });
});

describe('createShardRing', () => {
  it('lists the shards holding their Lease; a silent Lease expires on its own, a released one at once', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('a', 'a', 1));
    await kube.api.create(LeaseResource, lease('b', 'b', 60));
    await kube.api.create(LeaseResource, {
      ...lease('other', 'other', 60),
      metadata: { name: 'other', namespace: 'default' },
    });
    await using ring = createShardRing({ kube, ring: 'web', namespace: 'default' });
    const changes: string[][] = [];
    ring.subscribe(() => changes.push([...ring.members()]));
    const stop = new AbortController();
    const running = ring.run(stop.signal);
    try {
      expect(await ring.waitUntilSynced(stop.signal)).toBe(true);
      expect(ring.members()).toEqual(['a', 'b']); // 'other' has no ring label
      expect(ring.hashRing().shards).toEqual(['a', 'b']);
      // a's record stays unchanged: it expires one lease duration after it was seen.
      await waitFor('a to expire', () => !ring.isLive('a'), { timeoutMs: 30_000 });
      expect(ring.members()).toEqual(['b']);
      // A release clears the holder: gone at once.
      const b = await kube.api.list(LeaseResource, { namespace: 'default' });
      const bLease = b.items.find((l) => l.metadata?.name === 'b')!;
      await kube.api.update(LeaseResource, { ...bLease, spec: { ...bLease.spec, holderIdentity: null } });
      await waitFor('b to leave', () => ring.members().length === 0, { timeoutMs: 30_000 });
      // (The initial list may arrive one Lease at a time: ['a'] first.)
      expect(changes.slice(-3)).toEqual([['a', 'b'], ['b'], []]);
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('createShardMember', () => {
  it('holds a labelled Lease named after itself, runs onJoined while a member, and releases the Lease on a clean stop', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    let joined: AbortSignal | undefined;
    await using member = createShardMember({
      api: kube.api,
      ring: 'web',
      namespace: 'default',
      identity: 'web-0',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 400,
      logger: noopLogger,
      onJoined: (signal) => {
        joined = signal;
      },
    });
    const stop = new AbortController();
    const running = member.run(stop.signal);
    await waitFor('membership', () => member.isMember(), { timeoutMs: 30_000 });
    const held = (await kube.api.list(LeaseResource, { namespace: 'default' })).items[0]!;
    expect(held.metadata?.name).toBe('web-0');
    expect(held.metadata?.labels).toEqual({ [RING_LABEL]: 'web' });
    expect(held.spec?.holderIdentity).toBe('web-0');
    expect(joined?.aborted).toBe(false);
    await expect(member.run(new AbortController().signal)).rejects.toThrow(/already runs/);
    stop.abort();
    await running;
    expect(joined?.aborted).toBe(true);
    const released = (await kube.api.list(LeaseResource, { namespace: 'default' })).items[0]!;
    expect(released.spec?.holderIdentity ?? '').toBe('');
  });
});

describe('shardedReconciler', () => {
  it('reconciles its own objects, acknowledges a drain instead of reconciling, and skips what is not its own', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const mine = await kube.api.create(builtins.ConfigMap, configMap('mine', { [L.shard]: 'web-0' }));
    const draining = await kube.api.create(
      builtins.ConfigMap,
      configMap('draining', { [L.shard]: 'web-0', [L.drain]: 'true', app: 'x' }),
    );
    const theirs = await kube.api.create(builtins.ConfigMap, configMap('theirs', { [L.shard]: 'web-1' }));
    const cache = new Map<string, KubeObject>([
      ['mine', mine],
      ['draining', draining],
      ['theirs', theirs],
    ]);
    const reconciled: string[] = [];
    const reconcile = shardedReconciler({
      ring: 'web',
      identity: 'web-0',
      api: kube.api,
      resource: builtins.ConfigMap,
      get: (key) => cache.get(key.name) as never,
      reconciler: (key) => {
        if (failing) throw new Error('cleanup failed');
        reconciled.push(key.name);
      },
    });
    let failing = false;
    const ctx = { signal: new AbortController().signal, attempt: 1, queue: 'q' };
    for (const name of ['mine', 'draining', 'theirs']) await reconcile({ namespace: 'default', name }, ctx);
    expect(reconciled).toEqual(['mine']);
    const acked = (await kube.api.list(builtins.ConfigMap, { namespace: 'default' })).items.find(
      (cm) => cm.metadata?.name === 'draining',
    )!;
    expect(acked.metadata?.labels).toEqual({ app: 'x' }); // both sharding labels gone, the rest kept
    // Once acknowledged and gone from the cache, the key is skipped (it moved, it was not deleted) …
    cache.delete('draining');
    await reconcile({ namespace: 'default', name: 'draining' }, ctx);
    expect(reconciled).toEqual(['mine']);
    // … while an object that was never drained and is gone is a deletion to reconcile.
    cache.delete('mine');
    await reconcile({ namespace: 'default', name: 'mine' }, ctx);
    expect(reconciled).toEqual(['mine', 'mine']);
    // A key enqueued for an object this shard never held (another shard's, or one not in its cache
    // yet) is not a deletion: another shard may be reconciling it.
    await reconcile({ namespace: 'default', name: 'elsewhere' }, ctx);
    expect(reconciled).toEqual(['mine', 'mine']);
    // A deletion is reconciled until it succeeds, then the gone key is forgotten.
    cache.set(
      'doomed',
      await kube.api.create(builtins.ConfigMap, configMap('doomed', { [L.shard]: 'web-0' })),
    );
    await reconcile({ namespace: 'default', name: 'doomed' }, ctx);
    cache.delete('doomed');
    failing = true;
    await expect(reconcile({ namespace: 'default', name: 'doomed' }, ctx)).rejects.toThrow('cleanup failed');
    failing = false;
    await reconcile({ namespace: 'default', name: 'doomed' }, ctx);
    await reconcile({ namespace: 'default', name: 'doomed' }, ctx);
    expect(reconciled).toEqual(['mine', 'mine', 'doomed', 'doomed']);
    // A stale cached state (changed since) makes the acknowledgement a no-op 409, not an error.
    cache.set('stale', { ...draining, metadata: { ...draining.metadata, name: 'draining' } });
    await reconcile({ namespace: 'default', name: 'stale' }, ctx);
  });
});

describe('shardedReconciler: a failed drain acknowledgement', () => {
  it("is retried on a fixed delay, outside the key's backoff and retry budget, until it lands", async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const draining = await kube.api.create(
      builtins.ConfigMap,
      configMap('draining', { [L.shard]: 'web-0', [L.drain]: 'true' }),
    );
    const reconcile = shardedReconciler({
      ring: 'web',
      identity: 'web-0',
      api: kube.api,
      resource: builtins.ConfigMap,
      get: (key) => (key.name === 'draining' ? draining : undefined),
      reconciler: () => {},
      ackRetryMs: 0,
    });
    // A budget of 2 attempts: thrown into the queue's retries, the second failure would drop the
    // key, and nothing else would enqueue it again (the object does not change).
    const queue = createQueue<ObjectKey>({
      name: 'q',
      reconciler: reconcile,
      maxAttempts: 2,
      logger: noopLogger,
    });
    kube.cluster.failNext('patch', 3, { code: 503, resource: builtins.ConfigMap });
    const stop = new AbortController();
    const running = queue.run(stop.signal);
    queue.add({ namespace: 'default', name: 'draining' });
    await waitFor('the drain acknowledged', async () => {
      const cm = await kube.api.get({ resource: builtins.ConfigMap, name: 'draining', namespace: 'default' });
      return cm.metadata?.labels?.[L.shard] === undefined && cm.metadata?.labels?.[L.drain] === undefined;
    });
    expect(kube.cluster.requestCount('patch', builtins.ConfigMap)).toBe(4);
    stop.abort();
    await running;
    expect(() =>
      shardedReconciler({
        ring: 'web',
        identity: 'web-0',
        api: kube.api,
        resource: builtins.ConfigMap,
        get: () => undefined,
        reconciler: () => {},
        ackRetryMs: -1,
      }),
    ).toThrow(RangeError);
  });
});

describe('createSharder', () => {
  it('labels every object once, drains only the objects a joining shard takes, and moves them once acknowledged', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(LeaseResource, lease('web-1', 'web-1', 600));
    const names = Array.from({ length: 40 }, (_, i) => `cm-${i}`);
    for (const name of names) await kube.api.create(builtins.ConfigMap, configMap(name));
    let patches = 0;
    kube.cluster.onRequest((r) => {
      if (r.verb === 'patch' && r.resource?.plural === 'configmaps') patches++;
    });
    await using sharder = createSharder(
      webSharderOptions(kube, { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 400 }),
    );
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    const labelsOf = async () =>
      new Map(
        (await kube.api.list(builtins.ConfigMap, { namespace: 'default' })).items.map((cm) => [
          cm.metadata?.name ?? '',
          cm.metadata?.labels ?? {},
        ]),
      );
    try {
      const two = hashRing(['web-0', 'web-1']);
      await waitFor(
        'every object labelled',
        async () => [...(await labelsOf())].every(([n, l]) => l[L.shard] === two.shardFor(`default/${n}`)),
        { timeoutMs: 30_000 },
      );
      expect(patches).toBe(names.length); // one write per object, the standby label in it
      for (const [n, l] of await labelsOf()) expect(l[L.standby]).toBe(two.successorFor(`default/${n}`));
      expect(sharder.isLeader()).toBe(true);

      // A change that does not move anything writes nothing.
      for (const name of names.slice(0, 10)) {
        await kube.api.patch(
          { resource: builtins.ConfigMap, name, namespace: 'default' },
          { data: { v: '1' } },
          { type: 'merge' },
        );
      }
      await kube.api.create(LeaseResource, lease('web-2', 'web-2', 600));
      const three = hashRing(['web-0', 'web-1', 'web-2']);
      const moving = names.filter((n) => three.shardFor(`default/${n}`) === 'web-2');
      expect(moving.length).toBeGreaterThan(0);
      // Staying objects whose standby changed get a standby-only write (no drain: the standby
      // means nothing while the owner is live); moving ones keep theirs until they move.
      const restandby = names.filter(
        (n) => !moving.includes(n) && three.successorFor(`default/${n}`) !== two.successorFor(`default/${n}`),
      );
      expect(restandby.length).toBeGreaterThan(0);
      expect(restandby.length).toBeLessThan(names.length - moving.length);
      // No member acknowledges here: the joiner's objects get the drain label and stay put.
      await waitFor(
        'drain requests and standby writes',
        async () => {
          const now = await labelsOf();
          return (
            [...now].filter(([, l]) => l[L.drain] === 'true').length === moving.length &&
            restandby.every((n) => now.get(n)?.[L.standby] === three.successorFor(`default/${n}`))
          );
        },
        { timeoutMs: 30_000 },
      );
      const labels = await labelsOf();
      for (const n of names) {
        expect(labels.get(n)?.[L.drain] !== undefined).toBe(moving.includes(n));
        expect(labels.get(n)?.[L.shard]).toBe(two.shardFor(`default/${n}`));
        if (!moving.includes(n)) expect(labels.get(n)?.[L.standby]).toBe(three.successorFor(`default/${n}`));
        else expect(labels.get(n)?.[L.standby]).toBe(two.successorFor(`default/${n}`));
      }
      // The sharder's writes: one per object, one drain request per moving object, one standby
      // write per staying object whose standby changed (10 are the test's).
      expect(patches).toBe(names.length + 10 + moving.length + restandby.length);
      // The owner acknowledges (removes both labels): the sharder moves the object.
      const acked = moving[0]!;
      await kube.api.patch(
        { resource: builtins.ConfigMap, name: acked, namespace: 'default' },
        { metadata: { labels: { [L.shard]: null, [L.drain]: null } } },
        { type: 'merge' },
      );
      await waitFor(
        'the acknowledged object to move',
        async () => (await labelsOf()).get(acked)?.[L.shard] === 'web-2',
        {
          timeoutMs: 30_000,
        },
      );
      // With its new owner's standby, in the same write.
      expect((await labelsOf()).get(acked)?.[L.standby]).toBe(three.successorFor(`default/${acked}`));
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe("createSharder: a departed shard's objects", () => {
  it('move once its Lease is no longer held, each beside the objects that share its key, the later-listed resources first', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    // web-1 released its Lease (left without handing its objects over): no longer live at once, so
    // no drain is requested first, and the sharder may take the Lease over at once.
    await kube.api.create(LeaseResource, lease('web-1', '', 1));
    const names = Array.from({ length: 12 }, (_, i) => `app-${i}`);
    for (const name of names) {
      await kube.api.create(builtins.ConfigMap, configMap(name, { [L.shard]: 'web-1' }));
      await kube.api.create(builtins.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${name}-tls`, namespace: 'default', labels: { [L.shard]: 'web-1', owner: name } },
      });
    }
    const writes: string[] = [];
    kube.cluster.onRequest((r) => {
      if (r.verb === 'patch') writes.push(`${r.resource?.plural}/${r.name}`);
    });
    await using sharder = createSharder({
      kube,
      ring: 'web',
      namespace: 'default',
      resources: [
        { resource: builtins.ConfigMap, namespace: 'default' },
        // A Secret lands with the ConfigMap it belongs to.
        {
          resource: builtins.Secret,
          namespace: 'default',
          key: (o) => `default/${o.metadata?.labels?.owner}`,
        },
      ],
      leaseDurationMs: 1000,
      renewDeadlineMs: 800,
      retryPeriodMs: 200,
      workers: 1, // writes in queue order
      logger: noopLogger,
    });
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    try {
      await waitFor(
        'every object moved to the live shard',
        async () =>
          [
            ...(await kube.api.list(builtins.ConfigMap, { namespace: 'default' })).items,
            ...(await kube.api.list(builtins.Secret, { namespace: 'default' })).items,
          ].every((o) => o.metadata?.labels?.[L.shard] === 'web-0'),
        { timeoutMs: 30_000 },
      );
      expect(writes).toHaveLength(2 * names.length); // one write per object
      // Each Secret is written right before the ConfigMap it belongs to, not every ConfigMap before
      // every Secret. Keys the queue held when the Lease was taken over keep their places, so the
      // sequence may start mid-way (a rotation): at most one pair is split.
      const paired = names.filter(
        (n) => writes.indexOf(`configmaps/${n}`) === writes.indexOf(`secrets/${n}-tls`) + 1,
      );
      expect(paired.length).toBeGreaterThanOrEqual(names.length - 1);
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('createSharder with a label selector', () => {
  it('watches and labels only the objects the selector matches', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(LeaseResource, lease('web-0', 'web-0', 600));
    await kube.api.create(builtins.ConfigMap, configMap('ours', { app: 'gateway' }));
    await kube.api.create(builtins.ConfigMap, configMap('foreign', { app: 'other' }));
    await using sharder = createSharder({
      kube,
      ring: 'web',
      namespace: 'default',
      resources: [{ resource: builtins.ConfigMap, namespace: 'default', labelSelector: 'app=gateway' }],
      logger: noopLogger,
    });
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    const shardOf = async (name: string) =>
      (await kube.api.get({ resource: builtins.ConfigMap, name, namespace: 'default' })).metadata?.labels?.[
        L.shard
      ];
    try {
      await waitFor('the selected object labelled', async () => (await shardOf('ours')) === 'web-0', {
        timeoutMs: 30_000,
      });
      // Another object that matches is labelled after it (events are handled in order), so once it
      // is, the foreign one was never going to be.
      await kube.api.create(builtins.ConfigMap, configMap('later', { app: 'gateway' }));
      await waitFor('a new selected object labelled', async () => (await shardOf('later')) === 'web-0', {
        timeoutMs: 30_000,
      });
      expect(await shardOf('foreign')).toBeUndefined();
    } finally {
      stop.abort();
      await running;
    }
  });
});
