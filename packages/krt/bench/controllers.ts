/**
 * The data and the controllers of the `BenchmarkControllers` port (controllers.bench.ts): Istio's
 * pods and services, the floor, the hand-written controller (Istio's scan, and indexed) and krt.
 * Every controller detaches completely when its signal aborts, so one process can attach and
 * detach it between update rounds.
 */
import { createQueue, extract, objectHandler } from '@kubeloom/controllers';
import { createClient } from '@kubeloom/kclient';
import {
  builtins,
  type HandlerRegistration,
  type KubeClient,
  noopLogger,
  type ObjectKey,
} from '@kubeloom/kube';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { collection, deepEqual, filter, informer, namespaceIndex, selectsNonEmpty } from '../src/index.ts';

class Workload {
  readonly name: string;
  readonly namespace: string;
  readonly serviceNames: string[];
  readonly ip: string;
  constructor({ name, namespace, serviceNames, ip }: Omit<Workload, 'resourceName'>) {
    this.name = name;
    this.namespace = namespace;
    this.serviceNames = serviceNames;
    this.ip = ip;
  }
  resourceName(): string {
    return `${this.namespace}/${this.name}`;
  }
}

/** Supplies the selector without reflection, as Istio's ServiceWrapper does. */
class ServiceWrapper {
  readonly svc: V1Service;
  constructor(svc: V1Service) {
    this.svc = svc;
  }
  getLabelSelector(): Record<string, string> | undefined {
    return this.svc.spec?.selector;
  }
}

let ipCounter = 10;
/** Istio's sequential IP allocator, from 10.0.0.10. */
export function nextIp(): string {
  const n = ipCounter++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** Pod `pod-<i>` in `ns-<i%2>` labelled `app: app-<i%apps>`, running, with the next IP. */
export function makePod(i: number, apps: number): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}`, labels: { app: `app-${i % apps}` } },
    spec: { serviceAccountName: 'fake-sa', containers: [] },
    status: { phase: 'Running', podIP: nextIp() },
  };
}

/** Service `pod-<i>` (sic, as in Istio) in `ns-<i%2>` selecting `app: app-<i%apps>`. */
export function makeService(i: number, apps: number): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}` },
    spec: { selector: { app: `app-${i % apps}` } },
  };
}

/** Called once per workload event (the floor: once per pod event). */
export type Emit = () => void;

/** Removes `reg` when `signal` aborts. */
function removeOnAbort(reg: HandlerRegistration, signal: AbortSignal): void {
  signal.addEventListener('abort', () => reg.remove(), { once: true });
}

/**
 * Istio's `NewModern`. The services carry Istio's ServiceWrapper augmentation (as Istio's krt
 * variant does; KRT_BENCH_AUGMENT=0 reads the Service directly, the idiomatic TypeScript port).
 */
function buildKrt(kube: KubeClient, emit: Emit, signal: AbortSignal): void {
  const pods = informer(kube, builtins.Pod, { signal, name: 'pods' });
  const services = informer(kube, builtins.Service, {
    signal,
    name: 'services',
    augment: process.env.KRT_BENCH_AUGMENT === '0' ? undefined : (o) => new ServiceWrapper(o as V1Service),
  });
  const byNamespace = namespaceIndex(services);
  const workloads = collection(
    pods,
    (ctx, pod) => {
      const ip = pod.status?.podIP;
      if (!ip) return undefined;
      const svcs = byNamespace.fetch(
        ctx,
        pod.metadata!.namespace!,
        filter.selectsNonEmpty(pod.metadata!.labels),
      );
      return new Workload({
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        serviceNames: svcs.map((s) => s.metadata!.name!),
        ip,
      });
    },
    { signal, name: 'workloads' },
  );
  workloads.register(() => emit());
}

let instances = 0;

/**
 * The hand-written controller as a Go engineer would write it with kclient: a queue of pod keys,
 * each reconcile recomputing one workload from the caches. `scan` is Istio's `NewLegacy` exactly
 * (list every service of the pod's namespace and test each selector); otherwise the services
 * carry a kclient index by `namespace/key=value` of each selector pair, the reconcile looks up
 * the pod's label pairs and tests those candidates only (the same kind of index krt builds
 * automatically). A service change enqueues the pods it selected before and after.
 */
function buildLegacy(
  kube: KubeClient,
  emit: Emit,
  { signal, scan }: { signal: AbortSignal; scan: boolean },
): void {
  const pods = createClient(kube, builtins.Pod);
  const services = createClient(kube, builtins.Service);
  // A fresh index per instance (kclient's indexes live as long as the shared informer, shared by
  // name): attaching a new controller builds its index, as a controller starting up does.
  const bySelectorPair = scan
    ? undefined
    : services.index(`legacy-selector-pairs-${instances++}`, (svc) => {
        const ns = svc.metadata?.namespace ?? '';
        return Object.entries(svc.spec?.selector ?? {}).map(([k, v]) => `${ns}/${k}=${v}`);
      });
  const state = new Map<string, Workload>();
  const queue = createQueue<ObjectKey>({
    name: 'pods',
    logger: noopLogger,
    reconciler: (key) => {
      const k = `${key.namespace}/${key.name}`;
      const pod = pods.get(key.name, key.namespace);
      const ip = pod?.status?.podIP;
      if (pod === undefined || !ip) {
        if (state.delete(k)) emit();
        return;
      }
      const labels = pod.metadata?.labels;
      const names: string[] = [];
      if (bySelectorPair === undefined) {
        for (const svc of services.list(key.namespace)) {
          if (selectsNonEmpty(svc.spec?.selector, labels)) names.push(svc.metadata!.name!);
        }
      } else {
        let seen: Set<V1Service> | undefined;
        let first = true;
        for (const lk in labels) {
          const found = bySelectorPair.lookup(`${key.namespace}/${lk}=${labels[lk]}`);
          if (found.length === 0) continue;
          if (!first) seen ??= new Set();
          first = false;
          for (const svc of found) {
            if (seen !== undefined) {
              if (seen.has(svc)) continue;
              seen.add(svc);
            }
            if (selectsNonEmpty(svc.spec?.selector, labels)) names.push(svc.metadata!.name!);
          }
        }
      }
      const w = new Workload({ name: key.name, namespace: key.namespace!, serviceNames: names, ip });
      const old = state.get(k);
      if (old !== undefined && deepEqual(old, w)) return;
      state.set(k, w);
      emit();
    },
  });
  removeOnAbort(pods.addEventHandler(objectHandler((o) => queue.addObject(o))), signal);
  const enqueueSelected = (svc: V1Service | undefined): void => {
    const sel = svc?.spec?.selector;
    if (!sel || Object.keys(sel).length === 0) return;
    for (const pod of pods.list(svc!.metadata!.namespace, { matchLabels: sel })) queue.addObject(pod);
  };
  removeOnAbort(
    services.addEventHandler({
      onAdd: (svc) => enqueueSelected(svc),
      onUpdate: (old, svc) => {
        enqueueSelected(old);
        enqueueSelected(svc);
      },
      onDelete: (svc) => enqueueSelected(extract<V1Service>(svc)),
    }),
    signal,
  );
  void queue.run(signal);
}

/** The floor: the same informers and one event per pod change, no controller. */
function buildFloor(kube: KubeClient, emit: Emit, signal: AbortSignal): void {
  const pods = createClient(kube, builtins.Pod);
  removeOnAbort(createClient(kube, builtins.Service).addEventHandler({}), signal);
  removeOnAbort(pods.addEventHandler({ onAdd: () => emit(), onUpdate: () => emit() }), signal);
}

/** Every variant, in the order each run measures them. */
export const VARIANTS = ['floor', 'legacy-scan', 'legacy', 'krt'] as const;

/** The table label of each variant. */
export const LABELS: Record<string, string> = {
  floor: 'floor (informers only)',
  'legacy-scan': "hand-written, Istio's scan",
  legacy: 'hand-written, indexed (baseline)',
  krt: 'krt',
};

/** Builds one variant on `kube`; it detaches when `signal` aborts. */
export const builders: Record<string, (kube: KubeClient, emit: Emit, signal: AbortSignal) => void> = {
  floor: buildFloor,
  legacy: (kube, emit, signal) => buildLegacy(kube, emit, { signal, scan: false }),
  'legacy-scan': (kube, emit, signal) => buildLegacy(kube, emit, { signal, scan: true }),
  krt: buildKrt,
};
