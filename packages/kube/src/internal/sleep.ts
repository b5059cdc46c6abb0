import { setTimeout as delay } from 'node:timers/promises';

/** Sleeps `ms`, or less if `signal` aborts; never throws. Returns false when aborted. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await delay(ms, undefined, signal ? { signal } : {});
    return true;
  } catch {
    return false;
  }
}

/** A promise that resolves when `signal` aborts (immediately if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
