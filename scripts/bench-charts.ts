/**
 * The docs site's performance page from `pnpm bench --json` results: one SVG chart per benchmark
 * and metric (a bar per cell and variant at the median, a whisker from min to max, the run count),
 * and `docs/performance.md` listing them with the machine they ran on.
 *
 *   pnpm bench --json                                         # 5 fresh processes per cell
 *   node scripts/bench-charts.ts .bench-results/results.json  # writes docs/performance.md + docs/performance/*.svg
 *
 * A `--smoke` run's figures mean nothing: they are refused unless `--smoke-ok` is given, and then
 * the page says so. The results format is `scripts/bench.ts`'s `results.json`
 * (`{ generatedAt, smoke, machine, benchmarks, missing, records }`).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
}

/** The merged results file of `pnpm bench --json`. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly smoke: boolean;
  readonly machine: { readonly cores: number; readonly loadavg: readonly number[]; readonly node: string };
  readonly missing: readonly string[];
  readonly records: readonly ChartRecord[];
}

const COLORS = ['#3563c9', '#c77700', '#2e7d32', '#8e24aa', '#00838f', '#6d4c41'];
const LABEL_W = 260;
const PLOT_W = 420;
const BAR_H = 14;
const ROW_GAP = 10;

function escapeXml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** A number for a label: 3 significant digits, no exponent for the usual ranges. */
export function formatValue(v: number): string {
  if (v === 0) return '0';
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))));
  return v.toLocaleString('en-US', { maximumFractionDigits: Math.min(digits, 6) });
}

/** One chart: every cell of one benchmark and metric, a bar per variant. */
export function chartSvg(records: readonly ChartRecord[]): string {
  if (records.length === 0) throw new Error('chartSvg: no records to draw');
  const { benchmark, metric, unit } = records[0]!;
  const cells = [...new Set(records.map((r) => r.cell))];
  const variants = [...new Set(records.map((r) => r.variant))];
  const top = Math.max(...records.map((r) => r.max));
  const scale = (v: number) => (top > 0 ? (v / top) * PLOT_W : 0);
  const legendH = 24;
  const cellH = variants.length * BAR_H + ROW_GAP;
  const height = 40 + legendH + cells.length * cellH + 24;
  const width = LABEL_W + PLOT_W + 130;
  const better = metric === 'events-per-second' ? 'higher is better' : 'lower is better';
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(`${benchmark}: ${metric} (${unit})`)}">`,
    '  <style>text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1f2937; } .title { font-size: 14px; font-weight: 600; } .muted { fill: #6b7280; } .whisker { stroke: #111827; stroke-width: 1.2; }</style>',
    `  <text x="8" y="20" class="title">${escapeXml(`${benchmark} — ${metric} (${unit}), median and range; ${better}`)}</text>`,
  ];
  variants.forEach((v, i) => {
    const x = LABEL_W + i * 110;
    out.push(`  <rect x="${x}" y="32" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    out.push(`  <text x="${x + 16}" y="42">${escapeXml(v)}</text>`);
  });
  cells.forEach((cell, ci) => {
    const y0 = 40 + legendH + ci * cellH;
    out.push(
      `  <text x="${LABEL_W - 8}" y="${y0 + (variants.length * BAR_H) / 2 + 4}" text-anchor="end">${escapeXml(cell)}</text>`,
    );
    variants.forEach((v, vi) => {
      const r = records.find((x) => x.cell === cell && x.variant === v);
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
  out.push(
    `  <line x1="${LABEL_W}" y1="${40 + legendH - 4}" x2="${LABEL_W}" y2="${height - 20}" stroke="#9ca3af"/>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The chart file name of a benchmark and metric. */
export function chartFile(benchmark: string, metric: string): string {
  return `${benchmark.replaceAll('/', '_')}-${metric}.svg`;
}

/** The performance page and its charts (file name → SVG) for `results`. */
export function performancePage(results: BenchResults): { markdown: string; charts: Map<string, string> } {
  const charts = new Map<string, string>();
  const groups = new Map<string, ChartRecord[]>();
  for (const r of results.records) {
    const k = `${r.benchmark}\u0000${r.metric}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const lines = [
    '---',
    'title: Performance',
    '---',
    '',
    '# Performance',
    '',
    `Generated by \`scripts/bench-charts.ts\` from \`pnpm bench --json\` run at ${results.generatedAt} on ` +
      `${results.machine.cores} cores, Node ${results.machine.node}, load average ${results.machine.loadavg.join(' / ')}. ` +
      'Each bar is the median of the runs (fresh processes), the whisker the range.',
    '',
  ];
  if (results.smoke) {
    lines.push(
      '**A smoke run: tiny sizes, one run each — these figures mean nothing about performance.**',
      '',
    );
  }
  let benchmark = '';
  for (const records of groups.values()) {
    const { benchmark: b, metric } = records[0]!;
    if (b !== benchmark) {
      lines.push(`## ${b}`, '');
      benchmark = b;
    }
    const file = chartFile(b, metric);
    charts.set(file, chartSvg(records));
    lines.push(`![${b}: ${metric}](./performance/${file})`, '');
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
  const input = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!input) {
    console.error(
      'usage: node scripts/bench-charts.ts <results.json> [--smoke-ok]  (results from `pnpm bench --json`)',
    );
    process.exit(2);
  }
  const results = JSON.parse(readFileSync(input, 'utf8')) as BenchResults;
  if (results.smoke && !process.argv.includes('--smoke-ok')) {
    console.error(
      `${input} is from a --smoke run, whose figures mean nothing: run \`pnpm bench --json\` (or pass --smoke-ok)`,
    );
    process.exit(1);
  }
  const { markdown, charts } = performancePage(results);
  const dir = path.join(root, 'docs', 'performance');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [file, svg] of charts) writeFileSync(path.join(dir, file), svg);
  writeFileSync(path.join(root, 'docs', 'performance.md'), markdown);
  console.log(`docs/performance.md and ${charts.size} charts in docs/performance/`);
}
