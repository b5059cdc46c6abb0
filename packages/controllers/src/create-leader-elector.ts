import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  consoleLogger,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type Logger,
  serializeError,
} from '@kubeloom/kube';
import { type Clock, systemClock, type TimerHandle } from './clock.ts';
import { type Timings, validateLeaderElection } from './internal/leader-election-options.ts';
import {
  type LeaseJson,
  LeaseResource,
  type LeaseSpecJson,
  microTime,
  recordLeaseDurationMs,
  recordTransitions,
} from './internal/lease.ts';
import { sleep, timeoutSignal } from './internal/sleep.ts';
import type { LeaderElectionOptions, LeaderElector } from './leader-election.ts';
import type { LeaderElectionMetricsRecorder } from './metrics.ts';

/** The result of one read-and-write round on the Lease. */
type Attempt =
  | { readonly outcome: 'acquired'; readonly sentAt: number }
  | { readonly outcome: 'held' | 'failed' }
  | { readonly outcome: 'lost'; readonly reason: string };

const HELD: Attempt = { outcome: 'held' };
const FAILED: Attempt = { outcome: 'failed' };
const NEVER = new AbortController().signal;

/**
 * Creates a {@link LeaderElector} for a Lease. Construction does no I/O.
 *
 * Rules: a candidate acquires the Lease when it does not exist, has no holder, or its record
 * (its resourceVersion) stayed unchanged for a full lease duration (the longer of the record's
 * and ours) on the candidate's own clock; wall-clock times in the Lease are never trusted. The
 * leader renews every retry period and stops leading when no renewal *sent* within the last
 * renew deadline succeeded. Every write carries the resourceVersion it read. Once it stopped
 * leading, it sends no more renewals (an in-flight one is aborted and its outcome ignored), and
 * a later `run` treats a record that still names it like anyone else's: renewals sent before it
 * stepped down may have landed unseen, so it waits for the record to expire too.
 *
 * @throws LeaderElectionConfigError unless leaseDuration > renewDeadline > 1.2 × retryPeriod and
 *   every option is well formed.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createLeaderElector}
 */
export function createLeaderElector(opts: LeaderElectionOptions): LeaderElector {
  return new Elector(opts);
}

class Elector implements LeaderElector {
  readonly identity: string;
  readonly #opts: LeaderElectionOptions;
  readonly #t: Timings;
  readonly #clock: Clock;
  readonly #wallClock: () => Date;
  readonly #logger: Logger;
  readonly #leaseName: string;
  #running = false;
  /** Aborted by disposal: stops the current and every later run. */
  readonly #disposed = new AbortController();
  /** The current run's campaign, while `run` is in progress. */
  #campaigning: Promise<void> | undefined;
  #leading = false;
  #validUntil = Number.NEGATIVE_INFINITY;
  /** What we last saw: `undefined` before the first read, `null` for a missing Lease, else its resourceVersion. */
  #observedRv: string | null | undefined;
  #observedHolder = '';
  /** When (on our clock) the record last changed. */
  #observedTime = 0;
  /** When the record last seen held by another may be taken over, unless it changes first. */
  #heldUntil = 0;
  /** The Lease vanished after we saw it held: wait a lease duration before creating it. */
  #absentAfterHeld = false;
  /**
   * We held the Lease and let go (stepped down, stopped, or abandoned an acquisition): a record
   * naming us is no licence to write, since writes sent before we let go may have landed late.
   */
  #steppedDown = false;
  #reportedLeader: string | undefined;
  #lastWarning: string | undefined;
  #lastWarningAt = Number.NEGATIVE_INFINITY;

  constructor(opts: LeaderElectionOptions) {
    this.#t = validateLeaderElection(opts);
    this.#opts = opts;
    this.identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
    this.#clock = opts.clock ?? systemClock;
    this.#wallClock = opts.wallClock ?? (() => new Date());
    this.#leaseName = `${opts.lease.namespace}/${opts.lease.name}`;
    this.#logger = (opts.logger ?? consoleLogger('warn')).child({
      lease: this.#leaseName,
      identity: this.identity,
    });
  }

  isLeader(): boolean {
    return this.#leading && this.#clock.now() < this.#validUntil;
  }

  getLeader(): string | undefined {
    return this.#reportedLeader;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(
        `leader elector for lease ${this.#leaseName}: run needs an AbortSignal that stops it`,
      );
    }
    if (this.#running) {
      throw new Error(
        `leader elector ${this.identity} for lease ${this.#leaseName} is already running; one run at a time`,
      );
    }
    this.#running = true;
    const campaign = this.#campaign(AbortSignal.any([signal, this.#disposed.signal]));
    this.#campaigning = campaign;
    try {
      await campaign;
    } finally {
      this.#campaigning = undefined;
      this.#running = false;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposed.abort();
    await this.#campaigning?.catch(() => {}); // run's caller sees its error
  }

  async #campaign(signal: AbortSignal): Promise<void> {
    const metrics = this.#opts.metrics?.leaderElection(this.#opts.lease.name);
    try {
      while (!signal.aborted) {
        const attemptSignal = timeoutSignal(this.#clock, this.#t.renewDeadlineMs, signal);
        let attempt: Attempt;
        try {
          attempt = await this.#tryAcquireOrRenew(attemptSignal.signal, false);
        } finally {
          attemptSignal.dispose();
        }
        if (attempt.outcome === 'acquired') {
          if (signal.aborted) {
            // Stopped while the acquiring write was in flight: the Lease names us, but we never
            // started leading. Hand it back rather than make the others wait a lease duration.
            await this.#abandon(attempt.sentAt);
            return;
          }
          await this.#lead(signal, attempt.sentAt, metrics);
          return;
        }
        // Held by another: try again after a retry period, or at the moment the record would have
        // stayed unchanged for a lease duration if that comes first, so a dead holder's Lease is
        // taken over as soon as the rules allow, not up to a retry period later.
        const untilExpiry =
          attempt === HELD ? Math.max(0, this.#heldUntil - this.#clock.now()) : Number.POSITIVE_INFINITY;
        await sleep(this.#clock, Math.min(this.#t.retryPeriodMs, untilExpiry), signal);
      }
    } finally {
      metrics?.close();
    }
  }

  async #lead(
    signal: AbortSignal,
    sentAt: number,
    metrics: LeaderElectionMetricsRecorder | undefined,
  ): Promise<void> {
    const clock = this.#clock;
    const leading = new AbortController();
    let lostReason: string | undefined;
    let deadline: TimerHandle | undefined;
    const lose = (reason: string): void => {
      if (lostReason !== undefined || leading.signal.aborted) return;
      lostReason = reason;
      this.#leading = false;
      leading.abort(new Error(`leadership of lease ${this.#leaseName} lost: ${reason}`));
    };
    const armDeadline = (): void => {
      if (deadline !== undefined) clock.clearTimeout(deadline);
      deadline = clock.setTimeout(
        () => lose(`no renewal succeeded within the renew deadline (${this.#t.renewDeadlineMs} ms)`),
        this.#validUntil - clock.now(),
      );
    };

    this.#validUntil = sentAt + this.#t.renewDeadlineMs;
    this.#leading = true;
    armDeadline();
    metrics?.setLeader(true);
    this.#logger.info('started leading');
    let work: Promise<void>;
    try {
      work = Promise.resolve(this.#opts.onStartedLeading(leading.signal)).then(
        () => {},
        (err: unknown) => this.#logger.error('onStartedLeading failed', { err: serializeError(err) }),
      );
    } catch (err) {
      this.#logger.error('onStartedLeading failed', { err: serializeError(err) });
      work = Promise.resolve();
    }

    const loopSignal = AbortSignal.any([signal, leading.signal]);
    const retry = this.#t.retryPeriodMs;
    let lastStart = clock.now();
    while (!loopSignal.aborted) {
      // One attempt per retry period, counted from the start of the previous one: after an
      // attempt that timed out, the next one starts at once.
      const wait = lastStart + retry - clock.now();
      if (wait > 0) await sleep(clock, wait, loopSignal);
      if (loopSignal.aborted) break;
      lastStart = clock.now();
      // Each attempt gets half the time left before the renew deadline, and at least one retry
      // period: a request hung on a dead connection must not hold back the retries that could
      // still renew within the deadline, while a slow but answering apiserver (a saturated one
      // answers a read and a write in more than a retry period) still gets to renew.
      const request = timeoutSignal(clock, attemptTimeoutMs(this.#validUntil - lastStart, retry), loopSignal);
      let attempt: Attempt;
      try {
        attempt = await this.#tryAcquireOrRenew(request.signal, true);
      } finally {
        request.dispose();
      }
      if (loopSignal.aborted) break;
      if (attempt.outcome === 'acquired') {
        this.#validUntil = Math.max(this.#validUntil, attempt.sentAt + this.#t.renewDeadlineMs);
        armDeadline();
      } else if (attempt.outcome === 'lost') {
        lose(attempt.reason);
      } else if (request.signal.aborted) {
        this.#logger.warn(
          `renewing the Lease timed out after ${Math.round(clock.now() - lastStart)} ms; retrying`,
        );
      }
    }
    if (deadline !== undefined) clock.clearTimeout(deadline);

    const graceful = lostReason === undefined;
    this.#leading = false;
    this.#steppedDown = true;
    if (!leading.signal.aborted)
      leading.abort(new Error(`leader elector for lease ${this.#leaseName} stopped`));
    metrics?.setLeader(false);
    if (graceful) {
      this.#logger.info('stopping leading: the elector was stopped');
      if (this.#opts.releaseOnCancel ?? true) await this.#release(work);
    } else {
      this.#logger.warn('stopped leading', { reason: lostReason });
    }
    try {
      this.#opts.onStoppedLeading?.();
    } catch (err) {
      this.#logger.error('onStoppedLeading failed', { err: serializeError(err) });
    }
  }

  /** One round: read the Lease, then create, take over or renew it when the rules allow. */
  async #tryAcquireOrRenew(signal: AbortSignal, leading: boolean): Promise<Attempt> {
    const { api, lease: ref } = this.#opts;
    let lease: LeaseJson | undefined;
    try {
      lease = await api.get(
        { resource: LeaseResource, name: ref.name, namespace: ref.namespace },
        { signal },
      );
    } catch (err) {
      if (!isNotFound(err)) return this.#failed('reading the Lease failed', err, { leading, signal });
    }

    // A read that outlived its attempt (a slow link): its answer may be stale, so send no write.
    if (signal.aborted) return FAILED;
    if (lease === undefined) {
      this.#observe(null);
      if (leading) return { outcome: 'lost', reason: 'the Lease was deleted' };
      if (this.#absentAfterHeld && this.#clock.now() < this.#observedTime + this.#t.leaseDurationMs) {
        this.#heldUntil = this.#observedTime + this.#t.leaseDurationMs;
        return HELD;
      }
      const sentAt = this.#clock.now();
      const now = microTime(this.#wallClock());
      try {
        const created = await api.create(
          LeaseResource,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: ref.name,
              namespace: ref.namespace,
              ...(this.#opts.labels ? { labels: { ...this.#opts.labels } } : {}),
            },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: this.#t.leaseDurationMs / 1000,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.#observe(created);
        return { outcome: 'acquired', sentAt };
      } catch (err) {
        if (isAlreadyExists(err)) {
          this.#logger.debug('another candidate created the Lease first');
          return FAILED;
        }
        return this.#failed('creating the Lease failed', err, { leading, signal });
      }
    }

    this.#observe(lease);
    const spec: LeaseSpecJson = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (leading && holder !== this.identity) {
      return {
        outcome: 'lost',
        reason: holder ? `the Lease is now held by ${holder}` : 'someone else cleared the Lease holder',
      };
    }
    // Ours to renew only while leading, or for a fresh elector whose identity a previous process
    // held (a restart). After stepping down we campaign like any candidate.
    const mine = holder === this.identity && (leading || !this.#steppedDown);
    if (holder !== '' && !mine) {
      const wait = Math.max(recordLeaseDurationMs(spec), this.#t.leaseDurationMs);
      if (this.#clock.now() < this.#observedTime + wait) {
        this.#heldUntil = this.#observedTime + wait;
        return HELD;
      }
      this.#logger.info('taking over the Lease: its record did not change for a full lease duration', {
        holder,
      });
    }

    const now = microTime(this.#wallClock());
    const transitions = recordTransitions(spec);
    const nextSpec: LeaseSpecJson = {
      ...spec,
      holderIdentity: this.identity,
      leaseDurationSeconds: this.#t.leaseDurationMs / 1000,
      acquireTime: mine ? (timeText(spec.acquireTime) ?? now) : now,
      renewTime: now,
      leaseTransitions: mine ? transitions : transitions + 1,
    };
    const sentAt = this.#clock.now();
    try {
      const updated = await api.update(LeaseResource, withSpec(lease, nextSpec, this.#opts.labels), {
        signal,
      });
      this.#observe(updated);
      return { outcome: 'acquired', sentAt };
    } catch (err) {
      if (isConflict(err)) {
        this.#logger.debug('the Lease changed between read and write; trying again next period');
        return FAILED;
      }
      return this.#failed(leading ? 'renewing the Lease failed' : 'acquiring the Lease failed', err, {
        leading,
        signal,
      });
    }
  }

  #failed(
    what: string,
    err: unknown,
    { leading, signal }: { leading: boolean; signal: AbortSignal },
  ): Attempt {
    if (signal.aborted) return FAILED;
    const fields = { err: serializeError(err) };
    if (leading) {
      this.#logger.warn(what, fields);
      return FAILED;
    }
    // A candidate that cannot read or write the Lease (RBAC, a wrong namespace, an unreachable
    // server) would otherwise wait silently forever: warn, at most once per lease duration for
    // the same error.
    const message = `${what}: ${err instanceof Error ? err.message : String(err)}`;
    const now = this.#clock.now();
    if (message !== this.#lastWarning || now - this.#lastWarningAt >= this.#t.leaseDurationMs) {
      this.#lastWarning = message;
      this.#lastWarningAt = now;
      this.#logger.warn(`${what}; still campaigning`, fields);
    }
    return FAILED;
  }

  #observe(lease: LeaseJson | null): void {
    const rv = lease === null ? null : (lease.metadata?.resourceVersion ?? '');
    if (this.#observedRv !== undefined && rv === this.#observedRv) return;
    const previousHolder = this.#observedHolder;
    this.#absentAfterHeld = lease === null && this.#observedRv !== undefined && previousHolder !== '';
    this.#observedRv = rv;
    const now = this.#clock.now();
    const since = rv ? this.#opts.observedSince?.(rv) : undefined;
    this.#observedTime = since !== undefined && since <= now ? since : now;
    this.#observedHolder = lease?.spec?.holderIdentity ?? '';
    const holder = this.#observedHolder;
    if (holder !== '' && holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      try {
        this.#opts.onNewLeader?.(holder);
      } catch (err) {
        this.#logger.error('onNewLeader failed', { err: serializeError(err) });
      }
    }
  }

  /** After an acquiring write that raced with the stop: releases the Lease (unless told not to) without leading. */
  async #abandon(sentAt: number): Promise<void> {
    this.#logger.info('stopped while acquiring the Lease; not leading');
    this.#steppedDown = true;
    if (!(this.#opts.releaseOnCancel ?? true)) return;
    this.#validUntil = sentAt + this.#t.renewDeadlineMs;
    try {
      await this.#release(Promise.resolve());
    } finally {
      this.#validUntil = Number.NEGATIVE_INFINITY;
    }
  }

  /** Waits for the leader's work (within our validity), then clears the holder so a successor starts at once. */
  async #release(work: Promise<void>): Promise<void> {
    const clock = this.#clock;
    const remaining = this.#validUntil - clock.now();
    if (remaining <= 0) return;
    const waiting = new AbortController();
    await Promise.race([work, sleep(clock, remaining, waiting.signal)]);
    waiting.abort();
    const left = this.#validUntil - clock.now();
    if (left <= 0) {
      this.#logger.warn(
        'not releasing the Lease: the work started by onStartedLeading did not finish within the renew deadline; ' +
          'the Lease expires on its own',
      );
      return;
    }
    const { api, lease: ref } = this.#opts;
    const request = timeoutSignal(clock, left, NEVER);
    try {
      const lease = await api.get(
        { resource: LeaseResource, name: ref.name, namespace: ref.namespace },
        {
          signal: request.signal,
        },
      );
      if (lease.spec?.holderIdentity !== this.identity) return;
      const now = microTime(this.#wallClock());
      const { holderIdentity: _cleared, ...rest } = lease.spec;
      const released = await api.update(
        LeaseResource,
        withSpec(lease, { ...rest, leaseDurationSeconds: 1, acquireTime: now, renewTime: now }),
        { signal: request.signal },
      );
      this.#observe(released);
      this.#logger.info('released the Lease');
    } catch (err) {
      this.#logger.warn('releasing the Lease failed; it expires on its own', { err: serializeError(err) });
    } finally {
      request.dispose();
    }
  }
}

function withSpec(
  lease: LeaseJson,
  spec: LeaseSpecJson,
  labels?: Readonly<Record<string, string>>,
): LeaseJson {
  return {
    ...lease,
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    // The resourceVersion we read is the write's precondition: a concurrent change makes it a 409.
    metadata: {
      ...lease.metadata,
      ...(labels ? { labels: { ...lease.metadata?.labels, ...labels } } : {}),
      resourceVersion: lease.metadata?.resourceVersion,
    },
    spec,
  };
}

function timeText(value: string | Date | null | undefined): string | undefined {
  if (value instanceof Date) return microTime(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The time one renewal attempt gets: half of what is left before the renew deadline, at least one retry period. */
function attemptTimeoutMs(leftMs: number, retryPeriodMs: number): number {
  return Math.max(retryPeriodMs, leftMs / 2);
}
