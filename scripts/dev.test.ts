/**
 * `./dev`, the README's two-command start, on a planted checkout: the real `dev` and
 * `scripts/toolchain.sh` copied into a directory whose path has spaces, with a cache holding a Node
 * (this one) and a pnpm that records how it was called. Every case controls PATH, so the errors for
 * a machine without npm, without Go or on another platform are checked without such a machine.
 * What only a real download proves (npm fetching Node and pnpm, `pnpm install`, building the
 * binaries) runs in `.ci/run`, which goes through the same scripts/toolchain.sh from a clean clone.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '..');
const nodeVersion = readFileSync(path.join(repo, '.node-version'), 'utf8').trim();
const pnpmVersion = '9.9.9-planted';
const nodePackage = `node-linux-${process.arch}`;
const recipe = readFileSync(path.join(repo, 'packages/testing/control-plane/build.sh'), 'utf8');
const pinned = (name: string): string => recipe.match(new RegExp(`^${name}="(.*)"$`, 'm'))?.[1] ?? '';
const assetsName = `${pinned('K8S_VERSION')}-etcd${pinned('ETCD_VERSION')}-linux-${process.arch === 'x64' ? 'amd64' : 'arm64'}`;
const binaries = ['etcd', 'kube-apiserver', 'kubectl', 'kube-controller-manager', 'kube-scheduler', 'kwok'];

/** The tools `dev` and toolchain.sh use; each case gets a PATH of just these (plus its fakes). */
const tools = [
  'bash',
  'sh',
  'cat',
  'chmod',
  'cksum',
  'date',
  'dirname',
  'find',
  'fold',
  'grep',
  'head',
  'ln',
  'mkdir',
  'mv',
  'readlink',
  'rm',
  'sed',
  'sort',
  'tail',
  'tr',
  'uname',
];

/** A pnpm that appends `{ argv, cwd, path, assets }` to $FAKE_PNPM_LOG and acts out install and assets. */
const fakePnpm = `
const fs = require('node:fs');
const path = require('node:path');
const argv = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_PNPM_LOG, JSON.stringify({
  argv, cwd: process.cwd(), path: process.env.PATH.split(':')[0], assets: process.env.KUBEBUILDER_ASSETS,
}) + '\\n');
if (argv[0] === 'install') {
  fs.mkdirSync('node_modules', { recursive: true });
  fs.writeFileSync('node_modules/.modules.yaml', 'planted\\n');
}
if (argv.join(' ') === 'run --silent control-plane:assets') {
  const dir = path.join(process.env.XDG_CACHE_HOME, 'kubeloom', 'kubebuilder-assets', ${JSON.stringify(assetsName)});
  fs.mkdirSync(dir, { recursive: true });
  for (const b of ${JSON.stringify(binaries)}) fs.writeFileSync(path.join(dir, b), '#!/bin/sh\\n', { mode: 0o755 });
  console.log('[control-plane-assets] built');
  console.log(dir);
}
`;

interface PnpmCall {
  argv: string[];
  cwd: string;
  path: string;
  assets?: string;
}

describe('./dev', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'kubeloom dev-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'a checkout');
  const cache = path.join(base, 'the cache');
  const bin = path.join(base, 'bin');
  const pnpmLog = path.join(base, 'pnpm.log');
  const toolchainBin = path.join(cache, 'kubeloom', 'toolchain', 'bin');

  mkdirSync(path.join(root, 'scripts'), { recursive: true });
  mkdirSync(path.join(root, 'packages/testing/control-plane'), { recursive: true });
  copyFileSync(path.join(repo, 'dev'), path.join(root, 'dev'));
  chmodSync(path.join(root, 'dev'), 0o755);
  copyFileSync(path.join(repo, 'scripts/toolchain.sh'), path.join(root, 'scripts/toolchain.sh'));
  copyFileSync(
    path.join(repo, 'packages/testing/control-plane/build.sh'),
    path.join(root, 'packages/testing/control-plane/build.sh'),
  );
  writeFileSync(path.join(root, '.node-version'), `${nodeVersion}\n`);
  writeFileSync(path.join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
  writeFileSync(
    path.join(root, 'package.json'),
    `${JSON.stringify(
      {
        name: 'planted',
        private: true,
        packageManager: `pnpm@${pnpmVersion}`,
        engines: { node: '>=22.19.0' },
        scripts: { test: 'x', demo: 'x', lint: 'x', 'check:api': 'x' },
      },
      null,
      2,
    )}\n`,
  );

  /** A cache holding Node (a link to this process's) and the recording pnpm, as kl_toolchain leaves it. */
  function plantToolchain(): void {
    const nodeDir = path.join(
      cache,
      'kubeloom',
      'toolchain',
      `node-${nodeVersion}`,
      'node_modules',
      nodePackage,
      'bin',
    );
    mkdirSync(nodeDir, { recursive: true });
    symlinkSync(process.execPath, path.join(nodeDir, 'node'));
    const pnpmDir = path.join(
      cache,
      'kubeloom',
      'toolchain',
      `pnpm-${pnpmVersion}`,
      'node_modules',
      'pnpm',
      'bin',
    );
    mkdirSync(pnpmDir, { recursive: true });
    writeFileSync(path.join(pnpmDir, 'pnpm.cjs'), fakePnpm);
  }

  /** A PATH directory with the tools and the given fakes (name → shell script body). */
  function plantBin(fakes: Record<string, string> = {}): void {
    rmSync(bin, { recursive: true, force: true });
    mkdirSync(bin);
    for (const tool of tools) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      if (found === '') throw new Error(`the test needs ${tool} on PATH`);
      if (!(tool in fakes)) symlinkSync(found, path.join(bin, tool));
    }
    for (const [name, body] of Object.entries(fakes)) {
      writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
  }

  function dev(args: readonly string[], env: Record<string, string> = {}) {
    const result = spawnSync(path.join(root, 'dev'), args, {
      cwd: base, // not the checkout: ./dev works from anywhere
      encoding: 'utf8',
      env: { HOME: base, PATH: bin, XDG_CACHE_HOME: cache, FAKE_PNPM_LOG: pnpmLog, ...env },
    });
    const calls: PnpmCall[] = existsSync(pnpmLog)
      ? readFileSync(pnpmLog, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as PnpmCall)
      : [];
    rmSync(pnpmLog, { force: true });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
  }

  beforeEach(() => {
    rmSync(cache, { recursive: true, force: true });
    rmSync(path.join(root, 'node_modules'), { recursive: true, force: true });
    plantBin({ go: 'exit 0' });
  });

  it('prints its usage with the package.json scripts, and refuses what is not one before provisioning anything', () => {
    const help = dev(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: \.\/dev <script>/);
    expect(help.stdout).toMatch(/test demo lint check:api/);

    const none = dev([]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/dev: error: no script given\.\n {2}Try \.\/dev test or \.\/dev demo\./);

    const unknown = dev(['tset']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('dev: error: package.json has no script "tset".');
    expect(unknown.stderr).toContain('./dev pnpm <args>');

    const option = dev(['--lint']);
    expect(option.status).toBe(1);
    expect(option.stderr).toContain('dev: error: unknown option --lint.');
    expect(existsSync(cache)).toBe(false);
  });

  it('installs once, then runs the script with the toolchain first on PATH, arguments intact, from any directory', () => {
    plantToolchain();
    const first = dev(['lint', '--max', 'a b', '']);
    expect(first.stderr).toContain('dev: pnpm install --frozen-lockfile');
    expect(first.status).toBe(0);
    expect(first.calls.map((c) => c.argv)).toEqual([
      ['install', '--frozen-lockfile', '--reporter=append-only'],
      ['run', 'lint', '--max', 'a b', ''],
    ]);
    expect(first.calls.every((c) => c.cwd === root && c.path === toolchainBin)).toBe(true);
    expect(first.calls[1]?.assets).toBeUndefined(); // lint needs no control plane

    const warm = dev(['check:api', '--update']);
    expect(warm.status).toBe(0);
    expect(warm.stderr).toContain('dev: node_modules matches pnpm-lock.yaml');
    expect(warm.calls.map((c) => c.argv)).toEqual([['run', 'check:api', '--update']]);

    writeFileSync(path.join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n# changed\n");
    const changed = dev(['lint']);
    expect(changed.calls.map((c) => c.argv[0])).toEqual(['install', 'run']);

    const raw = dev(['pnpm', 'exec', 'vitest', 'run', 'a file.ts']);
    expect(raw.calls.map((c) => c.argv)).toEqual([['exec', 'vitest', 'run', 'a file.ts']]);
  });

  it('builds the control-plane binaries for test once, then finds them; lint and a demo on $KUBECONFIG need none', () => {
    plantToolchain();
    const assets = path.join(cache, 'kubeloom', 'kubebuilder-assets', assetsName);
    const cold = dev(['test', '--project', 'kube']);
    expect(cold.status).toBe(0);
    expect(cold.stderr).toContain('dev: building the control-plane binaries missing from');
    expect(cold.calls.map((c) => c.argv)).toEqual([
      ['install', '--frozen-lockfile', '--reporter=append-only'],
      ['run', '--silent', 'control-plane:assets'],
      ['run', 'test', '--project', 'kube'],
    ]);
    expect(cold.calls[2]?.assets).toBe(assets);

    const warm = dev(['demo']);
    expect(warm.calls.map((c) => c.argv)).toEqual([['run', 'demo']]);
    expect(warm.calls[0]?.assets).toBe(assets);

    const mine = dev(['test'], { KUBEBUILDER_ASSETS: path.join(base, 'my binaries') });
    expect(mine.stderr).toContain('KUBEBUILDER_ASSETS is set');
    expect(mine.calls).toEqual([
      expect.objectContaining({ argv: ['run', 'test'], assets: path.join(base, 'my binaries') }),
    ]);

    rmSync(path.join(assets, 'kwok'));
    const remote = dev(['demo'], { KUBECONFIG: path.join(base, 'kubeconfig') });
    expect(remote.stderr).toContain('KUBECONFIG is set: the demo uses that cluster');
    expect(remote.calls.map((c) => c.argv)).toEqual([['run', 'demo']]);
  });

  it('says to install Go when binaries must be built and go is not on PATH', () => {
    plantToolchain();
    plantBin();
    const result = dev(['test']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /dev: error: the control-plane binaries are missing from .* \(etcd kube-apiserver/,
    );
    expect(result.stderr).toContain('needs Go >= 1.26, which is not on PATH');
    expect(result.stderr).toContain('https://go.dev/dl');
    expect(result.calls.map((c) => c.argv[0])).toEqual(['install']); // never `run test`
  });

  it('says to install Node with npm when there is no npm and nothing cached', () => {
    const result = dev(['test']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `dev: error: npm is not on PATH, and ${nodePackage}@${nodeVersion} is not in`,
    );
    expect(result.stderr).toContain('corepack enable && pnpm install');
  });

  it('names the registry and what to do when the download fails, and leaves no partial toolchain', () => {
    plantBin({
      npm: `[ "$1" = config ] && { echo http://127.0.0.1:9/; exit 0; }
echo "npm error code ECONNREFUSED" >&2; exit 1`,
    });
    const result = dev(['lint']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm: npm error code ECONNREFUSED');
    expect(result.stderr).toContain(
      `dev: error: could not download ${nodePackage}@${nodeVersion} from http://127.0.0.1:9/`,
    );
    expect(result.stderr).toContain('npm_config_registry=');
    expect(readdirSync(path.join(cache, 'kubeloom', 'toolchain'))).toEqual(['bin']);
  });

  it('refuses an unsupported platform with the plain corepack path instead', () => {
    plantBin({ go: 'exit 0', uname: '[ "$1" = -s ] && echo Darwin || echo arm64' });
    const result = dev(['test']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('dev: error: unsupported platform Darwin arm64');
    expect(result.stderr).toContain('install Node >= 22.19.0 yourself');
  });
});
