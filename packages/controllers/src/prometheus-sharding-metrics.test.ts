import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { prometheusMetrics } from './prometheus-metrics.ts';

async function series(registry: promClient.Registry, metric: string): Promise<Record<string, number>> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === metric);
  if (!m) throw new Error(`metric ${metric} not registered`);
  const out: Record<string, number> = {};
  for (const v of m.values as Array<{
    labels: Record<string, string | number>;
    value: number;
    metricName?: string;
  }>) {
    if (v.metricName && v.metricName !== `${metric}_count` && v.metricName !== metric) continue;
    out[`${v.labels.ring}/${v.labels.shard}`] = v.value;
  }
  return out;
}

describe('prometheusMetrics: sharding', () => {
  it('reports objects per shard at scrape time, moves onto each shard, and drain times; zeroes a ring whose sharder stopped', async () => {
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    const assigned = new Map([
      ['web-0', 10],
      ['web-1', 12],
    ]);
    const recorder = metrics.sharding!('web', { assigned: () => assigned });
    recorder.move('web-1');
    recorder.move('web-1');
    recorder.observeDrain('web-0', 0.25);
    expect(await series(registry, 'kubeloom_shard_objects')).toEqual({ 'web/web-0': 10, 'web/web-1': 12 });
    expect(await series(registry, 'kubeloom_shard_moves_total')).toEqual({ 'web/web-1': 2 });
    expect(await series(registry, 'kubeloom_shard_drain_seconds')).toEqual({ 'web/web-0': 1 });
    assigned.delete('web-0');
    expect(await series(registry, 'kubeloom_shard_objects')).toEqual({ 'web/web-0': 0, 'web/web-1': 12 });
    recorder.close();
    expect(await series(registry, 'kubeloom_shard_objects')).toEqual({ 'web/web-0': 0, 'web/web-1': 0 });
  });
});
