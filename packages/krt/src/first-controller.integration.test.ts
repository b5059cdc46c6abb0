/**
 * The guide "Your first controller with kclient + controllers" on the real control plane;
 * `first-controller.test.ts` runs the same scenario on the fake cluster.
 */
import { createKubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, sharedControlPlane } from '@kubeloom/testing';
import { describe, it } from 'vitest';
import { teamInfoScenario } from '../test/first-controller.ts';

describe('guide: your first controller', () => {
  it('keeps a team-info ConfigMap per labelled namespace on a real apiserver', async () => {
    // #region real
    // The run's shared kube-apiserver (started once by the global setup); a namespace of our own.
    const { kubeConfig } = sharedControlPlane();
    const namespace = await createTestNamespace(kubeConfig, 'team-info');
    await teamInfoScenario(createKubeClient({ kubeConfig, logger: noopLogger }), namespace);
    // #endregion real
  });
});
