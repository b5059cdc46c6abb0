import type { ApiClient, Logger } from '@kubeloom/kube';
import type { Clock } from './clock.ts';
import type { ControllerMetrics } from './metrics.ts';

/** Where the Lease lives. */
export interface LeaseRef {
  /** The Lease's namespace. */
  readonly namespace: string;
  /** The Lease's name. */
  readonly name: string;
}

/** Options of {@link createLeaderElector}. */
export interface LeaderElectionOptions {
  /** The API the Lease is read and written through, e.g. `kubeClient.api`. */
  readonly api: ApiClient;
  /** The `coordination.k8s.io/v1` Lease to compete for; it is created when missing. */
  readonly lease: LeaseRef;
  /**
   * Labels this candidate writes onto the Lease with every create, acquisition and renewal
   * (other labels are kept), e.g. the ring label of a shard Lease. Default: none.
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * For a process that already watches the Lease (e.g. a shard ring's informer, on this elector's
   * clock): given a resourceVersion the elector reads, when this process first saw that version,
   * or `undefined`. The record's lease duration then counts from that moment instead of from the
   * elector's own first read — as safe, since the record stood unchanged at least since then — so a
   * candidate created late need not wait a second full lease duration. Default: none.
   */
  readonly observedSince?: (resourceVersion: string) => number | undefined;
  /**
   * This candidate's identity, unique per process (two processes with one identity both lead).
   * Default: `<hostname>_<random uuid>`.
   */
  readonly identity?: string;
  /**
   * How long a candidate waits, on its own clock, after the Lease record last changed before it
   * takes over. A whole number of seconds (the Lease stores seconds). Default 15 s.
   */
  readonly leaseDurationMs?: number;
  /**
   * How long after the start of its last successful renewal the leader keeps leading without
   * another success. Default 10 s. Must be shorter than the lease duration.
   */
  readonly renewDeadlineMs?: number;
  /** How often a candidate tries to acquire and the leader renews. Default 2 s. renewDeadline must exceed 1.2 × this. */
  readonly retryPeriodMs?: number;
  /**
   * On graceful stop (the run signal aborts while leading), wait for the work started by
   * {@link LeaderElectionOptions.onStartedLeading} to settle, then clear the holder so a successor
   * takes over at once. Default true.
   */
  readonly releaseOnCancel?: boolean;
  /**
   * Called when this process becomes the leader. `signal` aborts when leadership ends (lost, or
   * the elector stopping). Return a promise for the work so a graceful stop can wait for it.
   */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once when this process stops leading, whatever the reason. */
  readonly onStoppedLeading?: () => void;
  /** Called when the observed leader changes (this process included). */
  readonly onNewLeader?: (identity: string) => void;
  /** Where transitions and failures are logged. Default `consoleLogger('warn')`. */
  readonly logger?: Logger;
  /** Reports `leader_election_master_status{name=<lease name>}`. Default: none. */
  readonly metrics?: ControllerMetrics;
  /** The candidate's own clock for every duration above. Default {@link systemClock}. */
  readonly clock?: Clock;
  /** Wall-clock time written into `acquireTime`/`renewTime` (informational only; never read back). Default `new Date()`. */
  readonly wallClock?: () => Date;
}

/**
 * A Lease-based leader elector (client-go's `tools/leaderelection` with a Lease lock), with
 * stricter rules: timings are validated, the take-over wait uses the longer of the record's and
 * our own lease duration, the renew deadline counts from when the last successful renewal was
 * *sent*, and a leader that sees another holder (or a deleted Lease) steps down at once.
 */
export interface LeaderElector {
  /** This candidate's identity. */
  readonly identity: string;
  /**
   * Campaigns until this process leads, then renews until leadership is lost or `signal` aborts.
   * Resolves when it stopped leading (after `onStoppedLeading` and, on graceful stop, the
   * release), or when `signal` aborted before it led. To campaign again, call `run` again: after
   * stepping down it waits, like any candidate, until the record expired, even one naming itself.
   *
   * @throws Error when the elector is already running.
   */
  run(signal: AbortSignal): Promise<void>;
  /**
   * Stops the elector for good, for `await using`: a running `run` stops as if its signal aborted
   * (a leader releases the Lease when `releaseOnCancel`), and disposal resolves once it returned;
   * a later `run` returns at once.
   */
  [Symbol.asyncDispose](): Promise<void>;
  /** True while this process leads and the renew deadline has not passed on its clock. */
  isLeader(): boolean;
  /** The holder last observed in the Lease (this process included), or undefined. */
  getLeader(): string | undefined;
}

/** Raised for leader-election settings that could let two processes lead at once. */
export class LeaderElectionConfigError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'LeaderElectionConfigError';
  }
}
