/** A handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * The time source of the queue and the leader elector. The default ({@link systemClock}) reads
 * the monotonic `performance.now()` and uses the global timers, looked up at call time, so vitest
 * fake timers apply. Inject another clock to simulate skew or to drive time by hand.
 */
export interface Clock {
  /** Milliseconds on a monotonic clock; only differences are meaningful. */
  now(): number;
  /** Calls `fn` after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer from {@link Clock.setTimeout}. */
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock: `performance.now()` and the global `setTimeout`/`clearTimeout`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
