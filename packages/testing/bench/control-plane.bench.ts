/**
 * Control-plane start time: the lean plane (etcd + kube-apiserver, what the suite shares) against
 * the plane that runs workloads (plus kube-controller-manager, kube-scheduler and kwok with two
 * simulated Nodes), warm binaries.
 *
 * Each start runs in a fresh Node process (this file with `--child <cell>`), which starts the
 * plane, reports the time until `startControlPlane` resolved (ready: for workloads, Nodes Ready
 * and controllers acting) and the CPU time its control-plane processes used up to then (from
 * /proc, Linux), then stops it. Cells alternate (lean, workloads, workloads, lean, ...) so a
 * neighbour's burst of load does not fall on one cell only. Reports median and range of wall
 * time and of CPU time per cell. Target: workloads ≤ 8 s on 2 cores; lean unchanged (~3 s).
 *
 * `KUBELOOM_BENCH_SMOKE=1`: one start per cell.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reportBenchResults } from '../src/bench-results.ts';
import { startControlPlane } from '../src/control-plane.ts';

type Cell = 'lean' | 'workloads';
const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const ROUNDS = smoke ? 1 : 5;

/** User + system CPU of a process, in ms (Linux /proc; clock ticks are 100 Hz there). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function child(cell: Cell): Promise<void> {
  const start = performance.now();
  const plane = await startControlPlane(cell === 'workloads' ? { workloads: { nodes: 2 } } : {});
  const wallMs = performance.now() - start;
  const pids = Object.values(plane.processes).flatMap((p) => (p ? [p.pid] : []));
  const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  await plane.stop();
  process.stdout.write(`${JSON.stringify({ wallMs, cpuMs: cpu })}\n`);
}

function run(cell: Cell): { wallMs: number; cpuMs: number } {
  const out = execFileSync(
    process.execPath,
    ['--conditions=@kubeloom/source', fileURLToPath(import.meta.url), '--child', cell],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string) as { wallMs: number; cpuMs: number };
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return `${s(median)} s (${s(sorted[0] as number)}–${s(sorted.at(-1) as number)})`;
}

async function main(): Promise<void> {
  const index = process.argv.indexOf('--child');
  if (index !== -1) {
    await child(process.argv[index + 1] as Cell);
    return;
  }
  const results: Record<Cell, Array<{ wallMs: number; cpuMs: number }>> = { lean: [], workloads: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order: Cell[] = round % 2 === 0 ? ['lean', 'workloads'] : ['workloads', 'lean'];
    for (const cell of order) results[cell].push(run(cell));
  }
  console.log(`| plane | starts | wall to ready, median (range) | CPU of its processes, median (range) |`);
  console.log('| --- | --- | --- | --- |');
  for (const cell of ['lean', 'workloads'] as const) {
    const r = results[cell];
    console.log(
      `| ${cell} | ${r.length} | ${summary(r.map((x) => x.wallMs))} | ${summary(r.map((x) => x.cpuMs))} |`,
    );
  }
  reportBenchResults(
    'testing/control-plane',
    (['lean', 'workloads'] as const).flatMap((cell) => [
      {
        cell: 'start',
        variant: cell,
        metric: 'wall',
        unit: 'ms',
        values: results[cell].map((x) => x.wallMs),
      },
      { cell: 'start', variant: cell, metric: 'cpu', unit: 'ms', values: results[cell].map((x) => x.cpuMs) },
    ]),
  );
}

await main();
