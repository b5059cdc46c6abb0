/**
 * Queue throughput: 1,000,000 adds over 100,000 distinct keys with a no-op reconciler, 1 and 4
 * workers, kubeloom's Queue against a plain array + Set FIFO (dedupe while waiting, nothing
 * else) fed by the same producer in the same process. The producer adds in batches of 1,000 and
 * yields to the event loop between batches, so the workers drain concurrently and the dedupe
 * ratio reflects a live queue rather than one big backlog.
 *
 * The baseline is what a hand-written loop does: it awaits an async reconciler and calls a
 * synchronous one without awaiting (no microtask hop, no yielding to the event loop).
 *
 * Reports the dedupe ratio (adds / keys processed) and the time per processed key relative to the
 * baseline, CPU and wall clock. Target: ≤ 1.3× the baseline's CPU time per key in every cell. The
 * target is judged on CPU time because the workload is CPU-bound and single-threaded, so on an
 * idle machine the two agree, while on a shared one the wall clock mostly measures how long the
 * neighbours kept the process off the CPU.
 *
 * Every measurement runs in a fresh Node process (one warm-up run, then RUNS_PER_PROCESS measured
 * runs whose median the process reports), so the two implementations never share JIT state (a
 * call site made polymorphic by one slows the other). Each cell runs ROUNDS processes per variant,
 * baseline and kubeloom interleaved with the order rotated every round, and reports the median and
 * the range (min–max) over the processes of CPU and wall time per key; a ratio's range is over the
 * per-round pairs. The header prints the machine's load average before and after.
 *
 * Two feeds: `live` (batches while the workers drain) and `backlog` (all adds before the workers
 * start, as on a controller's startup; dedupe 10×).
 *
 * `KUBELOOM_BENCH_SMOKE=1`: 20,000 adds over 2,000 keys, one round.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { setImmediate as tick } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '@kubeloom/kube';
import { type BenchMeasurement, reportBenchResults } from '@kubeloom/testing';
import { createQueue } from '../src/create-queue.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const ADDS = smoke ? 20_000 : 1_000_000;
const KEYS = smoke ? 2_000 : 100_000;
const BATCH = 1_000;
const ROUNDS = smoke ? 1 : 5;
/** Measured runs in each process (after one warm-up run); the process reports their median. */
const RUNS_PER_PROCESS = 5;
/** The target: the worst cell's median CPU time per key, as a multiple of the baseline's. */
const TARGET = 1.3;

/** Deterministic, uniformly spread key sequence (mulberry32), the same for every run. */
function keySequence(): string[] {
  const names = Array.from({ length: KEYS }, (_, i) => `ns-${i % 100}/obj-${i}`);
  const out = new Array<string>(ADDS);
  let seed = 12345;
  for (let i = 0; i < ADDS; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out[i] = names[Math.floor(r * KEYS)]!;
  }
  return out;
}

interface Sink {
  add(key: string): void;
}

async function produce(q: Sink, keys: readonly string[], backlog: boolean): Promise<void> {
  if (backlog) {
    for (const k of keys) q.add(k);
    return;
  }
  for (let i = 0; i < keys.length; i += BATCH) {
    const end = Math.min(keys.length, i + BATCH);
    for (let j = i; j < end; j++) q.add(keys[j]!);
    await tick();
  }
}

type Reconcile = (key: string) => void | Promise<void>;

/**
 * The baseline: what people hand-roll. An array with a head index plus a Set of waiting keys; a
 * synchronous reconciler is called like a plain function, an async one awaited.
 */
function baselineQueue(workers: number, reconcile: Reconcile) {
  let items: string[] = [];
  let head = 0;
  const waiting = new Set<string>();
  const idle: Array<() => void> = [];
  let stopped = false;
  const q = {
    add(key: string) {
      if (waiting.has(key)) return;
      waiting.add(key);
      items.push(key);
      idle.pop()?.();
    },
    stop() {
      stopped = true;
      for (const w of idle.splice(0)) w();
    },
    done: Promise.resolve(),
  };
  const worker = async () => {
    while (!stopped) {
      if (head === items.length) {
        await new Promise<void>((r) => idle.push(r));
        continue;
      }
      const key = items[head++]!;
      if (head > 4096 && head * 2 > items.length) {
        items = items.slice(head);
        head = 0;
      }
      waiting.delete(key);
      const pending = reconcile(key);
      if (pending) await pending;
    }
  };
  q.done = Promise.all(Array.from({ length: workers }, worker)).then(() => {});
  return q;
}

interface Result {
  /** Wall-clock time of the timed region. */
  ms: number;
  /** CPU time (user + system, all threads) of the timed region: less sensitive to neighbours. */
  cpuMs: number;
  processed: number;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/**
 * `live`: batches of adds while the workers drain. `backlog`: every add lands before the workers
 * start (a controller starting up on a full informer cache), the maximum dedupe.
 */
type Mode = 'live' | 'backlog';

type Kind = 'baseline' | 'kubeloom';

/** One cell of the result table: which queue, how many workers, which reconciler, which load. */
interface Cell {
  readonly kind: Kind;
  readonly workers: number;
  /** An async reconciler (awaited) instead of a synchronous one. */
  readonly async: boolean;
  readonly mode: Mode;
}

async function runOnce({ kind, workers, async, mode }: Cell, keys: string[]): Promise<Result> {
  const backlog = mode === 'backlog';
  let processed = 0;
  let endReached!: () => void;
  const end = new Promise<void>((r) => {
    endReached = r;
  });
  const reconcile: Reconcile = async
    ? async (k) => {
        if (k === 'END') endReached();
        else processed++;
      }
    : (k) => {
        if (k === 'END') endReached();
        else processed++;
      };
  globalThis.gc?.();
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  if (kind === 'kubeloom') {
    const ac = new AbortController();
    const q = createQueue<string>({ name: 'bench', workers, logger: noopLogger, reconciler: reconcile });
    if (backlog) await produce(q, keys, true);
    const run = q.run(ac.signal);
    if (!backlog) await produce(q, keys, false);
    q.add('END');
    await end;
    const ms = performance.now() - start;
    const cpuMs = cpuMsSince(cpuStart);
    ac.abort();
    await run;
    return { ms, cpuMs, processed };
  }
  const q = baselineQueue(workers, reconcile);
  await produce(q, keys, backlog);
  q.add('END');
  await end;
  const ms = performance.now() - start;
  const cpuMs = cpuMsSince(cpuStart);
  q.stop();
  await q.done;
  return { ms, cpuMs, processed };
}

/** Wall-clock time per processed key, in nanoseconds. */
function nsPerKey(r: Result): number {
  return (r.ms * 1e6) / r.processed;
}

/** CPU time per processed key, in nanoseconds. */
function cpuNsPerKey(r: Result): number {
  return (r.cpuMs * 1e6) / r.processed;
}

/** The median of `xs` (ROUNDS and RUNS_PER_PROCESS are odd). */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
}

/** `median (min–max)` of `xs`, each formatted by `fmt`. */
function spread(xs: readonly number[], fmt: (x: number) => string): string {
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
}

/** A ratio of medians, then the range of the per-round ratios. */
function ratioRange(ofMedians: number, perRound: readonly number[]): string {
  const ratio = (x: number) => `${x.toFixed(2)}×`;
  return `${ratio(ofMedians)} (${ratio(Math.min(...perRound))}–${ratio(Math.max(...perRound))})`;
}

/**
 * Child mode: one warm-up run, then {@link RUNS_PER_PROCESS} measured runs; writes the median CPU
 * and the median wall time of the measured runs as JSON on stdout. One timed region is a few
 * hundred milliseconds, so on a shared machine a single one is at the mercy of a neighbour's burst
 * or a badly placed major GC; the median of several in one process is not, and the fresh processes
 * still keep the two implementations' JIT states apart.
 */
async function child(cell: Cell): Promise<void> {
  const keys = keySequence();
  await runOnce(cell, keys);
  const runs: Result[] = [];
  for (let i = 0; i < RUNS_PER_PROCESS; i++) runs.push(await runOnce(cell, keys));
  const processed = runs[0]!.processed;
  if (runs.some((r) => r.processed !== processed)) throw new Error('runs processed different key counts');
  const result: Result = {
    ms: median(runs.map((r) => r.ms)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    processed,
  };
  process.stdout.write(JSON.stringify(result));
}

async function measure(cell: Cell): Promise<Result> {
  const { kind, workers, async, mode } = cell;
  // The smoke run only checks that the benchmark works: in-process, no isolation.
  if (smoke) return runOnce(cell, keySequence());
  const out = execFileSync(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      'child',
      kind,
      String(workers),
      async ? 'async' : 'sync',
      mode,
    ],
    { encoding: 'utf8', env: process.env, maxBuffer: 1 << 20 },
  );
  return JSON.parse(out) as Result;
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const rows: string[] = [];
  let worst = 0;
  let worstWall = 0;
  const configs: Array<[Mode, boolean, number]> = [];
  for (const mode of ['live', 'backlog'] as const) {
    for (const async of [false, true]) for (const workers of [1, 4]) configs.push([mode, async, workers]);
  }
  const kinds = ['baseline', 'kubeloom'] as const;
  const measurements: BenchMeasurement[] = [];
  for (const [mode, async, workers] of configs) {
    const res: Record<Kind, Result[]> = { baseline: [], kubeloom: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which variant goes first, so neither always runs on a machine the other warmed up.
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[(i + r) % kinds.length]!;
        res[kind].push(await measure({ kind, workers, async, mode }));
      }
    }
    const bWall = median(res.baseline.map(nsPerKey));
    const bCpu = median(res.baseline.map(cpuNsPerKey));
    const kWall = median(res.kubeloom.map(nsPerKey));
    const kCpu = median(res.kubeloom.map(cpuNsPerKey));
    worst = Math.max(worst, kCpu / bCpu);
    worstWall = Math.max(worstWall, kWall / bWall);
    // Per-round ratios (kubeloom over the baseline run of the same round) give the ratio's range.
    const cpuRatios = res.kubeloom.map((k, i) => cpuNsPerKey(k) / cpuNsPerKey(res.baseline[i]!));
    const wallRatios = res.kubeloom.map((k, i) => nsPerKey(k) / nsPerKey(res.baseline[i]!));
    const ns = (x: number) => x.toFixed(0);
    for (const kind of kinds) {
      const rs = res[kind];
      const own = kind === 'kubeloom';
      const cell = `${mode} ${async ? 'async' : 'sync'} ${workers} worker(s)`;
      measurements.push(
        { cell, variant: kind, metric: 'cpu-per-key', unit: 'ns', values: rs.map(cpuNsPerKey) },
        { cell, variant: kind, metric: 'wall-per-key', unit: 'ns', values: rs.map(nsPerKey) },
        {
          cell,
          variant: kind,
          metric: 'dedupe',
          unit: 'adds/processed',
          values: rs.map((r) => ADDS / r.processed),
        },
      );
      rows.push(
        `| ${mode} | ${async ? 'async' : 'sync'} | ${workers} | ${kind} | ` +
          `${spread(
            rs.map((r) => ADDS / r.processed),
            (x) => x.toFixed(2),
          )} | ` +
          `${spread(rs.map(cpuNsPerKey), ns)} | ${own ? ratioRange(kCpu / bCpu, cpuRatios) : '1.00×'} | ` +
          `${spread(rs.map(nsPerKey), ns)} | ${own ? ratioRange(kWall / bWall, wallRatios) : '1.00×'} |`,
      );
    }
  }
  console.log(
    `Queue throughput: ${ADDS.toLocaleString('en-US')} adds over ${KEYS.toLocaleString('en-US')} keys, ` +
      `batches of ${BATCH}, ${ROUNDS} fresh process(es) per variant and cell (variant order rotated), ` +
      `each the median of ${smoke ? 1 : RUNS_PER_PROCESS} measured run(s); median (min–max) over the processes, ` +
      `Node ${process.version}, ${cpus().length} cores, load average (1 min) ${loadBefore[0]!.toFixed(1)} ` +
      `before and ${loadavg()[0]!.toFixed(1)} after\n`,
  );
  console.log(
    '| adds | reconciler | workers | queue | dedupe (adds/processed) | CPU ns per key | CPU vs baseline | wall ns per key | wall vs baseline |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(
    `\nWorst ratio of medians: ${worst.toFixed(2)}× the baseline's CPU time per processed key (target ≤ ${TARGET}×); ` +
      `wall clock: ${worstWall.toFixed(2)}×.`,
  );
  reportBenchResults('controllers/queue', measurements);
  if (!smoke && worst > TARGET) process.exitCode = 1;
}

if (process.argv[2] === 'child') {
  await child({
    kind: process.argv[3] as Kind,
    workers: Number(process.argv[4]),
    async: process.argv[5] === 'async',
    mode: process.argv[6] as Mode,
  });
} else {
  await main();
}
