import { createKubeClient, type InformerTuning, type KubeClient, noopLogger } from '@kubeloom/kube';
import { sharedControlPlane, waitFor } from '@kubeloom/testing';

/** A KubeClient on the shared control plane, with a stop signal, torn down by `close`. */
export interface RealHarness {
  readonly kube: KubeClient;
  readonly stop: AbortController;
  /** Stops everything and checks that every informer stopped. */
  close(): Promise<void>;
}

/** Creates a {@link RealHarness}. */
export function realKube(tuning: InformerTuning = { initialBackoffMs: 50, maxBackoffMs: 500 }): RealHarness {
  const { kubeConfig } = sharedControlPlane();
  const kube = createKubeClient({ kubeConfig, logger: noopLogger, tuning });
  const stop = new AbortController();
  return {
    kube,
    stop,
    close: async () => {
      stop.abort();
      kube.shutdown();
      await waitFor('every informer to stop', () =>
        kube.informers().every((i) => i.health().state === 'stopped' || !i.isStarted()),
      );
    },
  };
}
