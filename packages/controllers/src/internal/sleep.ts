import type { Clock, TimerHandle } from '../clock.ts';

/** Resolves after `ms` on `clock`, or at once when `signal` aborts; leaves no timer or listener behind. */
export function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let timer: TimerHandle | undefined;
    const done = (): void => {
      if (timer !== undefined) clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    timer = clock.setTimeout(done, Math.max(0, ms));
  });
}

/** A signal that aborts with `parent` or after `ms` on `clock`; call `dispose` when done with it. */
export function timeoutSignal(
  clock: Clock,
  ms: number,
  parent: AbortSignal,
): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort(parent.reason);
  if (parent.aborted) ctl.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(
    () => ctl.abort(new Error(`timed out after ${Math.round(ms)} ms`)),
    Math.max(0, ms),
  );
  return {
    signal: ctl.signal,
    dispose() {
      clock.clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}
