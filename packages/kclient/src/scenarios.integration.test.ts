import { afterEach, describe, it } from 'vitest';
import { type RealHarness, realKube } from '../test/real-harness.ts';
import {
  delayedClientPresentScenario,
  delayedClientScenario,
  dynamicFilterScenario,
  slowHandlerScenario,
} from '../test/scenarios.ts';

const harnesses: RealHarness[] = [];
function harness(): RealHarness {
  const h = realKube();
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('scenarios on the real API server', () => {
  it('delayed client: before the CRD, install, handlers and index, delete and reinstall', async () => {
    const { kube, stop } = harness();
    await delayedClientScenario(kube, stop.signal);
  }, 180_000);

  it('delayed client on a CRD that is already served', async () => {
    const { kube, stop } = harness();
    await delayedClientPresentScenario(kube, stop.signal);
  });

  it('dynamic namespace-selector filter: relabel in and out, selector change', async () => {
    const { kube, stop } = harness();
    await dynamicFilterScenario(kube, stop.signal);
  });

  it('hasSynced waits for slow and late handlers', async () => {
    const { kube, stop } = harness();
    await slowHandlerScenario(kube, stop.signal);
  });
});
