import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { noopLogger } from '@kubeloom/kube';
import * as promClient from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred, flushMicrotasks } from '../test/deferred.ts';
import { createQueue } from './create-queue.ts';
import { importPrometheusMetrics, prometheusMetrics } from './prometheus-metrics.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

async function values(registry: promClient.Registry, metric: string): Promise<Record<string, number>> {
  const all = await registry.getMetricsAsJSON();
  const m = all.find((x) => x.name === metric);
  if (!m) throw new Error(`metric ${metric} not registered`);
  const out: Record<string, number> = {};
  for (const v of m.values as Array<{
    labels: Record<string, string | number>;
    value: number;
    metricName?: string;
  }>) {
    const suffix = v.metricName && v.metricName !== metric ? v.metricName.slice(metric.length) : '';
    const le = v.labels.le !== undefined ? `{le=${v.labels.le}}` : '';
    out[`${v.labels.name}${suffix}${le}`] = v.value;
  }
  return out;
}

/** `gc()`, also when Node was started without `--expose-gc`. */
function exposeGc(): () => void {
  if (typeof globalThis.gc === 'function') return globalThis.gc as () => void;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('prometheusMetrics', () => {
  it("records controller-runtime's reconcile metrics, and the controller label on workqueue metrics", async () => {
    vi.useRealTimers();
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    let failures = 1;
    const q = createQueue<string>({
      name: 'policies',
      metrics,
      logger: noopLogger,
      maxAttempts: 2,
      reconciler: (k) => {
        if (k === 'fail' && failures-- > 0) throw new Error('once');
        return k === 'later' ? { requeueAfterMs: 60_000 } : undefined;
      },
    });
    for (const k of ['a', 'fail', 'later']) q.add(k);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.waitFor(async () => {
      const text = await registry.metrics();
      expect(text).toContain('controller_runtime_reconcile_total{controller="policies",result="success"} 2');
    });
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="policies",result="error"} 1');
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="policies",result="requeue_after"} 1',
    );
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="policies"} 1');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="policies"} 4');
    expect(text).toContain('workqueue_adds_total{name="policies",controller="policies"}');
    ac.abort();
    await run;
  });

  it("records controller-runtime's workqueue metrics, labelled by queue name", async () => {
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    const gate = deferred();
    let calls = 0;
    const q = createQueue<string>({
      name: 'pods',
      metrics,
      logger: noopLogger,
      maxAttempts: 2,
      reconciler: async (k) => {
        calls++;
        if (k === 'slow') await gate.promise;
        if (k === 'fail' && calls < 10) throw new Error('x');
      },
    });
    q.add('slow');
    q.add('a');
    q.add('a'); // deduplicated: not an add
    q.add('fail');
    expect(await values(registry, 'workqueue_adds_total')).toEqual({ pods: 3 });
    expect(await values(registry, 'workqueue_depth')).toEqual({ pods: 3 });
    await vi.advanceTimersByTimeAsync(100);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    // 'slow' is running since t=100 ms (after waiting 100 ms in the queue); the others wait behind it.
    await vi.advanceTimersByTimeAsync(2000);
    expect(await values(registry, 'workqueue_depth')).toEqual({ pods: 2 });
    expect(await values(registry, 'workqueue_longest_running_processor_seconds')).toEqual({ pods: 2 });
    expect(await values(registry, 'workqueue_unfinished_work_seconds')).toEqual({ pods: 2 });
    gate.resolve();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await values(registry, 'workqueue_depth')).toEqual({ pods: 0 });
    expect(await values(registry, 'workqueue_retries_total')).toEqual({ pods: 1 });
    const queued = await values(registry, 'workqueue_queue_duration_seconds');
    expect(queued.pods_count).toBe(4); // slow, a, fail, fail (retry)
    expect(queued['pods_bucket{le=0.01}']).toBe(1); // the retry waited 5 ms
    expect(queued['pods_bucket{le=1}']).toBe(2); // cumulative: + slow (0.1 s)
    expect(queued['pods_bucket{le=10}']).toBe(4); // slow waited 0.1 s, the others about 2.1 s
    const work = await values(registry, 'workqueue_work_duration_seconds');
    expect(work.pods_count).toBe(4);
    expect(work.pods_sum).toBeCloseTo(2, 5);
    ac.abort();
    await run;
    expect(await values(registry, 'workqueue_longest_running_processor_seconds')).toEqual({ pods: 0 });
  });

  it('reuses the metrics when called again on the same registry, and sums queues sharing a name', async () => {
    const registry = new promClient.Registry();
    const a = createQueue<string>({
      name: 'same',
      reconciler: () => {},
      metrics: prometheusMetrics({ registry, promClient }),
    });
    const b = createQueue<string>({
      name: 'same',
      reconciler: () => {},
      metrics: prometheusMetrics({ registry, promClient }),
    });
    a.add('1');
    b.add('1');
    b.add('2');
    expect(await values(registry, 'workqueue_depth')).toEqual({ same: 3 });
    await a[Symbol.asyncDispose]();
    expect(await values(registry, 'workqueue_depth')).toEqual({ same: 2 });
    await b[Symbol.asyncDispose]();
    expect(await values(registry, 'workqueue_depth')).toEqual({ same: 0 });
  });

  it('a scrape visits only live queues, however many closed before', async () => {
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    for (let i = 0; i < 500; i++) {
      const q = createQueue<string>({ name: `short-lived-${i}`, reconciler: () => {}, metrics });
      q.add('k');
      await q[Symbol.asyncDispose]();
    }
    const live = createQueue<string>({ name: 'live', reconciler: () => {}, metrics });
    live.add('k');
    const set = vi.spyOn(promClient.Gauge.prototype, 'set');
    const depth = await values(registry, 'workqueue_depth');
    // One value per gauge for the live queue; the closed names were zeroed once, when they closed.
    expect(set).toHaveBeenCalledTimes(3);
    expect(depth.live).toBe(1);
    expect(depth['short-lived-0']).toBe(0);
    expect(depth['short-lived-499']).toBe(0);
    await live[Symbol.asyncDispose]();
    expect((await values(registry, 'workqueue_depth')).live).toBe(0);
  });

  it('unregisters a queue that was dropped without being run or shut down', async () => {
    vi.useRealTimers();
    const collectGarbage = exposeGc();
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    const kept = createQueue<string>({ name: 'kept', reconciler: () => {}, metrics });
    kept.add('k');
    (() => {
      const dropped = createQueue<string>({ name: 'dropped', reconciler: () => {}, metrics });
      dropped.add('a');
      dropped.add('b');
    })();
    expect(await values(registry, 'workqueue_depth')).toEqual({ kept: 1, dropped: 2 });
    for (let i = 0; i < 50 && (await values(registry, 'workqueue_depth')).dropped !== 0; i++) {
      await new Promise((r) => setImmediate(r)); // ends the job that kept weak targets alive
      collectGarbage();
    }
    expect(await values(registry, 'workqueue_depth')).toEqual({ kept: 1, dropped: 0 });
    await kept[Symbol.asyncDispose]();
  });

  it('refuses a registry that already has one of the names from elsewhere', () => {
    const registry = new promClient.Registry();
    new promClient.Gauge({ name: 'workqueue_depth', help: 'someone else', registers: [registry] });
    expect(() => prometheusMetrics({ registry, promClient })).toThrow(
      /already has a metric named workqueue_depth/,
    );
  });

  it('reports leader_election_master_status per lease', async () => {
    const registry = new promClient.Registry();
    const rec = prometheusMetrics({ registry, promClient }).leaderElection('my-lease');
    expect(await values(registry, 'leader_election_master_status')).toEqual({ 'my-lease': 0 });
    rec.setLeader(true);
    expect(await values(registry, 'leader_election_master_status')).toEqual({ 'my-lease': 1 });
    rec.close();
    expect(await values(registry, 'leader_election_master_status')).toEqual({ 'my-lease': 0 });
  });

  it('loads prom-client lazily: no static import, a dynamic one on request', async () => {
    const source = readFileSync(new URL('./prometheus-metrics.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import[^;]*from 'prom-client'/m);
    const registry = new promClient.Registry();
    const metrics = await importPrometheusMetrics(registry);
    metrics.leaderElection('x').setLeader(true);
    expect(await values(registry, 'leader_election_master_status')).toEqual({ x: 1 });
  });
});
