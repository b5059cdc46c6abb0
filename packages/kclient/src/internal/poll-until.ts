import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolves true once `done()` holds, polling (5 ms doubling to 100 ms), or false once `signal`
 * aborts or `stopped()` holds first.
 */
export async function pollUntil(
  done: () => boolean,
  signal: AbortSignal | undefined,
  stopped: () => boolean = () => false,
): Promise<boolean> {
  let delay = 5;
  for (;;) {
    if (done()) return true;
    if (signal?.aborted || stopped()) return false;
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      return done(); // aborted while waiting
    }
    delay = Math.min(100, delay * 2);
  }
}
