/**
 * The informer collection emits the informer's initial list as one batch (so a derived
 * collection computes its initial state in one pass), in order with later events, and never
 * twice to a handler that registers while that batch is still pending.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Event } from './core.ts';
import { informer } from './informer.ts';

const cm = (name: string, v = '1'): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { v },
});

/** Batches received, as `type:name` lists. */
function recorder(): { batches: string[][]; handler: (events: readonly Event<V1ConfigMap>[]) => void } {
  const batches: string[][] = [];
  return {
    batches,
    handler: (events) => {
      batches.push(events.map((e) => `${e.type}:${(e.new ?? e.old)!.metadata!.name}`));
    },
  };
}

/** Bounded wait for a condition (every wait of these tests resolves in a few microtasks). */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe('informer collection initial batch', () => {
  it('delivers the initial list of a fresh informer as one batch, then later events', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    try {
      for (const n of ['a', 'b', 'c']) await kube.api.create(builtins.ConfigMap, cm(n));
      const c = informer(kube, builtins.ConfigMap, { signal: stop.signal, name: 'cms' });
      const r = recorder();
      const reg = c.registerBatch(r.handler, true);
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      expect(await reg.waitUntilSynced(stop.signal)).toBe(true);
      expect(r.batches).toEqual([['add:a', 'add:b', 'add:c']]);
      await kube.api.update(builtins.ConfigMap, { ...c.get('ns/a')!, data: { v: '2' } });
      await until(() => r.batches.length === 2);
      expect(r.batches[1]).toEqual(['update:a']);
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });

  it('replays a synced informer to a new collection as one batch', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    try {
      for (const n of ['a', 'b', 'c']) await kube.api.create(builtins.ConfigMap, cm(n));
      informer(kube, builtins.ConfigMap, { signal: stop.signal, name: 'first' });
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      const late = informer(kube, builtins.ConfigMap, { signal: stop.signal, name: 'late' });
      const r = recorder();
      late.registerBatch(r.handler, true);
      await until(() => r.batches.length === 1);
      expect([...r.batches[0]!].sort()).toEqual(['add:a', 'add:b', 'add:c']);
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });

  it('gives a handler registered while the initial batch is pending each object once', async () => {
    const kube = createFakeKubeClient({ logger: noopLogger });
    const stop = new AbortController();
    try {
      for (const n of ['a', 'b', 'c']) await kube.api.create(builtins.ConfigMap, cm(n));
      informer(kube, builtins.ConfigMap, { signal: stop.signal, name: 'first' });
      expect(await kube.runAndWait(stop.signal)).toBe(true);
      const late = informer(kube, builtins.ConfigMap, { signal: stop.signal, name: 'late' });
      const early = recorder();
      late.registerBatch(early.handler, true);
      // The informer's replay to the new collection runs in the microtask queued at its
      // construction, before this continuation; the batch it filled is emitted after it.
      await Promise.resolve();
      const joiner = recorder();
      late.registerBatch(joiner.handler, true);
      await until(() => early.batches.flat().length >= 3 && joiner.batches.flat().length >= 3);
      // A duplicate would be delivered in the same drain; let any stray event land.
      await new Promise((r) => setTimeout(r, 10));
      expect(joiner.batches.flat().sort()).toEqual(['add:a', 'add:b', 'add:c']);
      expect(early.batches.flat().sort()).toEqual(['add:a', 'add:b', 'add:c']);
    } finally {
      stop.abort();
      kube.shutdown();
    }
  });
});
