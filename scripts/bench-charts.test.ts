import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BenchResults,
  type ChartRecord,
  chartFile,
  chartSvg,
  formatValue,
  mergeResultFiles,
  performancePage,
} from './bench-charts.ts';

const root = path.resolve(import.meta.dirname, '..');

// A rendering fixture: shapes of records as `pnpm bench --json` writes them, not measurements.
const record = (
  cell: string,
  variant: string,
  [median, min, max]: readonly [number, number, number],
): ChartRecord => ({
  benchmark: 'kube/informer',
  cell,
  variant,
  metric: 'wall',
  unit: 'ms',
  median,
  min,
  max,
  runs: 5,
  machine: { cores: 2, loadavg: [0.5, 0.4, 0.3], node: 'v24.22.3' },
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

  it('scales each cell to its own largest value, so small cells stay readable beside large ones', () => {
    const svg = chartSvg([
      record('sync 1000 configmaps', 'kubeloom', [10, 10, 10]),
      record('sync 100000 configmaps', 'kubeloom', [1000, 1000, 1000]),
    ]);
    expect(svg.match(/width="420\.0"/g)).toHaveLength(2); // both bars full width
    expect(chartSvg([{ ...record('replay', 'kubeloom', [5, 4, 6]), metric: 'events-per-second' }])).toContain(
      'higher is better',
    );
  });

  it('writes one chart per benchmark and metric, and a page that links them, tabulates them and names the machine', () => {
    const { markdown, charts } = performancePage(results);
    expect([...charts.keys()]).toEqual([
      chartFile('kube/informer', 'wall'),
      chartFile('kube/informer', 'cpu'),
    ]);
    expect(markdown).toContain('![kube/informer: wall](./performance/kube_informer-wall.svg)');
    expect(markdown).toContain('| sync 1000 configmaps | client-node | 200 | 180–260 | 5 |');
    expect(markdown).toContain('load average 0.5 / 0.4 / 0.3 (1 / 5 / 15 min) on 2 cores, Node v24.22.3');
    expect(markdown).toContain('`packages/codegen/bench/codegen.bench.ts`');
    expect(markdown).not.toMatch(/smoke run/);
    expect(performancePage({ ...results, smoke: true }).markdown).toMatch(/smoke run.*mean nothing/);
  });

  it('orders benchmarks by the package stack and splits a metric reported in two units', () => {
    const { markdown, charts } = performancePage({
      ...results,
      records: [
        { ...record('live', 'kubeloom', [1, 1, 1]), benchmark: 'example-operator/operator' },
        { ...record('live', 'kubeloom', [1, 1, 1]), benchmark: 'controllers/queue' },
        { ...record('live', 'kubeloom', [1, 1, 1]), benchmark: 'controllers/queue', unit: 'µs' },
        { ...record('lean', 'kubeloom', [1, 1, 1]), benchmark: 'testing/control-plane' },
      ],
    });
    const headings = markdown.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual([
      '## testing/control-plane',
      '## controllers/queue',
      '## example-operator/operator',
    ]);
    expect([...charts.keys()]).toContain('controllers_queue-wall-ms.svg');
    expect([...charts.keys()]).toContain('controllers_queue-wall-_s.svg');
  });

  it('merges results files: the latest run of each benchmark counts; missing only what no file reported', () => {
    const older: BenchResults = {
      ...results,
      generatedAt: '2026-12-01T00:00:00.000Z',
      missing: ['apps/example-operator/bench/operator.bench.ts'],
      records: [
        { ...record('a', 'kubeloom', [1, 1, 1]), benchmark: 'kube/informer' },
        { ...record('a', 'x', [2, 2, 2]), benchmark: 'krt/controllers' },
      ],
    };
    const newer: BenchResults = {
      ...results,
      missing: ['packages/krt/bench/controllers.bench.ts'],
      records: [{ ...record('a', 'kubeloom', [9, 9, 9]), benchmark: 'kube/informer' }],
    };
    const merged = mergeResultFiles([newer, older]);
    expect(merged.records.map((r) => [r.benchmark, r.median])).toEqual([
      ['kube/informer', 9],
      ['krt/controllers', 2],
    ]);
    expect(merged.missing).toEqual(['apps/example-operator/bench/operator.bench.ts']);
    expect(merged.generatedAt).toBe(newer.generatedAt);
    expect(mergeResultFiles([older, { ...newer, smoke: true }]).smoke).toBe(true);
  });

  it('formats values with three significant digits', () => {
    expect([formatValue(0), formatValue(1234.5), formatValue(12.345), formatValue(0.01234)]).toEqual([
      '0',
      '1,235',
      '12.3',
      '0.0123',
    ]);
  });

  it('the committed page links exactly the committed charts', () => {
    const page = readFileSync(path.join(root, 'docs', 'performance.md'), 'utf8');
    const linked = [...page.matchAll(/\]\(\.\/performance\/([^)]+)\)/g)].map((m) => m[1]!).sort();
    const dir = path.join(root, 'docs', 'performance');
    const committed = existsSync(dir) ? readdirSync(dir).sort() : [];
    expect(linked).toEqual(committed);
    expect(page).toMatch(/^---\ntitle: Performance\n---\n/);
  });
});
