/**
 * The guide "From hand-written indexes to krt" (docs/guides/from-indexes-to-krt.md) includes its
 * code from the regions of this file: one derived view — for each Service, the names of the
 * scheduled Pods it selects — written twice, by hand with kclient + controllers and with krt.
 * `src/from-indexes.test.ts` runs both against the same cluster and checks they agree after
 * every change.
 */
import { createQueue, objectHandler } from '@kubeloom/controllers';
import { createClient } from '@kubeloom/kclient';
import { collection, filter, informer, namespaceIndex } from '@kubeloom/krt';
import { builtins, type KubeClient, noopLogger, type ObjectKey } from '@kubeloom/kube';
import type { V1Pod, V1Service } from '@kubernetes/client-node';

/** What both versions compute: the scheduled pods a service selects, by `namespace/name`. */
export type ServicePods = ReadonlyMap<string, readonly string[]>;

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

// #region by-hand
/** By hand: two clients, an index, a queue, and the handlers that map every change to services. */
export function servicePodsByHand(kube: KubeClient) {
  const pods = createClient(kube, builtins.Pod);
  const services = createClient(kube, builtins.Service);
  const podsByNamespace = pods.index('namespace', (p) => [p.metadata?.namespace ?? '']);
  const result = new Map<string, readonly string[]>();

  const queue = createQueue<ObjectKey>({
    name: 'service-pods',
    logger: noopLogger,
    reconciler: ({ name, namespace = '' }) => {
      const svc = services.get(name, namespace);
      const key = `${namespace}/${name}`;
      if (!svc || Object.keys(svc.spec?.selector ?? {}).length === 0) return void result.delete(key);
      const selected = podsByNamespace
        .lookup(namespace)
        .filter((p) => p.spec?.nodeName && selects(svc.spec?.selector, p.metadata?.labels))
        .map((p) => p.metadata?.name ?? '')
        .sort();
      result.set(key, selected);
    },
  });
  // The part that is easy to get wrong: which services does a pod change affect? Those that
  // selected the old labels and those that select the new ones.
  const enqueueSelecting = (pod: V1Pod) => {
    for (const svc of services.list(pod.metadata?.namespace)) {
      if (selects(svc.spec?.selector, pod.metadata?.labels)) queue.addObject(svc);
    }
  };
  services.addEventHandler(objectHandler((svc) => queue.addObject(svc)));
  pods.addEventHandler({
    onAdd: enqueueSelecting,
    onUpdate: (old, pod) => {
      enqueueSelecting(old);
      enqueueSelecting(pod);
    },
    onDelete: (pod) => enqueueSelecting(pod as V1Pod),
  });
  return {
    result: (): ServicePods => result,
    async run(signal: AbortSignal): Promise<void> {
      if (!(await pods.waitUntilSynced(signal)) || !(await services.waitUntilSynced(signal))) return;
      await queue.run(signal);
    },
    hasSynced: () => queue.hasSynced(),
  };
}
// #endregion by-hand

// #region with-krt
/** The same view with krt: one pure transformation; what it fetched is what it depends on. */
export function servicePodsWithKrt(kube: KubeClient, signal: AbortSignal) {
  const pods = informer(kube, builtins.Pod, { signal, name: 'pods' });
  const services = informer(kube, builtins.Service, { signal, name: 'services' });
  const podsByNamespace = namespaceIndex(pods);

  const servicePods = collection(
    services,
    (ctx, svc: V1Service) => {
      const selector = svc.spec?.selector;
      if (!selector || Object.keys(selector).length === 0) return undefined; // selects nothing: no output
      const selected = podsByNamespace
        .fetch(ctx, svc.metadata?.namespace ?? '', filter.labels(selector)) // a recorded dependency
        .filter((p) => p.spec?.nodeName)
        .map((p) => p.metadata?.name ?? '')
        .sort();
      return {
        metadata: { name: svc.metadata?.name ?? '', namespace: svc.metadata?.namespace ?? '' },
        selected,
      };
    },
    { signal, name: 'service-pods' },
  );
  return servicePods; // a Collection: get, list, register, waitUntilSynced
}
// #endregion with-krt
