import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ETCD_VERSION,
  KUBERNETES_VERSION,
  KWOK_VERSION,
  kubeloomAssetsDirectory,
  packWorkspacePackages,
} from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

// The `@kubeloom/kube` tarball against the real control plane: packaging.integration.test.ts.
describe('packed @kubeloom/testing outside the workspace', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-pack-testing-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the binaries recipe and the kubeloom-testing bin, which runs from an installed copy', async () => {
    const [tarballPath] = await packWorkspacePackages({
      root,
      packages: ['packages/testing'],
      destination: dir,
    });
    const tarball = path.basename(tarballPath ?? '');
    expect(tarball).toMatch(/^kubeloom-testing-.*\.tgz$/);
    const files = execFileSync('tar', ['-tzf', path.join(dir, tarball)], { encoding: 'utf8' }).split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/bin/kubeloom-testing.js',
        'package/dist/cli.js',
        'package/control-plane/build.sh',
        'package/control-plane/kube/go.mod',
        'package/control-plane/kube/go.sum',
        'package/control-plane/etcd/go.mod',
        'package/control-plane/etcd/go.sum',
        'package/control-plane/kwok/go.mod',
        'package/control-plane/kwok/go.sum',
      ]),
    );
    expect(files.filter((f) => f.startsWith('package/test/') || f.endsWith('.test.ts'))).toEqual([]);

    // Installed as npm would lay it out; the bin must run the compiled CLI and find the recipe.
    const installed = path.join(dir, 'app', 'node_modules', '@kubeloom', 'testing');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', installed, '--strip-components=1']);
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ 'kubeloom-testing': './bin/kubeloom-testing.js' });

    // Binaries already in the cache are reported, not rebuilt: Go is kept off PATH to prove it.
    const cache = path.join(dir, 'cache');
    const assets = kubeloomAssetsDirectory({ XDG_CACHE_HOME: cache });
    mkdirSync(assets, { recursive: true });
    for (const [name, version] of [
      ['etcd', `etcd Version: ${ETCD_VERSION}`],
      ['kube-apiserver', `Kubernetes v${KUBERNETES_VERSION}`],
      ['kubectl', `Client Version: v${KUBERNETES_VERSION}`],
      ['kube-controller-manager', `Kubernetes v${KUBERNETES_VERSION}`],
      ['kube-scheduler', `Kubernetes v${KUBERNETES_VERSION}`],
      ['kwok', `kwok version v${KWOK_VERSION}`],
    ] as const) {
      writeFileSync(path.join(assets, name), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
    }
    const run = spawnSync(process.execPath, [path.join(installed, 'bin', 'kubeloom-testing.js'), 'assets'], {
      cwd: path.join(dir, 'app'),
      encoding: 'utf8',
      env: { ...process.env, PATH: pathWithoutGo(), XDG_CACHE_HOME: cache },
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: `${assets}\n`,
      stderr: expect.stringContaining(`kube-apiserver v${KUBERNETES_VERSION}: cached`),
    });
  });
});

function pathWithoutGo(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => {
      try {
        accessSync(path.join(entry, 'go'), constants.X_OK);
        return false;
      } catch {
        return true;
      }
    })
    .join(path.delimiter);
}
