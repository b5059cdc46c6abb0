import type { KubeConfig } from '@kubernetes/client-node';
import { describeFailure, request } from './internal/request.ts';

/** The label every namespace from {@link createTestNamespace} carries. */
export const TEST_NAMESPACE_LABEL = 'kubeloom.dev/test';

/**
 * Creates a namespace with a unique generated name (`<prefix>-xxxxx`) for one test, and returns
 * the name. Never wait for namespace deletion on the lean plane: without a controller-manager it
 * never completes (the plane that runs workloads finishes it). The control plane is thrown away at
 * the end of the run instead.
 *
 * @example
 * {@includeCode ./control-plane.integration.test.ts#createTestNamespace}
 */
export async function createTestNamespace(
  kubeConfig: KubeConfig,
  prefix = 'test',
  labels: Record<string, string> = {},
): Promise<string> {
  const safe = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  const res = await request(kubeConfig, {
    method: 'POST',
    path: '/api/v1/namespaces',
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { generateName: `${safe || 'test'}-`, labels: { [TEST_NAMESPACE_LABEL]: 'true', ...labels } },
    },
  });
  if (res.status !== 201) throw new Error(`creating a test namespace failed: ${describeFailure(res)}`);
  return (res.json as { metadata: { name: string } }).metadata.name;
}
