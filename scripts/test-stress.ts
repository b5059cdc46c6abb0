/**
 * `pnpm test:stress`: runs the whole suite (`pnpm test`) several times in a row while busy
 * processes keep every core loaded, to find the tests that only pass on an idle machine.
 *
 *   pnpm test:stress                 # 5 runs, one busy process per core
 *   pnpm test:stress --runs 3 --load 4
 *   pnpm test:stress -- --project kube   # arguments after `--` go to Vitest
 *
 * Prints each run's `N passed, N failed` and the names of the tests that failed, then a summary
 * with, per failing test, in how many runs it failed. Exits non-zero if any run failed. The busy
 * processes are stopped on exit, also on Ctrl-C.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');
const report = path.join(root, '.vitest-results.json');

const dashdash = process.argv.indexOf('--');
const own = dashdash === -1 ? process.argv.slice(2) : process.argv.slice(2, dashdash);
const vitestArgs = dashdash === -1 ? [] : process.argv.slice(dashdash + 1);
const { values } = parseArgs({
  args: own,
  options: {
    runs: { type: 'string', default: '5' },
    load: { type: 'string', default: String(availableParallelism()) },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log('usage: pnpm test:stress [--runs N] [--load BUSY_PROCESSES] [-- VITEST_ARGS]');
  process.exit(0);
}
const runs = Number(values.runs);
const load = Number(values.load);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a positive integer, got ${values.runs}`);
if (!Number.isInteger(load) || load < 0) throw new Error(`--load must be an integer ≥ 0, got ${values.load}`);

// Each busy process spins for ever; it is killed when this script ends. The suite runs in its own
// process group, so a signal stops it with everything it started (control plane included, through
// its own cleanup); the loop below awaits, so signal handlers run at once.
const busy: ChildProcess[] = [];
let current: ChildProcess | undefined;
function stopBusy(): void {
  for (const child of busy.splice(0)) child.kill('SIGKILL');
}
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopBusy();
    if (current?.pid !== undefined && current.exitCode === null) {
      try {
        process.kill(-current.pid, signal);
      } catch {
        // already gone
      }
      current.once('exit', () => process.exit(130));
    } else process.exit(130);
  });
}
for (let i = 0; i < load; i++) {
  busy.push(spawn(process.execPath, ['-e', 'for (;;) Math.sqrt(Math.random());'], { stdio: 'ignore' }));
}
console.log(
  `test:stress: ${runs} runs of the whole suite with ${load} busy processes on ${availableParallelism()} cores`,
);

/** One `pnpm test`, its output kept (stdout whole, stderr's tail) for the summary. */
function runSuite(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'test.ts'), ...vitestArgs], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    current = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-10_000);
    });
    child.once('error', reject);
    child.once('close', (status) => {
      current = undefined;
      resolve({ status, stdout, stderr });
    });
  });
}

interface JsonReport {
  testResults: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{ status: string; fullName: string }>;
  }>;
}

const failures = new Map<string, number>();
const lines: string[] = [];
let failedRuns = 0;
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const result = await runSuite();
  const seconds = Math.round((Date.now() - started) / 1000);
  const summary =
    (result.stdout ?? '')
      .split('\n')
      .filter((l) => /^\d+ passed, \d+ failed$/.test(l))
      .pop() ?? 'no summary (the run did not complete)';
  const failed: string[] = [];
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
    for (const file of json.testResults) {
      const rel = path.relative(root, file.name);
      if (
        file.status === 'failed' &&
        file.message &&
        file.assertionResults.every((a) => a.status !== 'failed')
      )
        failed.push(`${rel}: ${file.message.split('\n')[0]}`);
      for (const a of file.assertionResults) if (a.status === 'failed') failed.push(`${rel} > ${a.fullName}`);
    }
  }
  if (result.status !== 0) {
    failedRuns++;
    if (failed.length === 0)
      failed.push(`exit ${result.status}: ${(result.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`);
  }
  for (const f of failed) failures.set(f, (failures.get(f) ?? 0) + 1);
  const line = `run ${run}/${runs}: ${summary} in ${seconds} s`;
  lines.push(line);
  console.log(line);
  for (const f of failed) console.log(`  failed: ${f}`);
}
stopBusy();

console.log(`\ntest:stress summary (${load} busy processes on ${availableParallelism()} cores)`);
for (const line of lines) console.log(`  ${line}`);
if (failures.size === 0) console.log(`no test failed in ${runs} runs`);
else {
  console.log(`${failures.size} tests failed in ${failedRuns} of ${runs} runs:`);
  for (const [name, n] of [...failures].sort((a, b) => b[1] - a[1])) console.log(`  ${n}× ${name}`);
}
process.exit(failedRuns === 0 ? 0 : 1);
