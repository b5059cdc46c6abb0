import { setImmediate } from 'node:timers';

/**
 * Resolves on a later turn of the event loop, letting I/O and timers run. Uses `node:timers`
 * rather than the global, so fake timers in tests do not freeze a busy worker.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
