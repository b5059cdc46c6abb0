/**
 * `pnpm bench`: runs every benchmark (`packages/*\/bench/*.bench.ts`, `apps/*\/bench/*.bench.ts`)
 * in its own Node process with the `@kubeloom/source` condition and `--expose-gc`. Each
 * benchmark compares kubeloom with a baseline in the same run and prints a table with ratios.
 *
 * `pnpm bench --smoke` (or KUBELOOM_BENCH_SMOKE=1) runs tiny sizes, just to keep them working.
 * `pnpm bench kube` runs only benchmarks whose path contains `kube`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke') || process.env.KUBELOOM_BENCH_SMOKE === '1';
const filters = args.filter((a) => !a.startsWith('--'));

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

if (import.meta.main) {
  const benches = findBenchmarks().filter((b) => filters.length === 0 || filters.some((f) => b.includes(f)));
  let failed = 0;
  for (const file of benches) {
    console.log(`\n## ${path.relative(root, file)}${smoke ? ' (smoke)' : ''}\n`);
    const res = spawnSync(
      process.execPath,
      ['--conditions=@kubeloom/source', '--expose-gc', '--max-old-space-size=8192', file],
      {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, ...(smoke ? { KUBELOOM_BENCH_SMOKE: '1' } : {}) },
      },
    );
    if (res.status !== 0) {
      failed++;
      console.error(`benchmark ${file} failed (exit ${res.status})`);
    }
  }
  console.log(`\n${benches.length - failed} benchmarks ran, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}
