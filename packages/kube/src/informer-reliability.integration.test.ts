import {
  type ControlPlane,
  createTestNamespace,
  type FaultProxy,
  type SharedControlPlane,
  sharedControlPlane,
  startControlPlane,
  startFaultProxy,
  waitFor,
} from '@kubeloom/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import type { KubeClient } from './client.ts';
import { createKubeClient } from './create-kube-client.ts';
import { isNotFound } from './errors.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { isTombstone, type SharedInformer } from './informer.ts';
import { noopLogger } from './logger.ts';
import type { KubeObject } from './object.ts';

/** Small deterministic PRNG so a failing chaos seed can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fastTuning = { initialBackoffMs: 20, maxBackoffMs: 300 };

/** Replays handler events into a map, to compare with the cache and the server. */
function replay(informer: SharedInformer): Map<string, string> {
  const state = new Map<string, string>();
  const key = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  informer.addEventHandler({
    onAdd: (o) => state.set(key(o), o.metadata!.resourceVersion!),
    onUpdate: (_old, o) => state.set(key(o), o.metadata!.resourceVersion!),
    onDelete: (o) => state.delete(key(isTombstone(o) ? o.obj : o)),
  });
  return state;
}

async function serverState(kube: KubeClient, namespace: string): Promise<Map<string, string>> {
  const list = await kube.api.list(builtins.ConfigMap, { namespace });
  return new Map(
    list.items.map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata!.resourceVersion!]),
  );
}

function cacheState(informer: SharedInformer): Map<string, string> {
  return new Map(
    informer.store
      .list()
      .map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata!.resourceVersion!]),
  );
}

const sorted = (m: Map<string, string>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

/** What {@link churn} writes, and until when. */
interface ChurnOptions {
  readonly namespace: string;
  /** Picks the names and the writes. */
  readonly random: () => number;
  /** Stops the writer. */
  readonly signal: AbortSignal;
  /** How many distinct names (default 30). */
  readonly population?: number;
}

/** A writer that keeps creating, updating and deleting ConfigMaps until stopped. */
function churn(
  kube: KubeClient,
  { namespace, random, signal, population = 30 }: ChurnOptions,
): Promise<number> {
  return (async () => {
    let writes = 0;
    while (!signal.aborted) {
      const name = `cm-${Math.floor(random() * population)}`;
      const roll = random();
      try {
        if (roll < 0.5) {
          await kube.api.patch(
            { resource: builtins.ConfigMap, name, namespace },
            { data: { v: String(writes) } },
            { type: 'merge' },
          );
        } else if (roll < 0.8) {
          await kube.api.create(builtins.ConfigMap, {
            metadata: { name, namespace },
            data: { v: String(writes) },
          });
        } else {
          await kube.api.delete({ resource: builtins.ConfigMap, name, namespace });
        }
      } catch (err) {
        if (!isNotFound(err) && !(err as { reason?: string }).reason) throw err;
      }
      writes++;
      await new Promise((r) => setTimeout(r, 5));
    }
    return writes;
  })();
}

describe('informer reliability through the fault-injection proxy', () => {
  let plane: SharedControlPlane;
  let proxy: FaultProxy;
  let direct: KubeClient;
  const stops: AbortController[] = [];

  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    proxy?.clearRules();
  });
  afterAll(async () => {
    direct?.shutdown();
    await proxy?.stop();
  });

  async function setup(prefix: string, logger = noopLogger) {
    plane ??= sharedControlPlane();
    proxy ??= await startFaultProxy({ upstream: plane });
    direct ??= createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const namespace = await createTestNamespace(plane.kubeConfig, prefix);
    const viaProxy = createKubeClient({ kubeConfig: proxy.kubeConfig(), logger, tuning: fastTuning });
    const stop = new AbortController();
    stops.push(stop);
    stop.signal.addEventListener('abort', () => viaProxy.shutdown());
    const informer = viaProxy.informer(builtins.ConfigMap, { namespace });
    return { namespace, viaProxy, informer, stop };
  }

  it('resumes from the last resourceVersion after 20 cut watches, without relisting, and ends equal to the server', async () => {
    const { namespace, viaProxy, informer, stop } = await setup('cuts');
    const replayed = replay(informer);
    proxy.resetStats();
    await viaProxy.runAndWait(stop.signal);
    const writer = new AbortController();
    const writes = churn(direct, { namespace, random: mulberry32(1), signal: writer.signal });
    for (let i = 0; i < 20; i++) {
      await proxy.waitForWatches(1, { namespace, resource: 'configmaps', timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 40));
      await waitFor(`watch #${i + 1} to cut`, () => proxy.cut({ watch: true, namespace }) > 0, {
        timeoutMs: 15_000,
      });
    }
    writer.abort();
    const total = await writes;
    expect(total).toBeGreaterThan(20);
    const expected = sorted(await serverState(direct, namespace));
    await waitFor(
      'the cache to equal the server',
      () => JSON.stringify(sorted(cacheState(informer))) === JSON.stringify(expected),
    );
    expect(sorted(replayed)).toEqual(expected);
    expect(proxy.count({ verb: 'list', namespace })).toBe(1);
    await proxy.waitForRequests(21, { verb: 'watch', namespace });
    const h = informer.health();
    expect(h).toMatchObject({ lists: 1, relists: 0 });
    expect(h.restarts).toBeGreaterThanOrEqual(20);
  });

  it('logs, counts and recovers from a malformed line and an ERROR event in the stream', async () => {
    const logger = recordingLogger();
    const { namespace, viaProxy, informer, stop } = await setup('badinput', logger);
    await viaProxy.runAndWait(stop.signal);
    await proxy.waitForWatches(1, { namespace });
    expect(proxy.injectLine('{"type":"ADDED","object":{"metadata":', { namespace })).toBe(1);
    await waitFor('malformed counted', () => informer.health().malformedLines === 1);
    await proxy.waitForWatches(1, { namespace });
    expect(proxy.injectError(500, { namespace, message: 'injected internal error' })).toBe(1);
    await waitFor('error counted', () =>
      (informer.health().lastError ?? '').includes('injected internal error'),
    );
    await direct.api.create(builtins.ConfigMap, { metadata: { name: 'after', namespace } });
    await waitFor('recovered', () => informer.store.get(`${namespace}/after`) !== undefined);
    expect(informer.health()).toMatchObject({ malformedLines: 1, lists: 1 });
    expect(informer.health().errors).toBeGreaterThanOrEqual(2);
    const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
    expect(warnings).toContain('malformed watch data; restarting the watch from the last resourceVersion');
    expect(warnings).toContain('watch returned an ERROR event; restarting the watch');
  });

  it('reconnects a stalled watch after the idle timeout, still without relisting', async () => {
    plane ??= sharedControlPlane();
    proxy ??= await startFaultProxy({ upstream: plane });
    direct ??= createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const namespace = await createTestNamespace(plane.kubeConfig, 'idle');
    const viaProxy = createKubeClient({
      kubeConfig: proxy.kubeConfig(),
      logger: noopLogger,
      tuning: { ...fastTuning, idleTimeoutMs: 400 },
    });
    const stop = new AbortController();
    stops.push(stop);
    stop.signal.addEventListener('abort', () => viaProxy.shutdown());
    const informer = viaProxy.informer(builtins.ConfigMap, { namespace });
    await viaProxy.runAndWait(stop.signal);
    await proxy.waitForWatches(1, { namespace });
    const stall = proxy.stall({ watch: true, namespace });
    await direct.api.create(builtins.ConfigMap, { metadata: { name: 'during-stall', namespace } });
    await waitFor('an idle-timeout restart', () =>
      (informer.health().lastError ?? '').includes('received no data'),
    );
    stall.resume();
    await waitFor(
      'the event after the stall',
      () => informer.store.get(`${namespace}/during-stall`) !== undefined,
    );
    expect(informer.health().lists).toBe(1);
  });

  it.each([11, 23, 37])(
    'survives chaos (seed %i): the cache equals a fresh list and the replayed events',
    async (seed) => {
      const random = mulberry32(seed);
      const { namespace, viaProxy, informer, stop } = await setup(`chaos-${seed}`);
      const replayed = replay(informer);
      await viaProxy.runAndWait(stop.signal);
      const writer = new AbortController();
      const writes = churn(direct, { namespace, random: mulberry32(seed * 7), signal: writer.signal });
      const faults: string[] = [];
      try {
        const end = Date.now() + 6_000;
        while (Date.now() < end) {
          const roll = random();
          if (roll < 0.3) {
            proxy.cut({ namespace });
            faults.push('cut');
          } else if (roll < 0.5) {
            const s = proxy.stall({ watch: true, namespace });
            await new Promise((r) => setTimeout(r, 50 + random() * 300));
            if (random() < 0.5) s.cut();
            else s.resume();
            faults.push('stall');
          } else if (roll < 0.7) {
            proxy.injectError(410, { namespace });
            faults.push('410');
          } else if (roll < 0.85) {
            proxy.respond(500, { namespace, verb: ['list', 'watch'], count: 1 });
            faults.push('500');
          } else {
            proxy.respond(429, { namespace, verb: ['list', 'watch'], count: 1, retryAfterSeconds: 0 });
            faults.push('429');
          }
          await new Promise((r) => setTimeout(r, 50 + random() * 250));
        }
      } finally {
        writer.abort();
        proxy.clearRules();
      }
      await writes;
      const expected = sorted(await serverState(direct, namespace));
      try {
        await waitFor(
          'the cache to converge',
          () => JSON.stringify(sorted(cacheState(informer))) === JSON.stringify(expected),
          { timeoutMs: 30_000 },
        );
        expect(sorted(replayed)).toEqual(expected);
      } catch (err) {
        throw new Error(
          `chaos seed ${seed} failed after faults [${faults.join(',')}]: ${(err as Error).message}`,
        );
      }
      expect(faults.length).toBeGreaterThan(5);
    },
  );
});

describe('informer relist after etcd compaction (410 Gone)', () => {
  let plane: ControlPlane | undefined;
  afterAll(async () => {
    await plane?.stop();
  });

  it('relists once after a stalled watch outlives a compaction and emits the correct updates and deletes', async () => {
    plane = await startControlPlane({
      apiServerArgs: ['--etcd-compaction-interval=1s', '--watch-cache=false'],
    });
    const proxy = await startFaultProxy({ upstream: plane });
    const direct = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const viaProxy = createKubeClient({
      kubeConfig: proxy.kubeConfig(),
      logger: noopLogger,
      tuning: fastTuning,
    });
    const stop = new AbortController();
    try {
      const namespace = 'default';
      for (const name of ['keep', 'change', 'vanish']) {
        await direct.api.create(builtins.ConfigMap, { metadata: { name, namespace }, data: { v: '0' } });
      }
      const informer = viaProxy.informer(builtins.ConfigMap, { namespace });
      const events: string[] = [];
      const tombstones: string[] = [];
      informer.addEventHandler({
        onAdd: (o, initial) => {
          if (!initial) events.push(`add ${o.metadata?.name}`);
        },
        onUpdate: (_o, n) => events.push(`update ${n.metadata?.name}`),
        onDelete: (o) => {
          if (isTombstone(o))
            tombstones.push(`${o.obj.metadata?.name}:${(o.obj as { data?: { v?: string } }).data?.v}`);
          events.push(`delete ${(isTombstone(o) ? o.obj : o).metadata?.name}`);
        },
      });
      const replayed = replay(informer);
      await viaProxy.runAndWait(stop.signal);
      await proxy.waitForWatches(1, { namespace });
      proxy.resetStats();
      const stall = proxy.stall({ watch: true, namespace });
      await direct.api.patch(
        { resource: builtins.ConfigMap, name: 'change', namespace },
        { data: { v: '1' } },
        { type: 'merge' },
      );
      await direct.api.delete({ resource: builtins.ConfigMap, name: 'vanish', namespace });
      await direct.api.create(builtins.ConfigMap, { metadata: { name: 'new', namespace } });
      // Push the revision forward, then wait (bounded) until the compactor has passed the
      // informer's resourceVersion: a watch from it is answered 410.
      for (let i = 0; i < 5; i++) {
        await direct.api.create(builtins.ConfigMap, {
          metadata: { name: `filler-${i}`, namespace: 'kube-public' },
        });
      }
      const stale = informer.lastSyncResourceVersion();
      await waitFor(
        'etcd compaction past the stalled watch',
        async () => {
          const probe = new AbortController();
          try {
            for await (const event of direct.api.watch(builtins.ConfigMap, {
              namespace,
              resourceVersion: stale,
              signal: probe.signal,
            })) {
              return event.type === 'ERROR' && event.status.code === 410;
            }
            return false;
          } catch (err) {
            return (err as { code?: number }).code === 410;
          } finally {
            probe.abort();
          }
        },
        { timeoutMs: 30_000 },
      );
      expect(stall.cut()).toBeGreaterThanOrEqual(1);
      await waitFor('relist', () => informer.health().lists === 2);
      const expected = sorted(await serverState(direct, namespace));
      await waitFor(
        'convergence',
        () => JSON.stringify(sorted(cacheState(informer))) === JSON.stringify(expected),
      );
      expect(sorted(replayed)).toEqual(expected);
      expect(events.sort()).toEqual(['add new', 'delete vanish', 'update change']);
      expect(tombstones).toEqual(['vanish:0']);
      expect(proxy.count({ verb: 'list', namespace })).toBe(1);
      expect(informer.health().relists).toBe(1);
    } finally {
      stop.abort();
      viaProxy.shutdown();
      direct.shutdown();
      await proxy.stop();
    }
  }, 120_000);
});
