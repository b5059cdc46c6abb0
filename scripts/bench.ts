/**
 * `pnpm bench`: runs every benchmark (`packages/*\/bench/*.bench.ts`, `apps/*\/bench/*.bench.ts`)
 * in its own Node process with the `@kubeloom/source` condition and `--expose-gc`. Each
 * benchmark compares kubeloom with a baseline in the same run and prints a table with ratios.
 *
 * `pnpm bench --smoke` (or KUBELOOM_BENCH_SMOKE=1) runs tiny sizes, just to keep them working.
 * `pnpm bench kube` runs only benchmarks whose path contains `kube`.
 *
 * `pnpm bench --json` also writes machine-readable results: the runner empties `.bench-results/`
 * and passes it to every benchmark in `KUBELOOM_BENCH_RESULTS`; a benchmark reports through
 * `reportBenchResults` from `@kubeloom/testing`, which writes `.bench-results/<benchmark>.json`
 * (one record per cell, variant and metric: median, min, max, every run's value, the machine's
 * cores, load average and Node version). The runner then merges them into
 * `.bench-results/results.json` (`{ generatedAt, smoke, machine, benchmarks, missing, records }`).
 * Adopting it in a benchmark is two lines: the import, and one
 * `reportBenchResults('<package>/<name>', [{ cell, variant, metric, unit, values }, ...])` call
 * with every run's value; a benchmark that wrote no file (not adopted yet, or failed) is listed
 * under `missing`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// Through the source path: the runner runs without the `@kubeloom/source` condition.
import { BENCH_RESULTS_ENV, type BenchRecord, benchMachine } from '../packages/testing/src/bench-results.ts';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke') || process.env.KUBELOOM_BENCH_SMOKE === '1';
const json = args.includes('--json');
const filters = args.filter((a) => !a.startsWith('--'));
/** Where `--json` writes: per-benchmark files and the merged `results.json`. */
const resultsDir = path.join(root, '.bench-results');

export function findBenchmarks(): string[] {
  const out: string[] = [];
  for (const group of ['packages', 'apps']) {
    for (const pkg of readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, pkg, 'bench');
      let files: string[] = [];
      try {
        files = readdirSync(dir);
      } catch {
        continue;
      }
      for (const f of files.sort()) if (f.endsWith('.bench.ts')) out.push(path.join(dir, f));
    }
  }
  return out;
}

/** Merges the per-benchmark files in `dir` into `dir/results.json`; returns the record count. */
export function mergeResults(dir: string, ran: readonly string[], missing: readonly string[]): number {
  const records: BenchRecord[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.json') || f === 'results.json') continue;
    records.push(...(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as BenchRecord[]));
  }
  const merged = {
    generatedAt: new Date().toISOString(),
    smoke,
    machine: benchMachine(),
    benchmarks: ran.map((b) => path.relative(root, b)),
    missing: missing.map((b) => path.relative(root, b)),
    records,
  };
  writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(merged, null, 2)}\n`);
  return records.length;
}

if (import.meta.main) {
  const benches = findBenchmarks().filter((b) => filters.length === 0 || filters.some((f) => b.includes(f)));
  if (json) {
    rmSync(resultsDir, { recursive: true, force: true });
    mkdirSync(resultsDir, { recursive: true });
  }
  let failed = 0;
  const missing: string[] = [];
  const files = () => (json ? readdirSync(resultsDir).join('\n') : '');
  for (const file of benches) {
    const before = files();
    console.log(`\n## ${path.relative(root, file)}${smoke ? ' (smoke)' : ''}\n`);
    const res = spawnSync(
      process.execPath,
      ['--conditions=@kubeloom/source', '--expose-gc', '--max-old-space-size=8192', file],
      {
        cwd: root,
        stdio: 'inherit',
        env: {
          ...process.env,
          ...(smoke ? { KUBELOOM_BENCH_SMOKE: '1' } : {}),
          ...(json ? { [BENCH_RESULTS_ENV]: resultsDir } : {}),
        },
      },
    );
    if (res.status !== 0) {
      failed++;
      console.error(`benchmark ${file} failed (exit ${res.status})`);
    }
    if (json && files() === before) missing.push(file);
  }
  console.log(`\n${benches.length - failed} benchmarks ran, ${failed} failed`);
  if (json) {
    const n = mergeResults(resultsDir, benches, missing);
    console.log(`${n} result records in ${path.relative(root, path.join(resultsDir, 'results.json'))}`);
  }
  process.exit(failed > 0 ? 1 : 0);
}
