/**
 * A ring of replicas of one sharded controller in one process, for the sharding scenario
 * (`src/sharding.test.ts` on the fake cluster, `src/sharding.integration.test.ts` on a real
 * control plane). Each replica runs a sharder (one of them is elected) and a shard member; while
 * a member holds its Lease it runs a controller whose ConfigMap client caches only its share, and
 * whose reconciler logs when it starts and ends per object.
 */
import {
  createQueue,
  createSharder,
  createShardMember,
  hashRing,
  objectHandler,
  type Sharder,
  shardedReconciler,
  shardLabels,
} from '@kubeloom/controllers';
import {
  type ApiClient,
  builtins,
  type KubeClient,
  keyOf,
  type Logger,
  type ObjectKey,
} from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Lease } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { Client } from '../src/interfaces.ts';
import { createShardedClient } from '../src/sharded-client.ts';

/** Lease timings of every replica. */
interface ShardTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** One reconcile of one object by one replica, on `performance.now()`. */
export interface ReconcileRecord {
  readonly identity: string;
  readonly key: string;
  readonly start: number;
  end: number | undefined;
}

/** What every replica shares. */
export interface RingEnv {
  /** A new client on the cluster (a replica's own, and one per membership). */
  readonly makeKube: () => KubeClient;
  readonly ring: string;
  /** Where the Leases live. */
  readonly leaseNamespace: string;
  /** Where the sharded ConfigMaps live. */
  readonly namespace: string;
  readonly timings: ShardTimings;
  readonly log: ReconcileRecord[];
  readonly logger: Logger;
}

/** A running replica. */
interface Replica {
  readonly identity: string;
  readonly sharder: Sharder;
  /** The keys in this replica's sharded cache, while it is a member. */
  cachedKeys(): string[] | undefined;
  /** Stops cleanly: the controller stops, then the Lease is released. */
  stop(): Promise<void>;
  /** Dies: its link to the cluster is cut (no renewal, no release), then everything stops. */
  kill(): Promise<void>;
}

/** An ApiClient whose every call fails once `cut` is set (a replica that lost its network). */
function cuttable(api: ApiClient): { api: ApiClient; cut(): void } {
  let cut = false;
  const proxy = new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (cut) return Promise.reject(new Error('connect ECONNREFUSED (replica killed by the test)'));
        return value.apply(target, args);
      };
    },
  });
  return { api: proxy, cut: () => (cut = true) };
}

/** Starts a replica: its sharder and its membership. */
function startReplica(env: RingEnv, identity: string): Replica {
  const base = env.makeKube();
  const link = cuttable(base.api);
  const stop = new AbortController();
  const sharder = createSharder({
    kube: base,
    ring: env.ring,
    namespace: env.leaseNamespace,
    resources: [{ resource: builtins.ConfigMap, namespace: env.namespace }],
    identity: `sharder-${identity}`,
    logger: env.logger,
    resyncPeriodMs: 5000,
    ...env.timings,
  });
  let current: Client<V1ConfigMap> | undefined;
  const member = createShardMember({
    api: link.api,
    ring: env.ring,
    namespace: env.leaseNamespace,
    identity,
    logger: env.logger,
    ...env.timings,
    onJoined: async (signal) => {
      await using kube = env.makeKube();
      const client = createShardedClient(kube, builtins.ConfigMap, {
        ring: env.ring,
        identity,
        namespace: env.namespace,
      });
      const queue = createQueue<ObjectKey>({
        name: `shard-${identity}`,
        workers: 2,
        logger: env.logger,
        reconciler: shardedReconciler({
          ring: env.ring,
          identity,
          api: kube.api,
          resource: builtins.ConfigMap,
          get: (key) => client.get(key.name, key.namespace),
          reconciler: async (key, ctx) => {
            const record: ReconcileRecord = {
              identity,
              key: keyOf(key),
              start: performance.now(),
              end: undefined,
            };
            env.log.push(record);
            try {
              // Real work: a round trip to the API server.
              await kube.serverVersion(ctx.signal).catch(() => {});
            } finally {
              record.end = performance.now();
            }
          },
        }),
      });
      client.addEventHandler(objectHandler((cm) => queue.addObject(cm)));
      current = client;
      try {
        if (await kube.runAndWait(signal)) await queue.run(signal);
      } finally {
        current = undefined;
      }
    },
  });
  const running = Promise.all([sharder.run(stop.signal), member.run(stop.signal)]);
  return {
    identity,
    sharder,
    cachedKeys: () =>
      current
        ?.list()
        .map((cm) => keyOf({ namespace: cm.metadata?.namespace, name: cm.metadata?.name ?? '' })),
    async stop() {
      stop.abort();
      await running;
      await base[Symbol.asyncDispose]();
    },
    async kill() {
      link.cut();
      stop.abort();
      await running;
      await base[Symbol.asyncDispose]();
    },
  };
}

/** Where the objects stand, by a live list. */
interface Placement {
  /** Shard label per object key ('' when unassigned). */
  readonly owner: ReadonlyMap<string, string>;
  /** Objects carrying the drain label. */
  readonly draining: number;
}

/** Lists the ConfigMaps and reads their shard and drain labels. */
async function placement(env: RingEnv, api: ApiClient): Promise<Placement> {
  const labels = shardLabels(env.ring);
  const list = await api.list(builtins.ConfigMap, { namespace: env.namespace });
  const owner = new Map<string, string>();
  let draining = 0;
  for (const cm of list.items) {
    const l = cm.metadata?.labels ?? {};
    owner.set(`${cm.metadata?.namespace}/${cm.metadata?.name}`, l[labels.shard] ?? '');
    if (l[labels.drain] !== undefined) draining++;
  }
  return { owner, draining };
}

/**
 * The placement once every object sits on the shard the ring of `members` gives it, none is
 * draining, and each member's cache holds exactly its objects; otherwise throws what is not
 * there yet (`waitFor` reports the last reason when it gives up).
 */
async function converged(env: RingEnv, api: ApiClient, members: readonly Replica[]): Promise<Placement> {
  const p = await placement(env, api);
  const counts = JSON.stringify([...spread(p)]);
  if (p.draining > 0) throw new Error(`${p.draining} objects draining; owners ${counts}`);
  const ring = hashRing(members.map((m) => m.identity));
  const misplaced = [...p.owner].filter(([key, owner]) => owner !== ring.shardFor(key));
  if (misplaced.length > 0) {
    throw new Error(
      `${misplaced.length} objects not on their shard (e.g. ${misplaced[0]}); owners ${counts}`,
    );
  }
  for (const m of members) {
    const cached = m.cachedKeys();
    if (cached === undefined) throw new Error(`${m.identity} is not a member (no controller running)`);
    const mine = [...p.owner].filter(([, o]) => o === m.identity).map(([k]) => k);
    if (cached.length !== mine.length || !mine.every((k) => cached.includes(k))) {
      throw new Error(`${m.identity} caches ${cached.length} objects, owns ${mine.length}`);
    }
  }
  return p;
}

/** Pairs of reconciles of one object by two replicas that overlapped in time. */
function overlaps(log: readonly ReconcileRecord[]): string[] {
  const byKey = new Map<string, ReconcileRecord[]>();
  for (const r of log) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  const found: string[] = [];
  for (const [key, records] of byKey) {
    const sorted = [...records].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i]!;
        const b = sorted[j]!;
        if (b.start >= (a.end ?? Number.POSITIVE_INFINITY)) break;
        if (a.identity !== b.identity) found.push(`${key}: ${a.identity} and ${b.identity}`);
      }
    }
  }
  return found;
}

/** Objects per owner. */
function spread(p: Placement): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of p.owner.values()) out.set(o, (out.get(o) ?? 0) + 1);
  return out;
}

/** What {@link shardScenario} measured. */
export interface ScenarioResult {
  /** Objects per shard once 3 replicas converged. */
  readonly spread3: ReadonlyMap<string, number>;
  /** Objects that moved when the fourth replica joined. */
  readonly joinMoves: number;
  /** Milliseconds from the kill to convergence without the killed replica. */
  readonly killToConvergedMs: number;
  /**
   * Milliseconds from the dead replica's Lease expiry (its last renewal, read from the Lease after
   * the kill, plus the lease duration) to convergence without it: never negative when no object
   * moved before the Lease expired.
   */
  readonly expiryToConvergedMs: number;
  /** Objects that moved when a replica died (all of its objects). */
  readonly deathMoves: number;
  /** Reconciles logged. */
  readonly reconciles: number;
}

/**
 * The whole story on `objects` ConfigMaps: 3 replicas converge (spread within ±`spreadBound` of
 * even; each cache holds exactly its share); a fourth joins under churn (≈ 1/4 of the objects
 * move, all onto it); one dies without releasing its Lease (its objects, and only they, move after
 * its Lease expires); one stops cleanly; no object is ever reconciled by two replicas at once.
 */
export async function shardScenario(
  env: RingEnv,
  api: ApiClient,
  opts: { readonly objects: number; readonly spreadBound: number; readonly waitMs: number },
): Promise<ScenarioResult> {
  const names = Array.from({ length: opts.objects }, (_, i) => `policy-${i}`);
  for (let i = 0; i < names.length; i += 25) {
    await Promise.all(
      names.slice(i, i + 25).map((name) =>
        api.create(builtins.ConfigMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: env.namespace },
          data: { v: '0' },
        }),
      ),
    );
  }
  const replicas = new Map<string, Replica>();
  const live = () => [...replicas.values()];
  const converge = (what: string) =>
    waitFor(what, () => converged(env, api, live()), { timeoutMs: opts.waitMs, intervalMs: 100 });
  const churn = new AbortController();
  let churning: Promise<void> | undefined;
  try {
    for (const id of ['shard-a', 'shard-b', 'shard-c']) replicas.set(id, startReplica(env, id));
    const three = await converge('3 replicas to converge');
    const spread3 = spread(three);
    expect([...spread3.keys()].sort()).toEqual(['shard-a', 'shard-b', 'shard-c']);
    for (const n of spread3.values()) {
      expect(Math.abs(n - opts.objects / 3)).toBeLessThanOrEqual((opts.spreadBound * opts.objects) / 3);
    }

    // Churn: keep changing objects (so each is enqueued again and again) while shards come and go.
    churning = (async () => {
      let i = 0;
      while (!churn.signal.aborted) {
        const name = names[(i * 7919) % names.length]!;
        i++;
        await api
          .patch(
            { resource: builtins.ConfigMap, name, namespace: env.namespace },
            { data: { v: String(i) } },
            {
              type: 'merge',
            },
          )
          .catch(() => {});
        // Yield to timers and I/O: the fake cluster answers within microtasks.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    replicas.set('shard-d', startReplica(env, 'shard-d'));
    const four = await converge('the fourth replica to take its share');
    let joinMoves = 0;
    for (const [key, owner] of four.owner) {
      if (owner !== three.owner.get(key)) {
        joinMoves++;
        expect(owner).toBe('shard-d');
      }
    }

    const victim = replicas.get('shard-b')!;
    replicas.delete('shard-b');
    const killedAt = performance.now();
    await victim.kill();
    // Its last renewal, as written (by its own clock, this process's): the expiry the guarantee is about.
    const lease = (await api.get({
      resource: builtins.Lease,
      name: 'shard-b',
      namespace: env.leaseNamespace,
    })) as V1Lease;
    expect(lease.spec?.holderIdentity).toBe('shard-b');
    const lastRenewal = new Date(lease.spec?.renewTime as unknown as string).getTime();
    expect(Number.isFinite(lastRenewal)).toBe(true);
    const after = await converge('the dead replica’s objects to move');
    const killToConvergedMs = performance.now() - killedAt;
    const expiryToConvergedMs = Date.now() - (lastRenewal + env.timings.leaseDurationMs);
    let deathMoves = 0;
    for (const [key, owner] of after.owner) {
      if (owner !== four.owner.get(key)) {
        deathMoves++;
        expect(four.owner.get(key)).toBe('shard-b');
      }
    }
    expect(deathMoves).toBe([...four.owner.values()].filter((o) => o === 'shard-b').length);

    const leaving = replicas.get('shard-d')!;
    replicas.delete('shard-d');
    await leaving.stop();
    await converge('a cleanly stopped replica’s objects to move');

    churn.abort();
    await churning;
    const remaining = live();
    replicas.clear();
    await Promise.all(remaining.map((r) => r.stop()));
    expect(overlaps(env.log)).toEqual([]);
    const identities = new Set(env.log.map((r) => r.identity));
    expect(identities).toEqual(new Set(['shard-a', 'shard-b', 'shard-c', 'shard-d']));
    expect(env.log.every((r) => r.end !== undefined)).toBe(true);
    return {
      spread3,
      joinMoves,
      killToConvergedMs,
      expiryToConvergedMs,
      deathMoves,
      reconciles: env.log.length,
    };
  } finally {
    churn.abort();
    await churning;
    await Promise.all(live().map((r) => r.stop()));
  }
}
