import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kubeloomAssetsDirectory } from './binaries.ts';
import { main, RECIPE_DIRECTORY } from './cli.ts';
import { ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION } from './versions.ts';

const bin = path.join(import.meta.dirname, '..', 'bin', 'kubeloom-testing.js');

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { XDG_CACHE_HOME: '/cache' },
  });
  return { code, stdout, stderr };
}

describe('kubeloom-testing command line', () => {
  it('prints the usage for help, naming the versions and the cache directory', async () => {
    for (const arg of ['help', '--help', '-h']) {
      const r = await run([arg]);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toContain('Usage: kubeloom-testing <command>');
      expect(r.stdout).toContain(`v${KUBERNETES_VERSION}`);
      expect(r.stdout).toContain(`v${ETCD_VERSION}`);
      expect(r.stdout).toContain(kubeloomAssetsDirectory({ XDG_CACHE_HOME: '/cache' }));
    }
  });

  it('rejects a missing command, an unknown command and extra arguments with exit code 2 and the usage', async () => {
    const cases: Array<[string[], string]> = [
      [[], 'kubeloom-testing: no command given.'],
      [['build'], 'kubeloom-testing: unknown command "build".'],
      [
        ['assets', '--force'],
        'kubeloom-testing: "assets" does not know "--force"; it builds etcd, kube-apiserver, kubectl, kube-controller-manager, kube-scheduler, kwok (--lean: etcd, kube-apiserver, kubectl).',
      ],
      [['assets', '--lean', 'kwok'], 'kubeloom-testing: "assets --lean" takes no other arguments.'],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr.startsWith(`${message}\n\nUsage: kubeloom-testing <command>`)).toBe(true);
    }
  });
});

describe('kubeloom-testing assets (the bin, run as a program)', () => {
  let cache: string;
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'kubeloom-cli-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  // A PATH without Go: any attempt to build fails, so a success proves nothing was rebuilt.
  const pathWithoutGo = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => {
      try {
        accessSync(path.join(dir, 'go'), constants.X_OK);
        return false;
      } catch {
        return true;
      }
    })
    .join(path.delimiter);

  function runBin(...args: string[]) {
    return spawnSync(process.execPath, [bin, ...args], {
      encoding: 'utf8',
      env: { ...process.env, PATH: pathWithoutGo, XDG_CACHE_HOME: cache },
    });
  }

  it('reports binaries already in the cache without rebuilding, the directory as the last line', () => {
    const dir = kubeloomAssetsDirectory({ XDG_CACHE_HOME: cache });
    mkdirSync(dir, { recursive: true });
    const fake = (name: string, version: string) =>
      writeFileSync(path.join(dir, name), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
    fake('etcd', `etcd Version: ${ETCD_VERSION}`);
    fake('kube-apiserver', `Kubernetes v${KUBERNETES_VERSION}`);
    fake('kubectl', `Client Version: v${KUBERNETES_VERSION}`);

    const lean = runBin('assets', '--lean');
    expect({ status: lean.status, stdout: lean.stdout }).toEqual({ status: 0, stdout: `${dir}\n` });
    expect(lean.stderr).toContain(`etcd ${ETCD_VERSION}: cached`);
    expect(lean.stderr).toContain(`kube-apiserver v${KUBERNETES_VERSION}: cached`);
    expect(lean.stderr).toContain(`kubectl v${KUBERNETES_VERSION}: cached`);
    expect(lean.stderr).not.toContain('building');
    expect(lean.stderr).not.toContain('kwok');

    fake('kube-controller-manager', `Kubernetes v${KUBERNETES_VERSION}`);
    fake('kube-scheduler', `Kubernetes v${KUBERNETES_VERSION}`);
    fake('kwok', `kwok version v${KWOK_VERSION}`);
    const all = runBin('assets');
    expect({ status: all.status, stdout: all.stdout }).toEqual({ status: 0, stdout: `${dir}\n` });
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      expect(all.stderr).toContain(`${name} v${KUBERNETES_VERSION}: cached`);
    }
    expect(all.stderr).toContain(`kwok v${KWOK_VERSION}: cached`);
    expect(all.stderr).not.toContain('building');
  });

  it('builds only what is asked for: the lean plane needs no workloads binaries', () => {
    const dir = kubeloomAssetsDirectory({ XDG_CACHE_HOME: cache });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'etcd'), `#!/bin/sh\necho 'etcd Version: ${ETCD_VERSION}'\n`, {
      mode: 0o755,
    });
    // Asking for etcd alone succeeds without Go; asking for kwok (absent) needs a build.
    expect(runBin('assets', 'etcd').status).toBe(0);
    const r = runBin('assets', 'kwok');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("error: 'go' is not on PATH");
  });

  it('says what is missing and what to do when it must build but Go is not installed', () => {
    const r = runBin('assets');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("error: 'go' is not on PATH");
    expect(r.stderr).toContain('Install Go 1.26 or newer');
    expect(r.stderr).toContain('KUBEBUILDER_ASSETS');
    expect(r.stderr).toContain(
      'kubeloom-testing: building the control-plane binaries failed (exit 1); see the messages above.',
    );
  });

  it('exits 2 with the usage for a wrong command line', () => {
    const r = runBin('asset');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "asset"');
  });
});

describe('the shipped recipe', () => {
  it('builds the versions the package looks for', () => {
    const script = readFileSync(path.join(RECIPE_DIRECTORY, 'build.sh'), 'utf8');
    expect(script).toContain(`K8S_VERSION="${KUBERNETES_VERSION}"`);
    expect(script).toContain(`ETCD_VERSION="${ETCD_VERSION}"`);
    expect(script).toContain(`KWOK_VERSION="${KWOK_VERSION}"`);
    expect(readFileSync(path.join(RECIPE_DIRECTORY, 'kwok', 'go.mod'), 'utf8')).toMatch(
      new RegExp(`sigs\\.k8s\\.io/kwok v${KWOK_VERSION.replaceAll('.', '\\.')}\\b`),
    );
    expect(readFileSync(path.join(RECIPE_DIRECTORY, 'kube', 'go.mod'), 'utf8')).toMatch(
      new RegExp(`k8s\\.io/kubernetes v${KUBERNETES_VERSION.replaceAll('.', '\\.')}\\b`),
    );
    expect(readFileSync(path.join(RECIPE_DIRECTORY, 'etcd', 'go.mod'), 'utf8')).toMatch(
      new RegExp(`go\\.etcd\\.io/etcd/server/v3 v${ETCD_VERSION.replaceAll('.', '\\.')}\\b`),
    );
  });
});
