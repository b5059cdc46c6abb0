import { extractTombstone, type HandlerRegistration, type KubeClient, type Tombstone } from '@kubeloom/kube';
import { type Clock, systemClock, type TimerHandle } from './clock.ts';
import { type HashRing, hashRing } from './hash-ring.ts';
import { type LeaseJson, LeaseResource, recordLeaseDurationMs } from './internal/lease.ts';
import { type ShardLabels, shardLabels } from './shard-labels.ts';

/** Options of {@link createShardRing}. */
export interface ShardRingOptions {
  /** The client whose shared informer watches the ring's Leases. */
  readonly kube: KubeClient;
  /** The ring's name (see {@link shardLabels}). */
  readonly ring: string;
  /** The namespace of the ring's shard Leases. */
  readonly namespace: string;
  /** Virtual nodes per shard of {@link ShardRing.hashRing}. Default 1000. */
  readonly virtualNodes?: number;
  /** The clock lease expiry is measured on. Default {@link systemClock}. */
  readonly clock?: Clock;
}

/**
 * The live view of a ring: which shards hold their Lease. A shard is live while its Lease names
 * it as holder and the Lease record changed within its lease duration, measured on this
 * process's clock from when the change was observed (wall-clock times in the Lease are never
 * trusted, as in the leader elector); a Lease seen for the first time counts as just renewed.
 */
export interface ShardRing {
  /** The ring's label keys. */
  readonly labels: ShardLabels;
  /** The live shards' identities, sorted. */
  members(): readonly string[];
  /** True while `identity` is one of {@link ShardRing.members}. */
  isLive(identity: string): boolean;
  /**
   * True while shard `identity` is fenced: its Lease is held by someone else (the sharder's
   * evictor, `<sharder>-evicting`, once the shard's own record expired) and that holder's record
   * changed within two thirds of its lease duration, on this process's clock. The shard then
   * cannot be reconciling (it lost its Lease by its renew deadline, before the Lease could be
   * taken), and the standbys named on its objects adopt them. The two-thirds bound makes an
   * adopter let go a third of a lease duration before anyone can take a Lease whose holder stopped
   * renewing, so its own lag behind the Lease and its in-flight reconciles fit in that margin.
   */
  isFenced(identity: string): boolean;
  /** The fenced shards (see {@link ShardRing.isFenced}), sorted. */
  fenced(): readonly string[];
  /** The consistent-hash ring over {@link ShardRing.members} (rebuilt when they change). */
  hashRing(): HashRing;
  /**
   * When (on this ring's clock) the ring first saw shard `identity`'s Lease at `resourceVersion`;
   * `undefined` when its last seen version is another. A candidate for that Lease passes it as
   * the leader elector's `observedSince`.
   */
  observedSince(identity: string, resourceVersion: string): number | undefined;
  /** Calls `listener` after the live or the fenced shards changed; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** True once the Lease informer has synced. */
  hasSynced(): boolean;
  /** Resolves true once synced, false when `signal` aborts first. */
  waitUntilSynced(signal: AbortSignal): Promise<boolean>;
  /**
   * Runs the Lease informer (unless the KubeClient already runs it) and the expiry timer until
   * `signal` aborts; settles once stopped.
   */
  run(signal: AbortSignal): Promise<void>;
  /** Stops the expiry timer and removes the informer handler, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

interface Seen {
  readonly rv: string;
  readonly holder: string;
  readonly durationMs: number;
  readonly observedAt: number;
}

/**
 * Creates the live view of a ring from an informer on its shard Leases (label
 * `sharding.kubeloom.dev/ring=<ring>`). Construction does no I/O. From `src/sharding.example.test.ts`:
 *
 * {@includeCode ./sharding.example.test.ts#ring}
 *
 * @throws TypeError for a ring name that cannot be a label key's name part.
 */
export function createShardRing(opts: ShardRingOptions): ShardRing {
  const labels = shardLabels(opts.ring);
  const clock = opts.clock ?? systemClock;
  const informer = opts.kube.informer(LeaseResource, {
    namespace: opts.namespace,
    labelSelector: labels.leaseSelector,
  });
  const seen = new Map<string, Seen>();
  const listeners = new Set<() => void>();
  let members: readonly string[] = [];
  let memberSet = new Set<string>();
  let fenced: readonly string[] = [];
  let fencedSet = new Set<string>();
  let ring: HashRing | undefined;
  let timer: TimerHandle | undefined;

  const live = (name: string, s: Seen, now: number) => s.holder === name && now < s.observedAt + s.durationMs;
  const fenceEnd = (s: Seen) => s.observedAt + (s.durationMs * 2) / 3;
  const isFenced = (name: string, s: Seen, now: number) =>
    s.holder !== '' && s.holder !== name && now < fenceEnd(s);
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((m, i) => m === b[i]);

  const recompute = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    const now = clock.now();
    const next: string[] = [];
    const nextFenced: string[] = [];
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const [name, s] of seen) {
      if (live(name, s, now)) {
        next.push(name);
        nextExpiry = Math.min(nextExpiry, s.observedAt + s.durationMs);
      } else if (isFenced(name, s, now)) {
        nextFenced.push(name);
        nextExpiry = Math.min(nextExpiry, fenceEnd(s));
      }
    }
    next.sort();
    nextFenced.sort();
    if (Number.isFinite(nextExpiry) && informer.isStarted()) {
      timer = clock.setTimeout(recompute, Math.max(0, Math.ceil(nextExpiry - now)) + 1);
    }
    const membersChanged = !same(next, members);
    if (!membersChanged && same(nextFenced, fenced)) return;
    if (membersChanged) {
      members = next;
      memberSet = new Set(next);
      ring = undefined;
    }
    fenced = nextFenced;
    fencedSet = new Set(nextFenced);
    for (const l of listeners) l();
  };

  const observe = (lease: LeaseJson): void => {
    const name = lease.metadata?.name ?? '';
    const rv = lease.metadata?.resourceVersion ?? '';
    if (seen.get(name)?.rv === rv) return;
    seen.set(name, {
      rv,
      holder: lease.spec?.holderIdentity ?? '',
      durationMs: recordLeaseDurationMs(lease.spec),
      observedAt: clock.now(),
    });
    recompute();
  };
  let registration: HandlerRegistration | undefined = informer.addEventHandler({
    onAdd: observe,
    onUpdate: (_old, lease) => observe(lease),
    onDelete: (obj: LeaseJson | Tombstone<LeaseJson>) => {
      const lease = extractTombstone(obj);
      seen.delete(lease.metadata?.name ?? '');
      recompute();
    },
  });
  const stop = (): void => {
    registration?.remove();
    registration = undefined;
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };

  return {
    labels,
    members: () => members,
    isLive: (identity) => memberSet.has(identity),
    isFenced: (identity) => {
      // Checked against the clock, not only the last recompute: a fence never outlives its bound.
      const s = seen.get(identity);
      return fencedSet.has(identity) && s !== undefined && isFenced(identity, s, clock.now());
    },
    fenced: () => fenced,
    observedSince(identity, resourceVersion) {
      const s = seen.get(identity);
      return s?.rv === resourceVersion ? s.observedAt : undefined;
    },
    hashRing: () => {
      ring ??= hashRing(members, { virtualNodes: opts.virtualNodes });
      return ring;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hasSynced: () => registration?.hasSynced() === true,
    async waitUntilSynced(signal) {
      return (await informer.waitUntilSynced(signal)) && registration?.hasSynced() === true;
    },
    async run(signal) {
      if (!(signal instanceof AbortSignal)) {
        throw new TypeError(`shard ring ${opts.ring}: run needs an AbortSignal that stops it`);
      }
      const running = informer.run(signal);
      recompute();
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      stop();
      await running;
    },
    async [Symbol.asyncDispose]() {
      stop();
    },
  };
}
