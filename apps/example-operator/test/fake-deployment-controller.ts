/**
 * A stand-in for kube-controller-manager's Deployment controller on the fake cluster: every
 * Deployment's status reports all its replicas available at its current generation, or none while
 * it is marked unavailable. Unit tests only; the real plane runs the real controllers.
 */

import { builtins, type KubeClient } from '@kubeloom/kube';
import type { V1Deployment } from '@kubernetes/client-node';

/** Controls of the simulated Deployment controller. */
export interface DeploymentSimulator {
  /** Keeps the Deployment at 0 available replicas (`false`) or makes all available (`true`). */
  setAvailable(name: string, available: boolean): void;
}

/** Starts the simulator on `kube`'s informers (start them with `kube.runAndWait`); stops with `signal`. */
export function simulateDeployments(kube: KubeClient, signal: AbortSignal): DeploymentSimulator {
  const informer = kube.informer<V1Deployment>(builtins.Deployment);
  const unavailable = new Set<string>();
  const sync = (d: V1Deployment) => {
    if (signal.aborted) return;
    const replicas = unavailable.has(d.metadata?.name ?? '') ? 0 : (d.spec?.replicas ?? 1);
    const generation = d.metadata?.generation ?? 1;
    const s = d.status;
    if (
      s?.observedGeneration === generation &&
      s.availableReplicas === replicas &&
      s.readyReplicas === replicas
    )
      return;
    const status = {
      observedGeneration: generation,
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      updatedReplicas: replicas,
    };
    // A conflict means a newer version exists, which brings its own event.
    kube.api
      .update(builtins.Deployment, { ...d, status }, { subresource: 'status', signal })
      .catch(() => undefined);
  };
  informer.addEventHandler({ onAdd: sync, onUpdate: (_old, d) => sync(d) });
  return {
    setAvailable(name, available) {
      if (available) unavailable.delete(name);
      else unavailable.add(name);
      for (const d of informer.store.list()) if (d.metadata?.name === name) sync(d);
    },
  };
}
