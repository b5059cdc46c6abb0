import { setTimeout as sleep } from 'node:timers/promises';
import { createKubeClient, type InformerTuning, type KubeClient, noopLogger } from '@kubeloom/kube';
import { sharedControlPlane } from '@kubeloom/testing';

/** Polls `cond` until true; fails after `timeoutMs`. */
export async function until(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

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
      await until('every informer to stop', () =>
        kube.informers().every((i) => i.health().state === 'stopped' || !i.isStarted()),
      );
    },
  };
}

/** A unique suffix for cluster-scoped names (CRD groups) shared by the whole run. */
export function uniqueSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}
