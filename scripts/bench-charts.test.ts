import { describe, expect, it } from 'vitest';
import { type BenchResults, chartFile, chartSvg, formatValue, performancePage } from './bench-charts.ts';

// A rendering fixture: shapes of records as `pnpm bench --json` writes them, not measurements.
const record = (cell: string, variant: string, [median, min, max]: readonly [number, number, number]) => ({
  benchmark: 'kube/informer',
  cell,
  variant,
  metric: 'wall',
  unit: 'ms',
  median,
  min,
  max,
  runs: 5,
});
const results: BenchResults = {
  generatedAt: '2026-12-02T05:00:00.000Z',
  smoke: false,
  machine: { cores: 2, loadavg: [0.5, 0.4, 0.3], node: 'v24.22.3' },
  missing: ['packages/codegen/bench/codegen.bench.ts'],
  records: [
    record('sync 1000 configmaps', 'kubeloom', [100, 90, 120]),
    record('sync 1000 configmaps', 'client-node', [200, 180, 260]),
    { ...record('sync 1000 configmaps', 'kubeloom', [50, 45, 60]), metric: 'cpu' },
  ],
};

describe('bench charts', () => {
  it('draws a bar per cell and variant at the median, a whisker over the range, scaled to the largest max', () => {
    const svg = chartSvg(results.records.filter((r) => r.metric === 'wall'));
    expect(svg).toMatch(/^<svg /);
    expect(svg.match(/<\/title><\/rect>/g)).toHaveLength(2); // the bars (the legend's squares have no title)
    // 260 ms is the widest point: 420 px; the kubeloom median 100 ms is 100/260 of it
    expect(svg).toContain('width="161.5"');
    expect(svg).toContain('x2="680.0"');
    expect(svg).toContain('100 ms (n=5)');
    expect(svg).toContain('lower is better');
  });

  it('writes one chart per benchmark and metric, and a page that links them and names the machine', () => {
    const { markdown, charts } = performancePage(results);
    expect([...charts.keys()]).toEqual([
      chartFile('kube/informer', 'wall'),
      chartFile('kube/informer', 'cpu'),
    ]);
    expect(markdown).toContain('![kube/informer: wall](./performance/kube_informer-wall.svg)');
    expect(markdown).toContain('2 cores, Node v24.22.3');
    expect(markdown).toContain('`packages/codegen/bench/codegen.bench.ts`');
    expect(markdown).not.toMatch(/smoke run/);
    expect(performancePage({ ...results, smoke: true }).markdown).toMatch(/smoke run.*mean nothing/);
  });

  it('formats values with three significant digits', () => {
    expect([formatValue(0), formatValue(1234.5), formatValue(12.345), formatValue(0.01234)]).toEqual([
      '0',
      '1,235',
      '12.3',
      '0.0123',
    ]);
  });
});
