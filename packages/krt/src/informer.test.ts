/**
 * The informer collection's sync polling (kclient registrations expose only `hasSynced()`): one
 * timer per collection at a time, gone once synced, and cleared when the collection stops.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { describe, expect, it } from 'vitest';
import { activeTimers } from '../test/fixtures.ts';
import { informer } from './informer.ts';

async function afterBackoffCap(): Promise<void> {
  // The backoff doubles from 1 ms to its 100 ms cap within 130 ms.
  await new Promise((r) => setTimeout(r, 150));
}

describe('informer collection sync polling', () => {
  it('keeps exactly one timer per unsynced collection and clears them all on stop', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    try {
      const stop = new AbortController();
      // Timers are counted in synchronous sections only: other timers of the process may come
      // and go while the test awaits.
      const before = activeTimers();
      const collections = Array.from({ length: 20 }, (_, i) =>
        informer(kube, builtins.ConfigMap, { signal: stop.signal, name: `cms-${i}` }),
      );
      expect(activeTimers() - before).toBe(20);
      await afterBackoffCap();
      // Never started, so never synced: still polling, one timer each, all cleared by the stop.
      expect(collections.some((c) => c.hasSynced())).toBe(false);
      const polling = activeTimers();
      stop.abort();
      const stopped = activeTimers();
      expect(polling - stopped).toBe(20);
      await afterBackoffCap();
      expect(activeTimers()).toBeLessThanOrEqual(stopped); // nothing re-armed
      expect(await collections[0]!.waitUntilSynced()).toBe(false);
    } finally {
      kube.shutdown();
    }
  });

  it('stops polling once synced, before any stop', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    try {
      const warm = informer(kube, builtins.Secret, { signal: stop.signal, name: 'warm' });
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      expect(await warm.waitUntilSynced(stop.signal)).toBe(true);
      // A collection on an informer that already synced: its handler syncs after one replay,
      // and the poll ends with it.
      const lateStop = new AbortController();
      const late = informer(kube, builtins.Secret, { signal: lateStop.signal, name: 'late' });
      expect(await late.waitUntilSynced(stop.signal)).toBe(true);
      await afterBackoffCap();
      const idle = activeTimers();
      lateStop.abort();
      expect(activeTimers()).toBe(idle); // no poll timer was left for the stop to clear
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });
});
