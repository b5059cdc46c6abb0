import type { InformerTuning } from '../client.ts';

/** {@link InformerTuning} with every default applied and every value checked. */
export interface ResolvedTuning {
  /** Objects in the first pages of a list (every page, without pageBytes). */
  readonly pageSize: number;
  /** Characters of JSON per page after the first one read whole; undefined: pages of pageSize. */
  readonly pageBytes: number | undefined;
  /** Reconnect a watch that received nothing for this long. */
  readonly idleTimeoutMs: number;
  /** First reconnect delay. */
  readonly initialBackoffMs: number;
  /** Largest reconnect delay. */
  readonly maxBackoffMs: number;
  /** Server-side watch timeout range, in seconds. */
  readonly watchTimeoutSeconds: readonly [number, number];
  /** Random source for jitter. */
  readonly random: () => number;
}

const DEFAULTS = {
  pageSize: 500,
  pageBytes: 4 * 1024 * 1024,
  idleTimeoutMs: 120_000,
  initialBackoffMs: 800,
  maxBackoffMs: 30_000,
  watchTimeoutSeconds: [300, 600] as const,
};

/** Applies the defaults and checks the values. @throws RangeError naming the bad setting. */
export function resolveTuning(t: InformerTuning = {}): ResolvedTuning {
  const out: ResolvedTuning = {
    pageSize: t.pageSize ?? DEFAULTS.pageSize,
    // An explicit page size alone means fixed pages, as before pages were sized by bytes.
    pageBytes: t.pageBytes ?? (t.pageSize === undefined ? DEFAULTS.pageBytes : undefined),
    idleTimeoutMs: t.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
    initialBackoffMs: t.initialBackoffMs ?? DEFAULTS.initialBackoffMs,
    maxBackoffMs: t.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
    watchTimeoutSeconds: t.watchTimeoutSeconds ?? DEFAULTS.watchTimeoutSeconds,
    random: t.random ?? Math.random,
  };
  if (!(Number.isInteger(out.pageSize) && out.pageSize > 0)) {
    throw new RangeError(`tuning.pageSize must be a positive integer, got ${out.pageSize}`);
  }
  if (out.pageBytes !== undefined && !(Number.isInteger(out.pageBytes) && out.pageBytes > 0)) {
    throw new RangeError(
      `tuning.pageBytes must be a positive integer (characters of JSON), got ${out.pageBytes}`,
    );
  }
  if (!(out.idleTimeoutMs > 0) || out.idleTimeoutMs >= 2 ** 31) {
    throw new RangeError(`tuning.idleTimeoutMs must be between 1 and 2^31-1 ms, got ${out.idleTimeoutMs}`);
  }
  const [lo, hi] = out.watchTimeoutSeconds;
  if (!(lo > 0 && hi >= lo)) {
    throw new RangeError(
      `tuning.watchTimeoutSeconds must be [min, max] with 0 < min <= max, got [${lo}, ${hi}]`,
    );
  }
  return out;
}
