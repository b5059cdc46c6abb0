import { type KubeClient, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, type FakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';

/** A fake KubeClient with a stop signal; `closeAll` stops every one and checks informers stopped. */
export interface FakeHarness {
  readonly kube: FakeKubeClient;
  readonly stop: AbortController;
}

const running: FakeHarness[] = [];

/** Creates a fake KubeClient, remembered for {@link closeFakes}. */
export function fakeKube(options: Parameters<typeof createFakeKubeClient>[0] = {}): FakeHarness {
  const kube = createFakeKubeClient({ logger: noopLogger, ...options });
  const h = { kube, stop: new AbortController() };
  running.push(h);
  return h;
}

/** Stops every fake created so far and waits until all their informers stopped. */
export async function closeFakes(): Promise<void> {
  for (const { kube, stop } of running.splice(0)) {
    stop.abort();
    kube.shutdown();
    await waitFor('every informer to stop', () => allStopped(kube));
  }
}

/** True when every started informer of `kube` stopped. */
export function allStopped(kube: KubeClient): boolean {
  return kube.informers().every((i) => i.health().state === 'stopped' || !i.isStarted());
}
