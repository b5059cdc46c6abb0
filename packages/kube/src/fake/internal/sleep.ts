/**
 * Waits `ms` through the global `setTimeout`, so vitest's fake timers control it (the promise
 * version in `node:timers/promises` is out of their reach). Rejects with the signal's reason
 * (an `AbortError` unless the caller gave another) when `signal` aborts first, and leaves no
 * timer or listener behind either way.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
