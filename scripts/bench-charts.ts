/**
 * The docs site's performance page from `pnpm bench --json` results: one SVG chart per benchmark
 * and metric (a bar per cell and variant at the median, a whisker from min to max, the run count;
 * the bars of one cell share a scale), a table of the same figures under each chart, and
 * `docs/performance.md` listing them per benchmark with the machine and load it ran at.
 *
 *   pnpm bench --json && pnpm docs:performance     # every benchmark, then the page
 *
 * `pnpm docs:performance [results.json ...]` (default `.bench-results/results.json`) takes several
 * results files too, so benchmarks can run one at a time (`pnpm bench --json <filter>` empties
 * `.bench-results/` first: copy each `results.json` aside); for a benchmark in several files the
 * latest run counts. It rewrites `docs/performance.md` and `docs/performance/*.svg`.
 *
 * A `--smoke` run's figures mean nothing: they are refused unless `--smoke-ok` is given, and then
 * the page says so. The results format is `scripts/bench.ts`'s `results.json`
 * (`{ generatedAt, smoke, machine, benchmarks, missing, records }`).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LAYERS } from './layers.ts';

/** The machine a benchmark ran on, when it wrote its results. */
export interface ChartMachine {
  readonly cores: number;
  readonly loadavg: readonly number[];
  readonly node: string;
}

/** One summarised measurement, as `reportBenchResults` (@kubeloom/testing) writes it. */
export interface ChartRecord {
  readonly benchmark: string;
  readonly cell: string;
  readonly variant: string;
  readonly metric: string;
  readonly unit: string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
  readonly machine?: ChartMachine | undefined;
}

/** The merged results file of `pnpm bench --json`. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly smoke: boolean;
  readonly machine: ChartMachine;
  readonly missing: readonly string[];
  readonly records: readonly ChartRecord[];
}

const COLORS = ['#3563c9', '#c77700', '#2e7d32', '#8e24aa', '#00838f', '#6d4c41'];
const LABEL_W = 260;
const PLOT_W = 420;
const BAR_H = 14;
const ROW_GAP = 10;
const LEGEND_W = 120;

function escapeXml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** A number for a label: 3 significant digits, no exponent for the usual ranges. */
export function formatValue(v: number): string {
  if (v === 0) return '0';
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))));
  return v.toLocaleString('en-US', { maximumFractionDigits: Math.min(digits, 6) });
}

/** Whether a larger value of `metric` is better (throughput); smaller is better for the rest. */
export function higherIsBetter(metric: string): boolean {
  return /per-second|throughput|ops/.test(metric);
}

/**
 * One chart: every cell of one benchmark and metric, a bar per variant. The bars of a cell share
 * a scale (its largest max): variants compare within a cell, where sizes of cells may differ by
 * orders of magnitude; the labels carry the values.
 */
export function chartSvg(records: readonly ChartRecord[]): string {
  if (records.length === 0) throw new Error('chartSvg: no records to draw');
  const { benchmark, metric, unit } = records[0]!;
  const cells = [...new Set(records.map((r) => r.cell))];
  const variants = [...new Set(records.map((r) => r.variant))];
  const legendRows = Math.ceil((variants.length * LEGEND_W) / (PLOT_W + 130));
  const legendH = 20 * legendRows + 4;
  const cellH = variants.length * BAR_H + ROW_GAP;
  const top0 = 32 + legendH;
  const height = top0 + cells.length * cellH + 16;
  const width = LABEL_W + PLOT_W + 130;
  const perRow = Math.max(1, Math.floor((PLOT_W + 130) / LEGEND_W));
  const better = higherIsBetter(metric) ? 'higher is better' : 'lower is better';
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(`${benchmark}: ${metric} (${unit})`)}">`,
    '  <style>text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1f2937; } .title { font-size: 14px; font-weight: 600; } .muted { fill: #6b7280; } .whisker { stroke: #111827; stroke-width: 1.2; }</style>',
    '  <rect width="100%" height="100%" fill="#ffffff"/>',
    `  <text x="8" y="20" class="title">${escapeXml(`${benchmark} — ${metric} (${unit}), median and range; ${better}`)}</text>`,
  ];
  variants.forEach((v, i) => {
    const x = LABEL_W + (i % perRow) * LEGEND_W;
    const y = 30 + Math.floor(i / perRow) * 20;
    out.push(`  <rect x="${x}" y="${y}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    out.push(`  <text x="${x + 16}" y="${y + 10}">${escapeXml(v)}</text>`);
  });
  cells.forEach((cell, ci) => {
    const y0 = top0 + ci * cellH;
    const inCell = records.filter((r) => r.cell === cell);
    const top = Math.max(...inCell.map((r) => r.max));
    const scale = (v: number) => (top > 0 ? (Math.max(0, v) / top) * PLOT_W : 0);
    out.push(
      `  <text x="${LABEL_W - 8}" y="${y0 + (variants.length * BAR_H) / 2 + 4}" text-anchor="end">${escapeXml(cell)}</text>`,
    );
    variants.forEach((v, vi) => {
      const r = inCell.find((x) => x.variant === v);
      if (!r) return;
      const y = y0 + vi * BAR_H;
      const mid = y + BAR_H / 2;
      out.push(
        `  <rect x="${LABEL_W}" y="${y + 1}" width="${scale(r.median).toFixed(1)}" height="${BAR_H - 2}" fill="${COLORS[vi % COLORS.length]}"><title>${escapeXml(`${v}: median ${formatValue(r.median)} ${unit}, range ${formatValue(r.min)}–${formatValue(r.max)}, ${r.runs} runs`)}</title></rect>`,
        `  <line x1="${(LABEL_W + scale(r.min)).toFixed(1)}" y1="${mid}" x2="${(LABEL_W + scale(r.max)).toFixed(1)}" y2="${mid}" class="whisker"/>`,
        `  <text x="${(LABEL_W + scale(r.max) + 6).toFixed(1)}" y="${mid + 4}" class="muted">${escapeXml(`${formatValue(r.median)} ${unit} (n=${r.runs})`)}</text>`,
      );
    });
  });
  out.push(`  <line x1="${LABEL_W}" y1="${top0 - 4}" x2="${LABEL_W}" y2="${height - 12}" stroke="#9ca3af"/>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The chart file name of a benchmark and metric (and unit, when a metric comes in several). */
export function chartFile(benchmark: string, metric: string, unit?: string): string {
  const slug = (s: string) => s.replace(/[^A-Za-z0-9.-]+/g, '_');
  return `${slug(benchmark)}-${slug(metric)}${unit ? `-${slug(unit)}` : ''}.svg`;
}

/**
 * Merges several results files into one: every benchmark's records from the latest file that has
 * it (by `generatedAt`); smoke if any file is; `missing` what no file has records of.
 */
export function mergeResultFiles(files: readonly BenchResults[]): BenchResults {
  if (files.length === 0) throw new Error('mergeResultFiles: no results');
  const latest = [...files].sort((a, b) => a.generatedAt.localeCompare(b.generatedAt));
  const byBenchmark = new Map<string, readonly ChartRecord[]>();
  for (const f of latest) {
    const groups = new Map<string, ChartRecord[]>();
    for (const r of f.records) groups.set(r.benchmark, [...(groups.get(r.benchmark) ?? []), r]);
    for (const [b, rs] of groups) byBenchmark.set(b, rs);
  }
  const last = latest.at(-1)!;
  const present = new Set(byBenchmark.keys());
  // `packages/kube/bench/informer.bench.ts` reports as `kube/informer`.
  const benchmarkOf = (file: string) => {
    const m = /^(?:packages|apps)\/([^/]+)\/bench\/(.+)\.bench\.ts$/.exec(file);
    return m ? `${m[1]}/${m[2]}` : file;
  };
  // A file that wrote nothing in one run may have reported in another.
  const missing = [...new Set(files.flatMap((f) => f.missing))].filter((m) => !present.has(benchmarkOf(m)));
  return {
    generatedAt: last.generatedAt,
    smoke: files.some((f) => f.smoke),
    machine: last.machine,
    missing,
    records: [...byBenchmark.values()].flat(),
  };
}

/** Stack order of a benchmark (`<package>/<name>`): testing first, the example operator last. */
function stackOrder(benchmark: string): number {
  const pkg = benchmark.split('/')[0] ?? '';
  const i = LAYERS.findIndex((l) => l.dir.endsWith(`/${pkg}`));
  return i === -1 ? LAYERS.length : i;
}

function machineLine(records: readonly ChartRecord[], fallback: ChartMachine): string {
  const m = records.find((r) => r.machine)?.machine ?? fallback;
  const runs = [...new Set(records.map((r) => r.runs))].sort((a, b) => a - b);
  const load = m.loadavg.map((l) => l.toFixed(1)).join(' / ');
  return (
    `${runs.join('–')} fresh process(es) per cell and variant; at the end: load average ${load} ` +
    `(1 / 5 / 15 min) on ${m.cores} cores, Node ${m.node}.`
  );
}

function table(records: readonly ChartRecord[]): string[] {
  const unit = records[0]?.unit ?? '';
  return [
    `| cell | variant | median (${unit}) | range | runs |`,
    '|---|---|---:|---:|---:|',
    ...records.map(
      (r) =>
        `| ${r.cell} | ${r.variant} | ${formatValue(r.median)} | ${formatValue(r.min)}–${formatValue(r.max)} | ${r.runs} |`,
    ),
  ];
}

/** The performance page and its charts (file name → SVG) for `results`. */
export function performancePage(results: BenchResults): { markdown: string; charts: Map<string, string> } {
  const charts = new Map<string, string>();
  const byBenchmark = new Map<string, ChartRecord[]>();
  for (const r of results.records) byBenchmark.set(r.benchmark, [...(byBenchmark.get(r.benchmark) ?? []), r]);
  const benchmarks = [...byBenchmark.keys()].sort(
    (a, b) => stackOrder(a) - stackOrder(b) || a.localeCompare(b),
  );
  const lines = [
    '---',
    'title: Performance',
    '---',
    '',
    '# Performance',
    '',
    `Generated by \`scripts/bench-charts.ts\` (\`pnpm docs:performance\`) from \`pnpm bench --json\`, last run at ${results.generatedAt}. ` +
      'Each bar is the median of the runs (fresh processes), the whisker the range; the bars of one cell ' +
      'share a scale. What each benchmark measures is in its package README ("Benchmarks") and at the top of ' +
      'its `bench/*.bench.ts`.',
    '',
  ];
  if (results.smoke) {
    lines.push(
      '**A smoke run: tiny sizes, one run each — these figures mean nothing about performance.**',
      '',
    );
  }
  for (const benchmark of benchmarks) {
    const records = byBenchmark.get(benchmark)!;
    lines.push(`## ${benchmark}`, '', machineLine(records, results.machine), '');
    const groups = new Map<string, ChartRecord[]>();
    for (const r of records)
      groups.set(`${r.metric}\u0000${r.unit}`, [...(groups.get(`${r.metric}\u0000${r.unit}`) ?? []), r]);
    const units = new Map<string, number>();
    for (const rs of groups.values()) units.set(rs[0]!.metric, (units.get(rs[0]!.metric) ?? 0) + 1);
    for (const rs of groups.values()) {
      const { metric, unit } = rs[0]!;
      const file = chartFile(benchmark, metric, (units.get(metric) ?? 0) > 1 ? unit : undefined);
      charts.set(file, chartSvg(rs));
      lines.push(
        `### ${metric} (${unit})`,
        '',
        `![${benchmark}: ${metric}](./performance/${file})`,
        '',
        ...table(rs),
        '',
      );
    }
  }
  if (results.missing.length > 0) {
    lines.push(
      `Benchmarks that reported no results: ${results.missing.map((m) => `\`${m}\``).join(', ')}.`,
      '',
    );
  }
  return { markdown: lines.join('\n'), charts };
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const args = process.argv.slice(2);
  const inputs = args.filter((a) => !a.startsWith('--'));
  if (inputs.length === 0) inputs.push(path.join(root, '.bench-results', 'results.json'));
  const files: BenchResults[] = [];
  for (const input of inputs) {
    try {
      files.push(JSON.parse(readFileSync(input, 'utf8')) as BenchResults);
    } catch (err) {
      console.error(
        `cannot read ${input} (${(err as Error).message.split('\n')[0]}): run \`pnpm bench --json\` first, or name its results.json files:\n` +
          '  pnpm docs:performance [results.json ...] [--smoke-ok]',
      );
      process.exit(2);
    }
  }
  const smoke = inputs.filter((_, i) => files[i]!.smoke);
  if (smoke.length > 0 && !args.includes('--smoke-ok')) {
    console.error(
      `${smoke.join(', ')}: from a --smoke run, whose figures mean nothing: run \`pnpm bench --json\` (or pass --smoke-ok)`,
    );
    process.exit(1);
  }
  const results = mergeResultFiles(files);
  if (results.records.length === 0) {
    console.error(`${inputs.join(', ')}: no result records (did every benchmark fail?)`);
    process.exit(1);
  }
  const { markdown, charts } = performancePage(results);
  const dir = path.join(root, 'docs', 'performance');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [file, svg] of charts) writeFileSync(path.join(dir, file), svg);
  writeFileSync(path.join(root, 'docs', 'performance.md'), markdown);
  const benchmarks = new Set(results.records.map((r) => r.benchmark));
  console.log(
    `docs/performance.md: ${benchmarks.size} benchmark(s) (${[...benchmarks].join(', ')}), ${charts.size} charts in docs/performance/` +
      (results.missing.length > 0 ? `; no results from ${results.missing.join(', ')}` : ''),
  );
}
