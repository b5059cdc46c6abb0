/**
 * `pnpm run release:rehearse`: rehearses a release on a real registry (issue 16.2–3). Starts
 * Verdaccio on 127.0.0.1 (storage in a temp dir; `@kubeloom/*` only from this publish, everything
 * else proxied to the npm registry), runs `changeset version`, install, build and `changeset publish`
 * on a throwaway copy of the repository, checks the published packages (see release-checks.ts), then
 * installs each package alone with plain `npm install` in an empty folder and checks its dependency
 * closure, types (nodenext and bundler) and a consumer script on Node 22.19 and 24 (see
 * selective-install.ts); the consumers of testing, kube, controllers, kclient and krt do one real
 * thing against a real control plane started here (`startControlPlane`).
 *
 * Flags: `--skip-installs`, `--update-readmes` (rewrites the size table in
 * each package README), `--keep` (leaves the temp dir). Ctrl-C stops Verdaccio and removes the temp dirs.
 * `scripts/release.integration.test.ts` runs the same with the test run's control plane.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTestNamespace, startControlPlane } from '@kubeloom/testing';
import { startLocalRegistry } from './local-registry.ts';
import { checkRelease } from './release-checks.ts';
import { runReleaseFlow } from './release-flow.ts';
import { formatSizeTable, updateReadmeSizes } from './release-sizes.ts';
import { installAndCheckAll } from './selective-install.ts';

const root = path.resolve(import.meta.dirname, '..');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'skip-installs': { type: 'boolean', default: false },
      'update-readmes': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = performance.now();
  const workDir = mkdtempSync(path.join(tmpdir(), 'kubeloom-release-'));
  const log = (line: string): void =>
    console.log(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${line}`);
  try {
    await using registry = await startLocalRegistry({ root, signal: stop.signal });
    log(`Verdaccio at ${registry.url}`);
    const flow = await runReleaseFlow({
      root,
      workDir,
      registry: registry.url,
      npmrc: registry.npmrc,
      signal: stop.signal,
      log,
    });
    const problems = checkRelease(flow, root);
    for (const p of problems) console.error(`release: ${p}`);
    log(
      `published ${flow.packages.map((p) => `${p.name}@${p.manifest.version}`).join(', ')}; ${problems.length} problems`,
    );
    if (values['skip-installs']) return problems.length === 0 ? 0 : 1;
    await using plane = await startControlPlane({ signal: stop.signal });
    const installs = await installAndCheckAll({
      root,
      registry: registry.url,
      workDir,
      packages: flow.packages,
      kubeconfig: plane.kubeconfigPath,
      namespace: await createTestNamespace(plane.kubeConfig, 'release-consumers'),
      signal: stop.signal,
      log,
    });
    const installProblems = installs.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`));
    for (const p of installProblems) console.error(`install: ${p}`);
    console.log(formatSizeTable(flow.packages, installs));
    if (values['update-readmes']) updateReadmeSizes(root, flow.packages, installs);
    log(`steps (s): ${JSON.stringify(flow.timings)}`);
    log(`${problems.length + installProblems.length} problems`);
    return problems.length + installProblems.length === 0 ? 0 : 1;
  } finally {
    if (values.keep) console.log(`kept ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

process.exitCode = await main();
