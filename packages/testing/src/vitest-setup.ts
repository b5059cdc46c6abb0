import { writeFileSync } from 'node:fs';
import { lookupBinary } from './binaries.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';
import { SHARED_ERROR_ENV, SHARED_INFO_ENV, SHARED_KUBECONFIG_ENV } from './shared.ts';

/**
 * Vitest global setup that starts one real control plane for the whole test run and stops it at
 * the end. Reference it from `vitest.config.ts` as `globalSetup: ['@kubeloom/testing/vitest-setup']`
 * (or its path), then call `sharedControlPlane()` in test files.
 *
 * - With `KUBELOOM_TEST_KUBECONFIG` already set, that cluster is used and nothing is started.
 * - When the binaries are missing and `CI=true`, the run fails at once.
 * - When they are missing otherwise, unit tests still run and every integration test fails with
 *   a message that says how to get the binaries. Nothing is skipped silently.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env[SHARED_KUBECONFIG_ENV] && process.env[SHARED_INFO_ENV]) return async () => {};
  const missing = (['etcd', 'kube-apiserver'] as const)
    .map((b) => {
      try {
        return lookupBinary(b).path ? undefined : b;
      } catch (err) {
        return (err as Error).message;
      }
    })
    .filter((m): m is string => m !== undefined);
  if (missing.length > 0) {
    // Re-run the throwing lookup for the full, actionable message.
    const { findBinary } = await import('./binaries.ts');
    let message = `missing control-plane binaries: ${missing.join(', ')}`;
    try {
      findBinary('kube-apiserver');
      findBinary('etcd');
    } catch (err) {
      message = (err as Error).message;
    }
    if (process.env.CI === 'true' || process.env.CI === '1') {
      throw new Error(`CI=true and the control plane cannot start. ${message}`);
    }
    process.env[SHARED_ERROR_ENV] = message;
    console.warn(`[kubeloom] integration tests will fail: ${message}`);
    return async () => {};
  }
  const started = Date.now();
  let plane: ControlPlane;
  try {
    plane = await startControlPlane();
  } catch (err) {
    if (process.env.CI === 'true' || process.env.CI === '1') throw err;
    process.env[SHARED_ERROR_ENV] = (err as Error).message;
    console.warn(`[kubeloom] integration tests will fail: ${(err as Error).message}`);
    return async () => {};
  }
  process.env[SHARED_KUBECONFIG_ENV] = plane.kubeconfigPath;
  process.env[SHARED_INFO_ENV] = JSON.stringify({ server: plane.server, version: plane.version });
  // For the test runner's summary (scripts/test.ts): which control plane this run used.
  const infoFile = process.env.KUBELOOM_CONTROL_PLANE_INFO_FILE;
  if (infoFile) {
    writeFileSync(
      infoFile,
      JSON.stringify({ server: plane.server, version: plane.version, startMs: Date.now() - started }),
    );
  }
  console.log(
    `[kubeloom] control plane ${plane.version.gitVersion} at ${plane.server} ready in ${Date.now() - started} ms ` +
      `(etcd pid ${plane.processes.etcd.pid}, kube-apiserver pid ${plane.processes.apiServer.pid})`,
  );
  return async () => {
    await plane.stop();
  };
}
