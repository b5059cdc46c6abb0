import { type KubeClient, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient, type FakeKubeClient } from '@kubeloom/kube/fake';

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
    await kube[Symbol.asyncDispose](); // resolves once every informer stopped
    if (!allStopped(kube)) throw new Error('an informer still runs after the KubeClient was disposed');
  }
}

/** True when every started informer of `kube` stopped. */
function allStopped(kube: KubeClient): boolean {
  return kube.informers().every((i) => i.health().state === 'stopped' || !i.isStarted());
}
