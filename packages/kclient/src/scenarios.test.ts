import type { KubeClient } from '@kubeloom/kube';
import { noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { afterEach, describe, it } from 'vitest';
import {
  delayedClientPresentScenario,
  delayedClientScenario,
  dynamicFilterScenario,
  slowHandlerScenario,
} from './scenarios.test-util.ts';
import { until } from './test-support.test-util.ts';

const running: Array<{ kube: KubeClient; stop: AbortController }> = [];
function fake(): { kube: KubeClient; stop: AbortController } {
  const kube = createFakeKubeClient({ logger: noopLogger });
  const stop = new AbortController();
  running.push({ kube, stop });
  return { kube, stop };
}
afterEach(async () => {
  for (const { kube, stop } of running.splice(0)) {
    stop.abort();
    kube.shutdown();
    await until('every informer to stop', () =>
      kube.informers().every((i) => i.health().state === 'stopped' || !i.isStarted()),
    );
  }
});

describe('scenarios on the fake cluster', () => {
  it('delayed client: before the CRD, install, handlers and index, delete and reinstall', async () => {
    const { kube, stop } = fake();
    await delayedClientScenario(kube, stop.signal);
  });

  it('delayed client on a CRD that is already served', async () => {
    const { kube, stop } = fake();
    await delayedClientPresentScenario(kube, stop.signal);
  });

  it('dynamic namespace-selector filter: relabel in and out, selector change', async () => {
    const { kube, stop } = fake();
    await dynamicFilterScenario(kube, stop.signal);
  });

  it('hasSynced waits for slow and late handlers', async () => {
    const { kube, stop } = fake();
    await slowHandlerScenario(kube, stop.signal);
  });
});
