import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packWorkspacePackages, sharedControlPlane } from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

describe('packed @kubeloom/kube outside the workspace', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-install-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs from its tarball with npm and works under plain Node', async () => {
    const [tarballPath] = await packWorkspacePackages({
      root,
      packages: ['packages/kube'],
      destination: dir,
    });
    const tarball = path.basename(tarballPath ?? '');
    expect(tarball).toMatch(/^kubeloom-kube-.*\.tgz$/);
    const app = path.join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', path.join(dir, tarball)], {
      cwd: app,
      stdio: 'inherit',
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
    // Nothing from the workspace is reachable from here: only the installed tarball and its deps.
    writeFileSync(
      path.join(app, 'main.mjs'),
      `import { createKubeClient, builtins, objectKey, isNotFound } from '@kubeloom/kube';
const kube = createKubeClient({ kubeconfigPath: process.argv[2] });
const version = await kube.serverVersion();
const list = await kube.api.list(builtins.Namespace);
let missing = false;
try { await kube.api.get({ resource: builtins.ConfigMap, name: 'does-not-exist', namespace: 'default' }); } catch (e) { missing = isNotFound(e); }
kube.shutdown();
console.log(JSON.stringify({ version: version.gitVersion, hasDefault: list.items.some((n) => objectKey(n) === 'default'), missing }));
`,
    );
    const { kubeconfigPath, version } = sharedControlPlane();
    const out = execFileSync(process.execPath, ['main.mjs', kubeconfigPath], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toEqual({ version: version.gitVersion, hasDefault: true, missing: true });
  });
});
