/**
 * Machine-readable benchmark results (`pnpm bench --json`): the runner (scripts/bench.ts) sets
 * {@link BENCH_RESULTS_ENV} to a directory; {@link reportBenchResults} then writes one JSON file
 * per benchmark there, one record per (cell, variant, metric), and the runner merges the files.
 * Without the variable it writes nothing, so a benchmark calls it unconditionally.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The environment variable naming the directory {@link reportBenchResults} writes into. */
export const BENCH_RESULTS_ENV = 'KUBELOOM_BENCH_RESULTS';

/** The machine a benchmark ran on, recorded with every result (the load says how noisy it was). */
export interface BenchMachine {
  /** Logical CPUs (`os.availableParallelism()`). */
  readonly cores: number;
  /** `os.loadavg()` (1, 5 and 15 minutes) when the results were written. */
  readonly loadavg: readonly [number, number, number];
  /** `process.version`. */
  readonly node: string;
  /** `os.totalmem()` in bytes. */
  readonly memoryBytes: number;
}

/** One measured quantity of one cell and variant: every run's value, unsummarised. */
export interface BenchMeasurement {
  /** The cell: the workload and its size, e.g. `sync 10000 configmaps`. */
  readonly cell: string;
  /** What was measured in that cell, e.g. `kubeloom`, `client-node`, `floor`. */
  readonly variant: string;
  /** The quantity, e.g. `wall`, `cpu`, `bytes-per-object`, `events-per-second`. */
  readonly metric: string;
  /** Its unit, e.g. `ms`, `µs/event`, `bytes`, `events/s`. */
  readonly unit: string;
  /** One value per run (per fresh process). */
  readonly values: readonly number[];
}

/** One line of the results: a measurement summarised, with the benchmark and machine named. */
export interface BenchRecord {
  /** The benchmark, e.g. `kube/informer`. */
  readonly benchmark: string;
  /** See {@link BenchMeasurement.cell}. */
  readonly cell: string;
  /** See {@link BenchMeasurement.variant}. */
  readonly variant: string;
  /** See {@link BenchMeasurement.metric}. */
  readonly metric: string;
  /** See {@link BenchMeasurement.unit}. */
  readonly unit: string;
  /** The median of the runs (the mean of the middle two for an even count). */
  readonly median: number;
  /** The smallest run. */
  readonly min: number;
  /** The largest run. */
  readonly max: number;
  /** How many runs (fresh processes) the figures summarise. */
  readonly runs: number;
  /** Every run's value, in run order. */
  readonly values: readonly number[];
  /** Whether this was a `--smoke` run (tiny sizes: the figures mean nothing). */
  readonly smoke: boolean;
  /** Where it ran. */
  readonly machine: BenchMachine;
}

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values: measure at least one run');
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** The machine this process runs on, now. */
export function benchMachine(): BenchMachine {
  const [a, b, c] = os.loadavg();
  return {
    cores: os.availableParallelism(),
    loadavg: [a ?? 0, b ?? 0, c ?? 0],
    node: process.version,
    memoryBytes: os.totalmem(),
  };
}

/**
 * Summarises `measurements` into {@link BenchRecord}s and, when {@link BENCH_RESULTS_ENV} names a
 * directory (`pnpm bench --json`), writes them there as `<benchmark>.json` (`/` in the name becomes
 * `_`). Returns the records either way. Adopting it in a benchmark is an import and one call:
 *
 * ```ts
 * import { reportBenchResults } from '@kubeloom/testing';
 * reportBenchResults('kube/informer', [{ cell: 'sync 10000 configmaps', variant: 'kubeloom', metric: 'wall', unit: 'ms', values: [812, 790, 845] }]);
 * ```
 */
export function reportBenchResults(
  benchmark: string,
  measurements: readonly BenchMeasurement[],
): BenchRecord[] {
  const machine = benchMachine();
  const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
  const records = measurements.map(
    (m): BenchRecord => ({
      benchmark,
      cell: m.cell,
      variant: m.variant,
      metric: m.metric,
      unit: m.unit,
      median: median(m.values),
      min: Math.min(...m.values),
      max: Math.max(...m.values),
      runs: m.values.length,
      values: [...m.values],
      smoke,
      machine,
    }),
  );
  const dir = process.env[BENCH_RESULTS_ENV];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `${benchmark.replaceAll('/', '_')}.json`),
      `${JSON.stringify(records, null, 2)}\n`,
    );
  }
  return records;
}
