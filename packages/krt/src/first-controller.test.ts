/**
 * The guide "Your first controller with kclient + controllers" on the fake cluster, in
 * milliseconds; `first-controller.integration.test.ts` runs the same scenario on a real control
 * plane. The guide's code is the regions of `test/first-controller.ts`.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { describe, it } from 'vitest';
import { teamInfoScenario } from '../test/first-controller.ts';

describe('guide: your first controller', () => {
  it('keeps a team-info ConfigMap per labelled namespace on the fake cluster', async () => {
    // #region fake
    // The in-memory fake cluster: the same KubeClient interface, milliseconds per test.
    const kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop' },
    });
    await teamInfoScenario(kube, 'shop');
    // #endregion fake
  });
});
