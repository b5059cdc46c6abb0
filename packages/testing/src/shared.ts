import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { ServerVersion } from './control-plane.ts';

/** Environment variable through which the global setup hands the kubeconfig path to test workers. */
export const SHARED_KUBECONFIG_ENV = 'KUBELOOM_TEST_KUBECONFIG';
/** Environment variable carrying the shared plane's metadata (server, version), JSON. */
export const SHARED_INFO_ENV = 'KUBELOOM_TEST_CONTROL_PLANE';
/** Environment variable carrying why no shared plane could start, shown by every integration test. */
export const SHARED_ERROR_ENV = 'KUBELOOM_TEST_CONTROL_PLANE_ERROR';

/** The run-wide control plane as seen from a test file. */
export interface SharedControlPlane {
  /** Admin credentials (group `system:masters`). */
  readonly kubeConfig: KubeConfig;
  /** The kubeconfig file, for tools such as kubectl. */
  readonly kubeconfigPath: string;
  /** The apiserver URL. */
  readonly server: string;
  /** The apiserver's version. */
  readonly version: ServerVersion;
}

let cached: SharedControlPlane | undefined;

/**
 * The control plane shared by every test file of this run, started once by the global setup
 * (`@kubeloom/testing/vitest-setup`). Integration tests call this first; isolate by namespace.
 *
 * @throws when no control plane is available, with the reason and how to fix it (e.g. how to
 *   build the binaries). Integration tests therefore fail loudly instead of being skipped.
 */
export function sharedControlPlane(): SharedControlPlane {
  if (cached) return cached;
  const error = process.env[SHARED_ERROR_ENV];
  if (error) throw new Error(`no control plane for integration tests: ${error}`);
  const file = process.env[SHARED_KUBECONFIG_ENV];
  const info = process.env[SHARED_INFO_ENV];
  if (!file || !info) {
    throw new Error(
      `no control plane for integration tests: ${SHARED_KUBECONFIG_ENV} is not set. Run tests through ` +
        'the root vitest config (`pnpm test`), whose global setup starts one, or set it to a kubeconfig.',
    );
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(readFileSync(file, 'utf8'));
  const parsed = JSON.parse(info) as { server: string; version: ServerVersion };
  cached = { kubeConfig, kubeconfigPath: file, server: parsed.server, version: parsed.version };
  return cached;
}
