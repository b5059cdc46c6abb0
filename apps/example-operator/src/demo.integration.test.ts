import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sharedControlPlane } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const demo = path.join(import.meta.dirname, 'demo.ts');

async function runDemo(env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, ['--conditions=@kubeloom/source', demo], {
    env,
    timeout: 90_000,
  });
  return stdout;
}

describe('pnpm demo', () => {
  it('uses $KUBECONFIG when set: creates a namespace and ConfigMaps, watches and lists them', async () => {
    const { kubeconfigPath, version } = sharedControlPlane();
    const out = await runDemo({ ...process.env, KUBECONFIG: kubeconfigPath });
    expect(out).toContain(`using $KUBECONFIG (${kubeconfigPath})`);
    expect(out).toContain(`server ${version.gitVersion}`);
    expect(out).toMatch(/informer: update green → \{"color":"lime"\}/);
    expect(out).toMatch(/listed 3 ConfigMaps in kubeloom-demo-/);
    expect(out).toContain('informer health: synced=true objects=3 lists=1 errors=0');
  });

  it('starts and stops its own control plane when $KUBECONFIG is unset', async () => {
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const out = await runDemo(env);
    expect(out).toMatch(/control plane v1\.\d+\.\d+ at https:\/\/127\.0\.0\.1:\d+ ready/);
    expect(out).toMatch(/listed 3 ConfigMaps/);
    expect(out.trim().split('\n').pop()).toBe('control plane stopped');
  });
});
