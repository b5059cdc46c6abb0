import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `cond` until true; fails after `timeoutMs`. */
export async function until(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** A unique suffix for cluster-scoped names (CRD groups) shared by the whole run. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}
