import { LeaderElectionConfigError, type LeaderElectionOptions, type LeaseRef } from '../leader-election.ts';
import { describeValue } from './describe.ts';

/** The validated timings of a leader elector, in milliseconds. */
export interface Timings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/**
 * Checks the options of `createLeaderElector` and returns its timings.
 *
 * @throws LeaderElectionConfigError unless leaseDuration > renewDeadline > 1.2 × retryPeriod and
 *   every option is well formed.
 */
export function validateLeaderElection(opts: LeaderElectionOptions): Timings {
  const fail = (msg: string): never => {
    throw new LeaderElectionConfigError(`leader election: ${msg}`);
  };
  if (!opts || typeof opts !== 'object') fail('pass an options object');
  const api = opts.api as unknown as Record<string, unknown> | undefined;
  if (
    !api ||
    typeof api.get !== 'function' ||
    typeof api.create !== 'function' ||
    typeof api.update !== 'function'
  ) {
    fail('options.api must be an ApiClient (e.g. kubeClient.api)');
  }
  const lease = opts.lease as LeaseRef | undefined;
  if (
    !lease ||
    typeof lease.name !== 'string' ||
    lease.name === '' ||
    typeof lease.namespace !== 'string' ||
    lease.namespace === ''
  ) {
    fail(`options.lease must name the Lease as { namespace, name }, got ${describeValue(lease)}`);
  }
  if (opts.identity !== undefined && (typeof opts.identity !== 'string' || opts.identity === '')) {
    fail('options.identity must be a non-empty string, unique per process (or omit it for hostname_uuid)');
  }
  if (
    opts.labels !== undefined &&
    (typeof opts.labels !== 'object' ||
      opts.labels === null ||
      Object.values(opts.labels).some((v) => typeof v !== 'string'))
  ) {
    fail(`options.labels must map label keys to string values, got ${describeValue(opts.labels)}`);
  }
  if (typeof opts.onStartedLeading !== 'function') fail('options.onStartedLeading(signal) is required');
  const timing = (name: keyof Timings, fallback: number): number => {
    const v = opts[name] ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      fail(`${name} must be a positive number of milliseconds, got ${String(v)}`);
    }
    return v;
  };
  const leaseDurationMs = timing('leaseDurationMs', 15_000);
  const renewDeadlineMs = timing('renewDeadlineMs', 10_000);
  const retryPeriodMs = timing('retryPeriodMs', 2_000);
  const defaults = 'The defaults are leaseDurationMs 15000, renewDeadlineMs 10000, retryPeriodMs 2000.';
  if (leaseDurationMs % 1000 !== 0) {
    fail(
      `leaseDurationMs must be a whole number of seconds (the Lease stores seconds), got ${leaseDurationMs}`,
    );
  }
  if (!(leaseDurationMs > renewDeadlineMs)) {
    fail(
      `leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs}): a leader ` +
        `must give up before a candidate may take over, or two processes lead at once. ${defaults}`,
    );
  }
  if (!(renewDeadlineMs > 1.2 * retryPeriodMs)) {
    fail(
      `renewDeadlineMs (${renewDeadlineMs}) must be greater than 1.2 × retryPeriodMs (${retryPeriodMs}) = ` +
        `${1.2 * retryPeriodMs}: the leader needs room for more than one renewal attempt per deadline. ${defaults}`,
    );
  }
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}
