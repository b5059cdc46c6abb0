/**
 * The reference controller (`test/reference-controller.ts`, the README's example) on the real
 * control plane. `example.test.ts` runs the same scenario on the fake cluster.
 */
import { createKubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, sharedControlPlane } from '@kubeloom/testing';
import { describe, it } from 'vitest';
import { mirrorScenario } from '../test/reference-controller.ts';

describe('reference controller', () => {
  it('mirrors ConfigMaps on the real control plane', async () => {
    const { kubeConfig } = sharedControlPlane();
    const namespace = await createTestNamespace(kubeConfig, 'example');
    await mirrorScenario(createKubeClient({ kubeConfig, logger: noopLogger }), namespace);
  });
});
