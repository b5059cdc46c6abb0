/**
 * Polls `done` with a 1 ms → 100 ms backoff until it returns true (then calls `then`) or
 * `signal` aborts. Bounded: one timer at a time, at most ten checks a second once the backoff
 * reached its cap, none after `done` or the abort (the pending timer is cleared at once), so it
 * leaves no timer behind either way.
 */
export function pollUntil(done: () => boolean, signal: AbortSignal, then: () => void): void {
  if (signal.aborted) return;
  if (done()) {
    then();
    return;
  }
  let delay = 1;
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const tick = (): void => {
    timer = undefined;
    if (signal.aborted) return;
    if (done()) {
      signal.removeEventListener('abort', onAbort);
      then();
      return;
    }
    delay = Math.min(delay * 2, 100);
    timer = setTimeout(tick, delay);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  timer = setTimeout(tick, delay);
}
