import {
  type ApiClient,
  consoleLogger,
  extractTombstone,
  type KubeObject,
  type Logger,
  type SharedInformer,
} from '@kubeloom/kube';
import { type Clock, systemClock, type TimerHandle } from './clock.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import { createQueue } from './create-queue.ts';
import { createShardRing, type ShardRing } from './create-shard-ring.ts';
import { exponentialFailureRateLimiter } from './exponential-rate-limiter.ts';
import { type LeaseWatch, watchLease } from './internal/lease-watch.ts';
import { type LabelPatchOptions, patchLabels } from './internal/patch-labels.ts';
import { ShardEvictors } from './internal/shard-evictors.ts';
import { StandbyDeferral } from './internal/standby-deferral.ts';
import type { LeaderElector } from './leader-election.ts';
import type { ShardingMetricsRecorder } from './metrics.ts';
import type { ReconcileResult } from './queue.ts';
import { objectShardKey, type ShardLabels } from './shard-labels.ts';
import type { ShardedResource, Sharder, SharderOptions } from './sharder.ts';

/** How long a standby-only write waits while a dead shard's objects are still to move. */
const STANDBY_DEFER_MS = 1000;

const METADATA_ONLY = {
  name: 'kubeloom-sharder-metadata',
  fn: (obj: KubeObject): KubeObject => {
    const { managedFields: _m, ...metadata } = obj.metadata ?? {};
    return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
  },
};

interface Tracked {
  readonly informer: SharedInformer;
  readonly spec: ShardedResource;
}

/** An object to label, and where it came from. */
interface Target {
  readonly tracked: Tracked;
  readonly obj: KubeObject;
}

/**
 * Creates a ring's sharder. Construction does no I/O. Run one in every replica (or in a separate
 * deployment): they elect one, which assigns. It writes only when an object's label is wrong:
 *
 * - an object without a shard label gets its shard (a new object, or one its owner let go);
 * - an object whose owner is live but no longer its shard on the ring gets the drain label, and
 *   moves once its owner acknowledged (removed the labels, see {@link shardedReconciler});
 * - an object whose owner's Lease expired (or was released) moves at once, but only while the
 *   sharder holds that Lease: it takes it over as a leader-election candidate, which proves the
 *   owner stopped renewing for a lease duration, and keeps the owner out until its objects moved.
 *
 * Every write is a merge patch of the labels conditioned on the resourceVersion the decision was
 * made on. From `src/sharding.example.test.ts`:
 *
 * {@includeCode ./sharding.example.test.ts#sharder}
 */
export function createSharder(opts: SharderOptions): Sharder {
  if (!Array.isArray(opts.resources) || opts.resources.length === 0) {
    throw new TypeError('createSharder: options.resources must list at least one { resource } to shard');
  }
  const ring = createShardRing({
    kube: opts.kube,
    ring: opts.ring,
    namespace: opts.namespace,
    ...(opts.virtualNodes !== undefined ? { virtualNodes: opts.virtualNodes } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  return new ShardAssigner(opts, ring);
}

class ShardAssigner implements Sharder {
  readonly identity: string;
  readonly #opts: SharderOptions;
  readonly #ring: ShardRing;
  readonly #labels: ShardLabels;
  readonly #api: ApiClient;
  readonly #elector: LeaderElector;
  readonly #electionWatch: LeaseWatch;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tracked: Tracked[];
  readonly #disposed = new AbortController();
  /** Objects per owner (shard label value), kept by the informer handlers. */
  readonly #owners = new Map<string, number>();
  /** Keys asked to drain: from whom, since when. */
  readonly #draining = new Map<string, { readonly from: string; readonly at: number }>();
  /** Candidates for dead shards' Leases, and the fence of their objects' standby labels. */
  readonly #evictors: ShardEvictors;
  /** Standby-only writes waiting for dead shards' moves, until none landed for two lease durations. */
  readonly #deferral: StandbyDeferral;
  /** How label writes are sent and logged. */
  readonly #labelWrites: LabelPatchOptions;
  #leading: AbortSignal | undefined;
  #enqueue: ((key: string) => void) | undefined;
  #metrics: ShardingMetricsRecorder | undefined;
  #running: Promise<void> | undefined;

  constructor(opts: SharderOptions, ring: ShardRing) {
    this.#opts = opts;
    this.#ring = ring;
    this.#labels = ring.labels;
    this.#api = opts.kube.api;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = (opts.logger ?? consoleLogger('warn')).child({ ring: opts.ring, component: 'sharder' });
    this.#tracked = opts.resources.map((spec) => ({
      spec,
      informer: opts.kube.informer(spec.resource, {
        namespace: spec.namespace,
        ...(spec.labelSelector ? { labelSelector: spec.labelSelector } : {}),
        transform: METADATA_ONLY,
      }),
    }));
    const election = { namespace: opts.namespace, name: `${opts.ring}-sharder` };
    // The election's Lease by a watch: a dead sharder's successor takes over one lease duration
    // after its last renewal as the watch saw it, not up to a retry period later.
    this.#electionWatch = watchLease({ kube: opts.kube, ...election, clock: this.#clock });
    this.#elector = createLeaderElector({
      api: this.#api,
      lease: election,
      observedSince: (rv) => this.#electionWatch.observedSince(rv),
      ...this.#timings(),
      ...(opts.identity !== undefined ? { identity: opts.identity } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      logger: this.#logger,
      onStartedLeading: (signal) => this.#lead(signal),
    });
    this.identity = this.#elector.identity;
    this.#evictors = new ShardEvictors({
      api: this.#api,
      namespace: opts.namespace,
      ring: opts.ring,
      identity: this.identity,
      shardRing: ring,
      owners: this.#owners,
      timings: this.#timings(),
      logger: this.#logger,
      onTakeOver: (shard) => this.#enqueueAll(shard),
    });
    this.#labelWrites = {
      api: this.#api,
      fieldManager: opts.fieldManager ?? 'kubeloom-sharder',
      logger: this.#logger,
    };
    this.#deferral = new StandbyDeferral({
      clock: this.#clock,
      maxMs: 2 * (opts.leaseDurationMs ?? 15_000),
      logger: this.#logger,
    });
    for (const [i, t] of this.#tracked.entries()) {
      t.informer.addEventHandler({
        onAdd: (obj) => this.#count(undefined, obj, i),
        onUpdate: (old, obj) => this.#count(old, obj, i),
        onDelete: (obj) => this.#count(extractTombstone(obj), undefined, i),
      });
    }
  }

  #timings() {
    const o = this.#opts;
    return {
      ...(o.leaseDurationMs !== undefined ? { leaseDurationMs: o.leaseDurationMs } : {}),
      ...(o.renewDeadlineMs !== undefined ? { renewDeadlineMs: o.renewDeadlineMs } : {}),
      ...(o.retryPeriodMs !== undefined ? { retryPeriodMs: o.retryPeriodMs } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
    };
  }

  isLeader(): boolean {
    return this.#elector.isLeader();
  }

  hasSynced(): boolean {
    return this.#ring.hasSynced() && this.#tracked.every((t) => t.informer.hasSynced());
  }

  async waitUntilSynced(signal: AbortSignal): Promise<boolean> {
    const all = await Promise.all([
      this.#ring.waitUntilSynced(signal),
      ...this.#tracked.map((t) => t.informer.waitUntilSynced(signal)),
    ]);
    return all.every(Boolean);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(`sharder of ring ${this.#opts.ring}: run needs an AbortSignal that stops it`);
    }
    if (this.#running) throw new Error(`the sharder of ring ${this.#opts.ring} already runs`);
    const stop = AbortSignal.any([signal, this.#disposed.signal]);
    const work = (async () => {
      const background = [
        this.#ring.run(stop),
        this.#electionWatch.run(stop),
        ...this.#tracked.map((t) => t.informer.run(stop)),
      ];
      if (await this.waitUntilSynced(stop)) {
        while (!stop.aborted) await this.#elector.run(stop);
      }
      await Promise.all(background);
    })();
    this.#running = work;
    try {
      await work;
    } finally {
      this.#running = undefined;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposed.abort();
    await this.#running?.catch(() => {});
    await this.#elector[Symbol.asyncDispose]();
    await this.#ring[Symbol.asyncDispose]();
  }

  /** Keeps the per-owner counts, and enqueues the object while leading. */
  #count(old: KubeObject | undefined, obj: KubeObject | undefined, index: number): void {
    const before = old?.metadata?.labels?.[this.#labels.shard];
    const after = obj?.metadata?.labels?.[this.#labels.shard];
    if (before !== after) {
      if (before !== undefined) this.#owners.set(before, (this.#owners.get(before) ?? 1) - 1);
      if (before !== undefined && !this.#ring.isLive(before)) this.#deferral.progress();
      if (after !== undefined) this.#owners.set(after, (this.#owners.get(after) ?? 0) + 1);
      if (before !== undefined && this.#owners.get(before) === 0) {
        this.#owners.delete(before);
        this.#evictors.retireIfIdle(before);
      }
    }
    const meta = (obj ?? old)?.metadata;
    if (meta?.name !== undefined) {
      this.#enqueue?.(`${index}|${meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name}`);
    }
  }

  /**
   * Enqueues every object (or only `owner`'s). Objects that share a shard key are enqueued side
   * by side, the later-listed resources' first, so an object and those it owns (e.g. a policy and
   * its Deployment, keyed by {@link controllerOwnerKey}) reach their new shard together, not one
   * resource's objects after all of another's.
   */
  #enqueueAll(owner?: string): void {
    const enqueue = this.#enqueue;
    if (!enqueue) return;
    const groups = new Map<string, string[]>();
    for (let i = this.#tracked.length - 1; i >= 0; i--) {
      const t = this.#tracked[i]!;
      const shardKey = t.spec.key ?? objectShardKey;
      for (const key of t.informer.store.keys()) {
        const obj = t.informer.store.get(key);
        if (!obj || (owner !== undefined && obj.metadata?.labels?.[this.#labels.shard] !== owner)) continue;
        let group: string;
        try {
          group = shardKey(obj);
        } catch {
          group = `${i}|${key}`; // its reconcile reports the key function's error
        }
        const members = groups.get(group);
        if (members) members.push(`${i}|${key}`);
        else groups.set(group, [`${i}|${key}`]);
      }
    }
    for (const members of groups.values()) for (const key of members) enqueue(key);
  }

  async #lead(signal: AbortSignal): Promise<void> {
    const metrics = this.#opts.metrics?.sharding?.(this.#opts.ring, { assigned: () => this.#owners });
    this.#metrics = metrics;
    const queue = createQueue<string>({
      name: `sharder-${this.#opts.ring}`,
      reconciler: (key) => this.#reconcile(key),
      workers: this.#opts.workers ?? 16,
      // A failed write is retried (at most every 5 s) until it lands or the object changes.
      maxAttempts: Number.MAX_SAFE_INTEGER,
      rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 50, maxDelayMs: 5000 }),
      logger: this.#logger,
      ...(this.#opts.clock ? { clock: this.#opts.clock } : {}),
    });
    this.#leading = signal;
    this.#deferral.clear(); // what an earlier term's reconciles left, if its end did not clear it
    this.#evictors.lead(signal);
    this.#enqueue = (key) => queue.add(key);
    const unsubscribe = this.#ring.subscribe(() => {
      this.#logger.debug('ring changed', { live: this.#ring.members(), fenced: this.#ring.fenced() });
      this.#evictors.retireIdle();
      this.#enqueueAll();
    });
    this.#enqueueAll();
    const period = this.#opts.resyncPeriodMs ?? 30_000;
    let resync: TimerHandle | undefined;
    const tick = (): void => {
      this.#enqueueAll();
      resync = this.#clock.setTimeout(tick, period);
    };
    resync = this.#clock.setTimeout(tick, period);
    try {
      await queue.run(signal);
    } finally {
      this.#clock.clearTimeout(resync);
      unsubscribe();
      metrics?.close();
      // A lost election is not waited for (the elector campaigns again at once), so this replica
      // may lead again before this term's last reconciles settled: the state is then the next
      // term's, and this term's end leaves it alone.
      if (this.#leading === signal) {
        this.#enqueue = undefined;
        this.#leading = undefined;
        this.#draining.clear();
        this.#deferral.clear();
        this.#metrics = undefined;
        await this.#evictors.stopAll();
      }
    }
  }

  async #reconcile(queueKey: string): Promise<ReconcileResult | undefined> {
    // This term's signal, read once: every write of this reconcile ends with the term.
    const leading = this.#leading;
    const bar = queueKey.indexOf('|');
    const tracked = this.#tracked[Number(queueKey.slice(0, bar))]!;
    const storeKey = queueKey.slice(bar + 1);
    const deferredSince = this.#deferral.begin(queueKey);
    const obj = tracked.informer.store.get(storeKey);
    if (obj === undefined) {
      this.#draining.delete(queueKey);
      return;
    }
    const labels = obj.metadata?.labels ?? {};
    const current = labels[this.#labels.shard];
    const hashed = this.#ring.hashRing();
    const key = (tracked.spec.key ?? objectShardKey)(obj);
    const desired = hashed.shardFor(key);
    if (desired === undefined) return; // no live shard: nothing to assign to
    // The standby of an object owned by `owner`: where it goes if `owner` leaves the ring.
    const standbyFor = (owner: string) => (owner === desired ? hashed.successorFor(key) : desired);
    if (current === undefined || current === '') {
      const drained = this.#draining.get(queueKey);
      // Not written (changed since the cache saw it, or the term ended): its next event or the
      // next term enqueues it again.
      if (!(await this.#write({ tracked, obj }, { shard: desired, standby: standbyFor(desired) }, leading)))
        return;
      this.#draining.delete(queueKey);
      if (drained) {
        if (drained.from !== desired) this.#metrics?.move(desired);
        this.#metrics?.observeDrain(drained.from, (this.#clock.now() - drained.at) / 1000);
      }
      return;
    }
    if (this.#evictors.holds(current) || !this.#ring.isLive(current)) {
      // Its owner stopped renewing (or released its Lease): move only under that Lease. Its live
      // standby adopted the object the moment the Lease was taken: the move goes to that standby.
      const evictor = this.#evictors.evictor(current);
      if (!evictor.elector.isLeader()) return; // enqueued again once it holds the Lease
      // The ring view may not show the owner gone yet (a released Lease taken at once): never
      // choose it, as target or as standby.
      const choice = desired === current ? hashed.successorFor(key) : desired;
      const standby = labels[this.#labels.standby];
      const target =
        standby !== undefined && standby !== current && this.#ring.isLive(standby) ? standby : choice;
      if (target === undefined) return; // no other shard: enqueued again when the ring changes
      const next = standbyFor(target);
      // Under the evictor's Lease and within this term: a term that ended writes nothing more
      // (the next term, on this replica or another, moves what is left).
      if (!leading) return;
      const moved = await this.#write(
        { tracked, obj },
        { shard: target, standby: next === current ? undefined : next },
        AbortSignal.any([evictor.stop.signal, leading]),
      );
      if (!moved) return;
      this.#draining.delete(queueKey);
      if (current !== target) this.#metrics?.move(target);
      return;
    }
    this.#evictors.evictor(current); // standing by: takes over the moment the owner's Lease expires
    if (labels[this.#labels.drain] !== undefined) return;
    if (current === desired) {
      const standby = standbyFor(current);
      if (labels[this.#labels.standby] === standby || this.#evictors.isFencing(current)) return;
      // Only the standby is wrong, and its owner is live: it has no meaning until the owner is
      // fenced, and the fence waits for this write (see ShardEvictors). Moves go first: while a
      // dead shard's objects wait to move, this write waits (a dead shard's objects and the live
      // ones whose standby it was are enqueued together when it leaves the ring), but not for good
      // when a move keeps failing (see StandbyDeferral).
      if (this.#deferral.waits(queueKey, deferredSince, this.#pendingOwners())) {
        return { requeueAfterMs: STANDBY_DEFER_MS };
      }
      await this.#evictors.standbyWrite(
        current,
        this.#patch({ tracked, obj }, { [this.#labels.standby]: standby ?? null }, leading),
      );
      return;
    }
    if (!(await this.#patch({ tracked, obj }, { [this.#labels.drain]: 'true' }, leading))) return;
    this.#draining.set(queueKey, { from: current, at: this.#clock.now() });
    return undefined;
  }

  /** The shards not live that still own objects (they move before any standby-only write). */
  #pendingOwners(): string[] {
    const pending: string[] = [];
    for (const owner of this.#owners.keys()) if (!this.#ring.isLive(owner)) pending.push(owner);
    return pending;
  }

  /**
   * Writes the shard label and its standby together (a move or an assignment), dropping the drain
   * label; false when nothing was written.
   */
  #write(
    target: Target,
    to: { readonly shard: string; readonly standby: string | undefined },
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    return this.#patch(
      target,
      {
        [this.#labels.shard]: to.shard,
        [this.#labels.standby]: to.standby ?? null,
        [this.#labels.drain]: null,
      },
      signal,
    );
  }

  /** Merge-patches labels under the object's resourceVersion; false when nothing was written. */
  #patch({ tracked, obj }: Target, labels: Record<string, string | null>, signal: AbortSignal | undefined) {
    return patchLabels(this.#labelWrites, { resource: tracked.spec.resource, obj, labels }, signal);
  }
}
