/**
 * The reference controller (`test/reference-controller.ts`, the README's example) on the fake
 * cluster, in milliseconds. `example.integration.test.ts` runs the same scenario on a real
 * control plane.
 */
import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { describe, it } from 'vitest';
import { mirrorScenario } from '../test/reference-controller.ts';

describe('reference controller', () => {
  it('mirrors ConfigMaps on the fake cluster', async () => {
    await mirrorScenario(createFakeKubeClient({ logger: noopLogger }), 'example');
  });
});
