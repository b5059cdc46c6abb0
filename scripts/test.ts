/**
 * `pnpm test`: every test of every package, unit and integration, in one Vitest run that shares
 * one real control plane. Prints Vitest's own report, then a last line `N passed, N failed`
 * computed from Vitest's JSON report (so a run that executed nothing shows `0 passed`).
 * Extra arguments go to Vitest (e.g. `pnpm test --project kube`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const report = path.join(root, '.vitest-results.json');
const planeInfo = path.join(root, '.vitest-control-plane.json');
rmSync(report, { force: true });
rmSync(planeInfo, { force: true });
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, KUBELOOM_CONTROL_PLANE_INFO_FILE: planeInfo } },
);

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  testResults: Array<{
    status: string;
    message?: string;
    name: string;
    assertionResults: Array<{ status: string; fullName: string; failureMessages?: string[] }>;
  }>;
}

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
  passed = json.numPassedTests;
  // A file that failed to load counts as a failure even though none of its tests ran.
  const brokenFiles = json.testResults.filter((r) => r.status === 'failed' && r.message).length;
  failed = json.numFailedTests + brokenFiles;
  skipped = json.numPendingTests + json.numTodoTests;
  // Vitest's own report names a failure far above the last lines of a long run's output: name
  // each one again here, file, test and the first line of its error, so the tail of a CI log
  // (often all that is kept) says what failed.
  for (const file of json.testResults) {
    const relative = path.relative(root, file.name);
    if (file.status === 'failed' && file.message) {
      console.log(`FAILED ${relative}: ${firstLine(file.message)}`);
    }
    for (const a of file.assertionResults) {
      if (a.status === 'failed') {
        console.log(`FAILED ${relative} > ${a.fullName}: ${firstLine(a.failureMessages?.[0] ?? '')}`);
      }
    }
  }
  const integration = json.testResults
    .filter((r) => r.name.endsWith('.integration.test.ts'))
    .flatMap((r) => r.assertionResults)
    .filter((a) => a.status === 'passed').length;
  if (existsSync(planeInfo)) {
    const info = JSON.parse(readFileSync(planeInfo, 'utf8')) as {
      server: string;
      version: { gitVersion: string };
      startMs: number;
    };
    console.log(
      `${integration} tests of *.integration.test.ts files passed against the real kube-apiserver ${info.version.gitVersion} (etcd + kube-apiserver at ${info.server}, started in ${info.startMs} ms)`,
    );
  } else {
    console.log(`${integration} integration tests passed; no shared control plane was started`);
  }
} else {
  failed = 1;
  console.error('vitest wrote no JSON report: the run did not complete');
}
if (skipped > 0) console.error(`${skipped} tests were skipped or todo: kubeloom allows none`);
/** The first non-empty line of an error message, cut to 300 characters. */
function firstLine(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? '(no message)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

const ok = result.status === 0 && failed === 0 && skipped === 0 && passed > 0;
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
