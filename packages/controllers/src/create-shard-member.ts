import type { ApiClient, Logger } from '@kubeloom/kube';
import type { Clock } from './clock.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import type { LeaderElector } from './leader-election.ts';
import type { ControllerMetrics } from './metrics.ts';
import { RING_LABEL, shardLabels, validateShardIdentity } from './shard-labels.ts';

/** Options of {@link createShardMember}. */
export interface ShardMemberOptions {
  /** The API the Lease is read and written through, e.g. `kubeClient.api`. */
  readonly api: ApiClient;
  /** The ring's name (see {@link shardLabels}). */
  readonly ring: string;
  /** The namespace of the ring's shard Leases. */
  readonly namespace: string;
  /**
   * This replica's shard identity: its Lease's name and the value of the shard label on the
   * objects it owns. Unique per replica and stable across restarts (e.g. the pod name).
   */
  readonly identity: string;
  /** As in the leader elector: how long a silent Lease takes to expire. Default 15 s. */
  readonly leaseDurationMs?: number;
  /** As in the leader elector: how long without a renewal before this replica stops. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** As in the leader elector: how often the Lease is renewed. Default 2 s. */
  readonly retryPeriodMs?: number;
  /**
   * Called when this replica holds its Lease: start the sharded controllers (informers with
   * {@link shardLabels}' shard label = identity, a queue with `shardedReconciler`) under `signal`,
   * which aborts when the Lease is lost or the member stops. Return a promise for that work: a
   * clean stop waits for it before it releases the Lease. After a loss the member campaigns again
   * and calls it again with a fresh signal; build the controllers' KubeClient inside it, so a
   * rejoining replica starts from a fresh list rather than a cache that may lag the moves made
   * while it was out.
   */
  readonly onJoined: (signal: AbortSignal) => void | Promise<void>;
  /**
   * On a clean stop, wait for the work of `onJoined`, then release the Lease so the sharder moves
   * this replica's objects at once. Default true; false leaves the Lease to expire (as a crash does).
   */
  readonly releaseOnCancel?: boolean;
  /** Called each time this replica stops holding its Lease, whatever the reason. */
  readonly onLeft?: () => void;
  /** Where transitions are logged. Default `consoleLogger('warn')`. */
  readonly logger?: Logger;
  /** Reports `leader_election_master_status{name=<identity>}` (1 while a member). Default: none. */
  readonly metrics?: ControllerMetrics;
  /** The member's own clock. Default {@link systemClock}. */
  readonly clock?: Clock;
}

/**
 * One replica's membership of a ring: it holds its own Lease (named after its identity, labelled
 * `sharding.kubeloom.dev/ring=<ring>`), renewed as the leader elector renews, so the ring's
 * sharder sees it as live and assigns it objects.
 */
export interface ShardMember {
  /** This replica's identity. */
  readonly identity: string;
  /** The ring's name. */
  readonly ring: string;
  /**
   * Holds the Lease until `signal` aborts, joining again after a loss. On a clean stop it waits
   * for the work of `onJoined`, then releases the Lease, so the sharder moves this replica's
   * objects at once instead of after the lease duration. Settles once stopped.
   *
   * @throws Error when the member already runs.
   */
  run(signal: AbortSignal): Promise<void>;
  /** True while this replica holds its Lease (renewed within the renew deadline). */
  isMember(): boolean;
  /** Stops the member (releasing its Lease) and resolves once it stopped, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Creates a replica's ring membership. Construction does no I/O. From
 * `src/sharding.example.test.ts`:
 *
 * {@includeCode ./sharding.example.test.ts#member}
 *
 * @throws TypeError for a ring name or identity that cannot be a label, and
 *   LeaderElectionConfigError for timings that could let a dead member look live.
 */
export function createShardMember(opts: ShardMemberOptions): ShardMember {
  const labels = shardLabels(opts.ring);
  validateShardIdentity(opts.identity);
  const elector: LeaderElector = createLeaderElector({
    api: opts.api,
    lease: { namespace: opts.namespace, name: opts.identity },
    identity: opts.identity,
    labels: { [RING_LABEL]: labels.ring },
    ...(opts.leaseDurationMs !== undefined ? { leaseDurationMs: opts.leaseDurationMs } : {}),
    ...(opts.renewDeadlineMs !== undefined ? { renewDeadlineMs: opts.renewDeadlineMs } : {}),
    ...(opts.retryPeriodMs !== undefined ? { retryPeriodMs: opts.retryPeriodMs } : {}),
    onStartedLeading: opts.onJoined,
    ...(opts.releaseOnCancel !== undefined ? { releaseOnCancel: opts.releaseOnCancel } : {}),
    ...(opts.onLeft ? { onStoppedLeading: opts.onLeft } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const disposed = new AbortController();
  let running: Promise<void> | undefined;
  return {
    identity: opts.identity,
    ring: labels.ring,
    isMember: () => elector.isLeader(),
    async run(signal) {
      if (!(signal instanceof AbortSignal)) {
        throw new TypeError(`shard member ${opts.identity}: run needs an AbortSignal that stops it`);
      }
      if (running) throw new Error(`shard member ${opts.identity} of ring ${labels.ring} already runs`);
      const stop = AbortSignal.any([signal, disposed.signal]);
      const loop = (async () => {
        // The elector returns when the Lease was lost; campaign again (it waits until the record
        // expired, even one naming us, since renewals sent before the loss may land late).
        while (!stop.aborted) await elector.run(stop);
      })();
      running = loop;
      try {
        await loop;
      } finally {
        running = undefined;
      }
    },
    async [Symbol.asyncDispose]() {
      disposed.abort();
      await running?.catch(() => {});
      await elector[Symbol.asyncDispose]();
    },
  };
}
