/**
 * One bounded poll for every wait in a test: a condition is checked until it holds, and the wait
 * fails with a message naming what was awaited, how long it waited and what the condition last
 * saw. A test never sleeps and asserts; it waits for a condition with a generous bound.
 */

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /**
   * How long to wait before failing, in milliseconds. Default 30 000: generous on purpose, since
   * a loaded machine can be many times slower than an idle one; a wait that succeeds returns as
   * soon as the condition holds, so a long bound costs nothing.
   */
  readonly timeoutMs?: number;
  /** Pause between two checks, in milliseconds. Default 20. */
  readonly intervalMs?: number;
  /** Stops waiting early; the wait then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What a {@link WaitForTimeoutError} reports. */
export interface WaitForTimeout {
  /** What was awaited. */
  readonly what: string;
  /** How long the wait lasted, in milliseconds. */
  readonly elapsedMs: number;
  /** How many times the condition was checked. */
  readonly attempts: number;
  /** The condition's last result or error, described (empty for none). */
  readonly detail: string;
  /** The condition's last error, if it threw. */
  readonly cause?: unknown;
}

/** Thrown by {@link waitFor} when the condition did not hold within the bound. */
export class WaitForTimeoutError extends Error {
  /** What was awaited, as passed to `waitFor`. */
  readonly what: string;
  /** How long the wait lasted, in milliseconds. */
  readonly elapsedMs: number;
  /** How many times the condition was checked. */
  readonly attempts: number;

  /**
   * Builds the error; `detail` (the condition's last result or error, described) ends the message,
   * `cause` is the condition's last error, if it threw.
   */
  constructor(timeout: WaitForTimeout) {
    super(
      `timed out after ${timeout.elapsedMs} ms (${timeout.attempts} checks) waiting for ${timeout.what}${timeout.detail ? `: ${timeout.detail}` : ''}`,
      timeout.cause === undefined ? undefined : { cause: timeout.cause },
    );
    this.name = 'WaitForTimeoutError';
    this.what = timeout.what;
    this.elapsedMs = timeout.elapsedMs;
    this.attempts = timeout.attempts;
  }
}

/**
 * Waits until `condition` holds and returns what it returned.
 *
 * The condition may return a boolean, return the awaited value (anything truthy ends the wait), or
 * throw (an assertion that does not hold yet); it may be async. Each check runs after the previous
 * one settled, `intervalMs` apart. If the bound passes first, the wait rejects with a
 * {@link WaitForTimeoutError} that names `what`, the last value seen and, as its `cause`, the last
 * error thrown.
 *
 * @example A Deployment on the real control plane, from src/workloads.integration.test.ts
 * {@includeCode ./workloads.integration.test.ts#waitFor}
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 20;
  const { signal } = options;
  const start = Date.now();
  let attempts = 0;
  let lastError: unknown;
  let lastValue: unknown;
  let threw = false;
  for (;;) {
    signal?.throwIfAborted();
    attempts++;
    try {
      const value = await condition();
      threw = false;
      if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
      lastValue = value;
    } catch (err) {
      threw = true;
      lastError = err;
    }
    const elapsed = Date.now() - start;
    if (elapsed >= timeoutMs) {
      const detail = threw
        ? `the condition last threw ${describeError(lastError)}`
        : `the condition last returned ${describeValue(lastValue)}`;
      throw new WaitForTimeoutError({
        what,
        elapsedMs: elapsed,
        attempts,
        detail,
        cause: threw ? lastError : undefined,
      });
    }
    await pause(Math.min(intervalMs, timeoutMs - elapsed), signal);
  }
}

function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message.split('\n')[0]}`;
  return describeValue(err);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!signal) {
      setTimeout(resolve, ms);
      return;
    }
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
