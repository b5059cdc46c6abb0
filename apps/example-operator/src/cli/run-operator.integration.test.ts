/**
 * The program's contract on a real apiserver: probes, metrics, clean exit on SIGTERM, and clear
 * errors (nothing started) for a bad command line or kubeconfig.
 */

import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestNamespace, installCRDs, sharedControlPlane, waitFor } from '@kubeloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperatorProcess } from '../../scripts/replica.ts';
import { operatorCrds } from '../../test/scenarios.ts';

let dir: string;
beforeAll(async () => {
  await installCRDs(sharedControlPlane().kubeConfig, operatorCrds() as never);
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-operator-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function get(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`);
  return { status: res.status, body: await res.text() };
}

describe('kubeloom-egress-operator', () => {
  it('serves probes and metrics, and exits 0 on SIGTERM', async () => {
    const { kubeConfig, kubeconfigPath } = sharedControlPlane();
    // Policies of its own namespace only: the plane is shared, and an operator of every namespace
    // would add its finalizer to other files' policies while they run (pools are cluster-scoped:
    // it writes their status whatever the flag, see validation.integration.test.ts).
    const namespace = await createTestNamespace(kubeConfig, 'operator-program');
    await using p = startOperatorProcess({
      name: 'program',
      env: {},
      args: [`--kubeconfig=${kubeconfigPath}`, `--namespace=${namespace}`, '--metrics-secure=false'],
    });
    const probes = await p.port('serving health probes');
    const metrics = await p.port('serving metrics');
    expect((await get(probes, '/healthz')).status).toBe(200);
    await waitFor('ready', async () => (await get(probes, '/readyz')).status === 200);
    const scraped = await get(metrics, '/metrics');
    expect(scraped.status).toBe(200);
    for (const name of [
      'rest_client_requests_total{code="200",method="GET"',
      '# TYPE controller_runtime_reconcile_total counter',
      'process_cpu_seconds_total',
    ])
      expect(scraped.body).toContain(name);
    // The value is not asserted: the control plane is shared with other test files, so pools they
    // left behind may still be queued when this scrape runs (workers start after /readyz is 200).
    expect(scraped.body).toMatch(/^workqueue_depth\{name="ipampool",controller="ipampool"\} \d+$/m);
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(p.logs.some((r) => r.msg === 'stopped')).toBe(true);
  });

  it('refuses a bad flag with a one-line error and exit code 2', async () => {
    await using p = startOperatorProcess({ name: 'bad-flag', env: {}, args: ['--concurrency=zero'] });
    expect((await p.exited).code).toBe(2);
    expect(p.logs.map((r) => r.msg)).toContain(
      'kubeloom-egress-operator: --concurrency=zero: expected an integer from 1 to 64',
    );
  });

  it('refuses a malformed kubeconfig, naming the file, with exit code 1', async () => {
    const file = path.join(dir, 'broken.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: [\n');
    await using p = startOperatorProcess({ name: 'bad-kubeconfig', env: {}, args: [`--kubeconfig=${file}`] });
    expect((await p.exited).code).toBe(1);
    const record = p.logs.find((r) => r.msg === 'cannot load a Kubernetes configuration');
    expect(JSON.stringify(record)).toContain(file);
  });
});
