/**
 * The release rehearsal (issue 16.2–3), as `pnpm run release:rehearse` runs it: one Verdaccio on
 * 127.0.0.1 and one publish shared by every check below, then each package installed alone from it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestNamespace, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, startLocalRegistry } from './local-registry.ts';
import { checkRelease, FIRST_RELEASE_VERSION, isExactPin } from './release-checks.ts';
import { publishableLayers, type ReleaseFlowResult, runReleaseFlow } from './release-flow.ts';
import { formatSizeTable, readmeSizes } from './release-sizes.ts';
import { type InstallResult, installAndCheckAll } from './selective-install.ts';

const root = path.resolve(import.meta.dirname, '..');
const MINUTES = 60_000;

describe('release rehearsal on a local registry', () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'kubeloom-release-'));
  const stop = new AbortController();
  let registry: LocalRegistry | undefined;
  let flow: ReleaseFlowResult;
  let installs: InstallResult[];
  const log = (line: string): void => console.log(line);

  beforeAll(async () => {
    registry = await startLocalRegistry({ root, signal: stop.signal });
    flow = await runReleaseFlow({
      root,
      workDir,
      registry: registry.url,
      npmrc: registry.npmrc,
      signal: stop.signal,
      log,
    });
    const { kubeConfig, kubeconfigPath } = sharedControlPlane();
    const namespace = await createTestNamespace(kubeConfig, 'release-consumers');
    installs = await installAndCheckAll({
      root,
      registry: registry.url,
      workDir,
      packages: flow.packages,
      kubeconfig: kubeconfigPath,
      namespace,
      signal: stop.signal,
      log,
    });
    console.log(`${formatSizeTable(flow.packages, installs)}\nsteps (s): ${JSON.stringify(flow.timings)}`);
  }, 40 * MINUTES);

  afterAll(async () => {
    stop.abort();
    await registry?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('publishes every package of the stack, and only those, at the first version', () => {
    expect(flow.packages.map((p) => `${p.name}@${p.manifest.version}`)).toEqual(
      publishableLayers(root).map((l) => `${l.name}@${FIRST_RELEASE_VERSION}`),
    );
    expect(flow.tags).toEqual(
      expect.arrayContaining(flow.packages.map((p) => `${p.name}@${FIRST_RELEASE_VERSION}`)),
    );
  });

  it('publishes manifests as intended: ranges rewritten, changelogs, metadata, LICENSE, provenance-ready', () => {
    expect(checkRelease(flow, root)).toEqual([]);
  });

  it('rewrites workspace: and catalog: ranges to ranges users can dedupe', () => {
    const kube = flow.packages.find((p) => p.name === '@kubeloom/krt')?.manifest;
    expect(kube?.dependencies).toMatchObject({
      '@kubeloom/kube': `^${FIRST_RELEASE_VERSION}`,
      yaml: expect.stringMatching(/^\^2\./),
    });
    const all = flow.packages.flatMap((p) =>
      Object.entries({ ...p.manifest.dependencies, ...p.manifest.peerDependencies }),
    );
    expect(all.filter(([, range]) => isExactPin(range) || /^(workspace|catalog):/.test(range))).toEqual([]);
  });

  it('installs each package alone with plain npm install: its closure, types and a consumer on both Nodes', () => {
    expect(installs.map((r) => ({ name: r.name, problems: r.problems }))).toEqual(
      flow.packages.map((p) => ({ name: p.name, problems: [] })),
    );
    // The closure of the top of the stack is the stack below it.
    expect(installs.find((r) => r.name === '@kubeloom/krt')?.kubeloom).toEqual([
      '@kubeloom/controllers',
      '@kubeloom/kclient',
      '@kubeloom/krt',
      '@kubeloom/kube',
    ]);
    expect(installs.find((r) => r.name === '@kubeloom/codegen-runtime')?.kubeloom).toEqual([
      '@kubeloom/codegen-runtime',
    ]);
  });

  it("records each package's sizes in its README", () => {
    const missing = flow.packages.filter(
      (p) => !readmeSizes(readFileSync(path.join(root, p.dir, 'README.md'), 'utf8')),
    );
    expect(
      missing.map(
        (p) => `${p.dir}/README.md has no size table: run pnpm run release:rehearse --update-readmes`,
      ),
    ).toEqual([]);
  });
});
