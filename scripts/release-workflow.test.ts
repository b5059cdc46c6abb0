/**
 * The release workflow (`.github/workflows/release.yml`) is the flow the release rehearsal runs
 * (`scripts/release-flow.ts`, issue 16 item 2): the same version and publish commands, the
 * permissions npm provenance and changesets/action need, the toolchain from
 * `scripts/toolchain.sh`. And it is a valid workflow: actionlint (built by `go run` from the Go
 * module proxy, as the control-plane binaries are; warm: about a second) finds nothing.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RELEASE_COMMANDS } from './release-flow.ts';

const root = path.resolve(import.meta.dirname, '..');
const file = path.join(root, '.github', 'workflows', 'release.yml');
/** actionlint's version: one the Go module proxy serves. */
const ACTIONLINT = 'github.com/rhysd/actionlint/cmd/actionlint@v1.7.12';

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Workflow {
  readonly on: { readonly push?: { readonly branches?: readonly string[] } };
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, { readonly permissions?: Record<string, string>; readonly steps: Step[] }>;
}

const workflow = parse(readFileSync(file, 'utf8')) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs.flatMap((j) => j.steps);
const changesets = steps.find((s) => s.uses?.startsWith('changesets/action@'));
const rootScripts = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

describe('the release workflow', () => {
  it('runs on pushes to the changesets base branch, one job, nothing granted at the top level', () => {
    const config = JSON.parse(readFileSync(path.join(root, '.changeset', 'config.json'), 'utf8')) as {
      baseBranch: string;
    };
    expect(workflow.on.push?.branches).toEqual([config.baseBranch]);
    expect(workflow.permissions).toEqual({});
    expect(jobs).toHaveLength(1);
  });

  it('grants exactly what changesets/action and npm provenance need', () => {
    expect(jobs[0]?.permissions).toEqual({
      contents: 'write',
      'pull-requests': 'write',
      'id-token': 'write',
    });
  });

  it('versions and publishes with the commands the rehearsal runs, with provenance', () => {
    expect(changesets).toBeDefined();
    expect(changesets?.with?.version).toBe(RELEASE_COMMANDS.version.join(' '));
    expect(changesets?.with?.publish).toBe(RELEASE_COMMANDS.publish.join(' '));
    // …and those are the root scripts that end in `changeset version` / `changeset publish`.
    expect(rootScripts['version-packages']).toMatch(/^changeset version\b/);
    expect(rootScripts.release).toMatch(/&& changeset publish$/);
    expect(changesets?.env).toMatchObject({
      GITHUB_TOKEN: '${{ secrets.GITHUB_TOKEN }}',
      NPM_CONFIG_PROVENANCE: 'true',
    });
  });

  it('provisions Node and pnpm through scripts/toolchain.sh before changesets/action runs', () => {
    const toolchain = steps.findIndex((s) => s.run?.includes('scripts/toolchain.sh'));
    expect(toolchain).toBeGreaterThanOrEqual(0);
    const script = steps[toolchain]?.run ?? '';
    for (const fn of ['kl_versions', 'kl_toolchain', 'kl_install']) expect(script).toContain(fn);
    expect(script).toContain('>> "$GITHUB_PATH"');
    expect(toolchain).toBeLessThan(steps.indexOf(changesets as Step));
    expect(steps[0]?.uses).toMatch(/^actions\/checkout@/);
    expect(steps[0]?.with?.['fetch-depth']).toBe(0); // changesets and tags need the history
  });

  it('passes actionlint', async () => {
    const go = await promisify(execFile)('go', ['version']).catch(() => undefined);
    if (!go) {
      throw new Error(
        'actionlint is built with Go (>= 1.24) from the Go module proxy: install Go (as for the control-plane binaries) and run again',
      );
    }
    const lint = await promisify(execFile)('go', ['run', ACTIONLINT, '-no-color', file], {
      cwd: root,
      timeout: 600_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + withoutDownloads(r.stderr) }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? 1,
        out: `${e.stdout ?? ''}${withoutDownloads(e.stderr ?? '')}`,
      }),
    );
    expect(lint).toEqual({ code: 0, out: '' });
  }, 600_000);
});

/** Go's own progress on a cold module cache (`go: downloading <module> <version>`), not actionlint's findings. */
function withoutDownloads(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^go: downloading \S+ \S+$/.test(line))
    .join('\n')
    .trim();
}
