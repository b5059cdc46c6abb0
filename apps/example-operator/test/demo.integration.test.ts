/**
 * `pnpm demo` end to end, as a user runs it: on its own plane that runs workloads, and against
 * an existing cluster named by $KUBECONFIG.
 */

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startControlPlane } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const demo = fileURLToPath(new URL('../scripts/demo.ts', import.meta.url));

async function runDemo(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--conditions=@kubeloom/source', demo], {
    env,
    timeout: 300_000,
  });
  return stdout.trim().split('\n');
}

function expectShowcase(lines: string[]): void {
  const text = lines.join('\n');
  expect(text).toMatch(/two operator replicas started; leader: replica-[12]/);
  expect(text).toMatch(/^ {2}POLICY +POOL +EGRESS IPS +READY +GATEWAY PODS$/m);
  const row = (name: string) =>
    new RegExp(`^ {2}${name} +demo-pool +(\\S+) +True +\\d+$`, 'm').exec(text)?.[1];
  expect(row('web')).toMatch(/^192\.0\.2\.[2-5]$/);
  expect(row('api')).toMatch(/^192\.0\.2\.[2-5],192\.0\.2\.[2-5]$/);
  expect(row('batch')).toBe('192.0.2.6');
  const apiIPs = row('api')?.split(',') ?? [];
  expect(text).toContain('pool demo-pool: capacity 5, allocated 4, free 1');
  expect(text).toContain('deleted policy api: its addresses are back in the pool');
  expect(text).toContain('pool demo-pool: capacity 5, allocated 2, free 3');
  const handOver =
    /killed the leader \((replica-[12])\); waiting for the hand-over…\nnew leader: (replica-\d) after \d+\.\d s/.exec(
      text,
    );
  expect(handOver).not.toBeNull();
  expect(handOver?.[2]).not.toBe(handOver?.[1]); // the killed replica is never its own successor
  expect(apiIPs).toContain(row('late')); // the lowest address api gave back
  expect(text).toContain('demo complete');
}

// The demo waits for a real Lease hand-over (15 s lease + retry) after it kills the leader, on a
// plane that runs workloads: about two minutes on a loaded 2-core machine, so a generous bound.
const DEMO_TIMEOUT_MS = 360_000;

describe('pnpm demo', () => {
  it(
    'starts a plane that runs workloads, applies the deploy base, shows allocation, release and hand-over, then cleans up',
    async () => {
      const env = { ...process.env };
      delete env.KUBECONFIG;
      const lines = await runDemo(env);
      expect(lines.join('\n')).toMatch(/operator Deployment Available on the simulated nodes \(2\/2\)/);
      expectShowcase(lines);
      expect(lines.at(-1)).toBe('control plane stopped');
    },
    DEMO_TIMEOUT_MS,
  );

  it(
    'uses $KUBECONFIG when set, and leaves nothing behind there',
    async () => {
      await using plane = await startControlPlane({ workloads: { nodes: 2 } });
      const lines = await runDemo({ ...process.env, KUBECONFIG: plane.kubeconfigPath });
      expect(lines[0]).toBe(
        `using $KUBECONFIG (${plane.kubeconfigPath}): installing the CRDs, running the replicas on this machine`,
      );
      expectShowcase(lines);
      expect(lines.at(-1)).toBe('cleaned up');
    },
    DEMO_TIMEOUT_MS,
  );
});
