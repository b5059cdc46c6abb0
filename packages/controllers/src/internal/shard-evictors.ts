import { type ApiClient, type Logger, serializeError } from '@kubeloom/kube';
import type { Clock } from '../clock.ts';
import { createLeaderElector } from '../create-leader-elector.ts';
import type { ShardRing } from '../create-shard-ring.ts';
import type { LeaderElector } from '../leader-election.ts';
import { RING_LABEL } from '../shard-labels.ts';

/** A forced move's licence: an elector that took over (or stands by to take over) a dead shard's Lease. */
export interface Evictor {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  /** The sharder's term it was started in: it ends with that term. */
  readonly term: AbortSignal | undefined;
}

/** The leader-election timings the evictors share with the sharder's own elector. */
interface EvictorTimings {
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
}

/** What the sharder gives its evictors. */
export interface ShardEvictorsOptions {
  readonly api: ApiClient;
  /** Namespace of the ring's Leases. */
  readonly namespace: string;
  /** The ring's name (the Leases' ring label). */
  readonly ring: string;
  /** The sharder's identity; an evictor holds a Lease as `<identity>-evicting`. */
  readonly identity: string;
  readonly shardRing: ShardRing;
  /** Objects per owner (shard label value), kept by the sharder. */
  readonly owners: ReadonlyMap<string, number>;
  readonly timings: EvictorTimings;
  readonly logger: Logger;
  /** Called once an evictor holds a dead shard's Lease: the sharder moves that shard's objects. */
  readonly onTakeOver: (shard: string) => void;
}

/**
 * The sharder's evictors, one per shard whose owner is dead or may die: each is a candidate for
 * that shard's Lease that takes it over only once its record stood still for a lease duration.
 * Also the fence: while an evictor writes or holds a shard's Lease the shard counts as fencing,
 * so no standby-only write of its objects starts, and the Lease write waits for those in flight
 * (each adopter stays the one the move goes to).
 */
export class ShardEvictors {
  readonly #opts: ShardEvictorsOptions;
  readonly #evictors = new Map<string, Evictor>();
  /** Shards whose Lease an evictor is taking or holds: their objects' standby labels are frozen. */
  readonly #fencing = new Set<string>();
  /** In-flight standby-only writes per owner, which an evictor's Lease write waits for. */
  readonly #standbyWrites = new Map<string, Set<Promise<unknown>>>();
  #leading: AbortSignal | undefined;

  constructor(opts: ShardEvictorsOptions) {
    this.#opts = opts;
  }

  /** Starts a term of the sharder's leadership: evictors run until `signal` aborts or {@link stopAll}. */
  lead(signal: AbortSignal): void {
    this.#leading = signal;
  }

  /** Whether an evictor holds `shard`'s Lease. */
  holds(shard: string): boolean {
    return this.#evictors.get(shard)?.elector.isLeader() ?? false;
  }

  /** Whether `shard`'s objects' standby labels are frozen (its Lease is being taken or held). */
  isFencing(shard: string): boolean {
    return this.#fencing.has(shard);
  }

  /** Tracks a standby-only write of `owner`'s object, which the fence of `owner` waits for. */
  async standbyWrite(owner: string, write: Promise<unknown>): Promise<void> {
    const writes = this.#standbyWrites.get(owner) ?? new Set<Promise<unknown>>();
    this.#standbyWrites.set(owner, writes);
    writes.add(write);
    try {
      await write;
    } finally {
      writes.delete(write);
      if (writes.size === 0 && this.#standbyWrites.get(owner) === writes) this.#standbyWrites.delete(owner);
    }
  }

  /** Stops the candidate for a shard's Lease once no object names the shard and it is not live. */
  retireIfIdle(shard: string): void {
    if (!this.#opts.owners.has(shard) && !this.#opts.shardRing.isLive(shard)) {
      this.#evictors.get(shard)?.stop.abort();
    }
  }

  /** {@link retireIfIdle} for every shard with an evictor. */
  retireIdle(): void {
    for (const shard of [...this.#evictors.keys()]) this.retireIfIdle(shard);
  }

  /** Ends the term: stops every evictor and waits for them (releasing their Leases as they may). */
  async stopAll(): Promise<void> {
    this.#leading = undefined;
    const evictors = [...this.#evictors.values()];
    this.#evictors.clear();
    for (const e of evictors) e.stop.abort();
    await Promise.all(evictors.map((e) => e.done));
  }

  /**
   * The candidate for a shard's Lease (started on first use): it takes the Lease over only once
   * the record stayed unchanged for a lease duration (the leader elector's rule), and lets go
   * once no object names the shard any more. An earlier term's evictor, still ending (a lost
   * election is not waited for), is replaced: it would never take the Lease, and the objects
   * waiting for it would wait for the next resync.
   */
  evictor(shard: string): Evictor {
    const existing = this.#evictors.get(shard);
    if (existing && existing.term === this.#leading) return existing;
    const opts = this.#opts;
    const stop = new AbortController();
    const owners = opts.owners;
    const elector: LeaderElector = createLeaderElector({
      api: this.#fencingApi(shard, () => elector.isLeader()),
      lease: { namespace: opts.namespace, name: shard },
      identity: `${opts.identity}-evicting`,
      // Released only once no object names the shard: while some do, their standbys adopt them,
      // and the Lease must expire (adopters let go before that) rather than be free for the shard
      // to take back at once.
      get releaseOnCancel() {
        return !owners.has(shard);
      },
      labels: { [RING_LABEL]: opts.ring },
      // The ring has watched the Lease all along (also before this replica became the sharder):
      // its stillness counts from then, so a dead shard's objects move one lease duration after
      // its last renewal even when the sharder itself failed over meanwhile.
      observedSince: (rv) => opts.shardRing.observedSince(shard, rv),
      ...opts.timings,
      logger: opts.logger,
      onStartedLeading: async (held) => {
        opts.logger.info('took over the Lease of a shard that stopped renewing; moving its objects', {
          shard,
        });
        opts.onTakeOver(shard);
        await new Promise<void>((resolve) => held.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
    const term = this.#leading;
    const signal = AbortSignal.any([stop.signal, term ?? AbortSignal.abort()]);
    const done = (async () => {
      try {
        while (!signal.aborted) await elector.run(signal);
      } catch (err) {
        opts.logger.error('evicting a shard failed', { shard, err: serializeError(err) });
      } finally {
        // Its fence ends with it, unless a newer evictor of the shard (the next term's) holds it;
        // stopAll has already let go of it in the map.
        const current = this.#evictors.get(shard);
        if (current === undefined || current.elector === elector) {
          this.#evictors.delete(shard);
          this.#fencing.delete(shard);
        }
      }
    })();
    const evictor = { elector, stop, done, term };
    this.#evictors.set(shard, evictor);
    return evictor;
  }

  /**
   * The API of a shard's evictor: before any write of the shard's Lease (a take-over or a renewal)
   * the shard counts as fencing, so no standby-only write of its objects starts, and the Lease
   * write waits for those in flight. A take-over that fails leaves the shard unfenced.
   */
  #fencingApi(shard: string, leading: () => boolean): ApiClient {
    const api = this.#opts.api;
    const fence = async <R>(write: () => Promise<R>): Promise<R> => {
      this.#fencing.add(shard);
      try {
        await Promise.all([...(this.#standbyWrites.get(shard) ?? [])].map((w) => w.catch(() => {})));
        return await write();
      } catch (err) {
        if (!leading()) this.#fencing.delete(shard);
        throw err;
      }
    };
    return new Proxy(api, {
      get(target, prop) {
        if (prop === 'update')
          return (...args: Parameters<ApiClient['update']>) => fence(() => api.update(...args));
        if (prop === 'create')
          return (...args: Parameters<ApiClient['create']>) => fence(() => api.create(...args));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
