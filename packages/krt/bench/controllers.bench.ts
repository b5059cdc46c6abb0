/**
 * The port of Istio's `BenchmarkControllers` (pkg/kube/krt/bench_test.go) on the fake cluster:
 * Pods → Workloads (each pod joined with the services selecting it in its namespace), krt
 * against a hand-written queue-based controller computing the same workloads.
 *
 * Data as in Istio: 1,000 pods `pod-<i>` in `ns-<i%2>` labelled `app: app-<i%25>`, 50 services
 * `pod-<i>` in `ns-<i%2>` selecting `app: app-<i%25>` (every pod is selected by exactly one
 * service); and the same at 10× (10,000 pods, 500 services, 250 app labels so that the
 * topology stays one service per pod).
 *
 * Variants: the floor (the informers and one event per pod change, no controller); the
 * hand-written controller exactly as Istio's `NewLegacy` (scanning every service of the pod's
 * namespace); the same controller with a kclient index of the services by selector pair (the
 * baseline for the ratios: the kind of index krt now builds automatically, which a Go engineer
 * would add at this scale); and krt.
 *
 * Timed region as in Istio: start the informers, initial sync, the initial workload events, then
 * `ITERS` rounds of updating every pod's IP through the API and waiting for one event per pod.
 * Each measurement runs in a fresh process and records wall time and process CPU time (user +
 * system, GC threads included: the machine may be shared, and CPU time does not count the time
 * the process waits for a core). Retained heap is measured after a forced GC with the controller
 * still alive, relative to the heap before the fake client was created (so it includes the fake
 * cluster's storage and the informer caches, which every variant shares).
 *
 * KUBELOOM_BENCH_SMOKE=1 runs tiny sizes (< 20 s); KRT_BENCH_RUNS sets the processes per cell (default 5).
 */
import { execFileSync } from 'node:child_process';
import { createQueue, extract, objectHandler } from '@kubeloom/controllers';
import { createClient } from '@kubeloom/kclient';
import { builtins, type KubeClient, noopLogger, type ObjectKey } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { type BenchMeasurement, reportBenchResults } from '@kubeloom/testing';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { collection, deepEqual, filter, informer, namespaceIndex, selectsNonEmpty } from '../src/index.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';

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
function nextIp(): string {
  const n = ipCounter++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

function makePod(i: number, apps: number): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}`, labels: { app: `app-${i % apps}` } },
    spec: { serviceAccountName: 'fake-sa', containers: [] },
    status: { phase: 'Running', podIP: nextIp() },
  };
}

function makeService(i: number, apps: number): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}` },
    spec: { selector: { app: `app-${i % apps}` } },
  };
}

type Emit = () => void;

function buildKrt(kube: KubeClient, emit: Emit, signal: AbortSignal): void {
  const pods = informer(kube, builtins.Pod, { signal, name: 'pods' });
  // Istio wraps Services (ServiceWrapper) only to avoid Go reflection on spec.selector; krt reads
  // a Service's spec.selector directly, so the idiomatic port needs no augmentation (set
  // KRT_BENCH_AUGMENT=1 to measure the wrapper anyway: one allocation per candidate per fetch).
  const services = informer(kube, builtins.Service, {
    signal,
    name: 'services',
    augment: process.env.KRT_BENCH_AUGMENT === '1' ? (o) => new ServiceWrapper(o as V1Service) : undefined,
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
  const bySelectorPair = scan
    ? undefined
    : services.index('legacy-selector-pairs', (svc) => {
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
  pods.addEventHandler(objectHandler((o) => queue.addObject(o)));
  const enqueueSelected = (svc: V1Service | undefined): void => {
    const sel = svc?.spec?.selector;
    if (!sel || Object.keys(sel).length === 0) return;
    for (const pod of pods.list(svc!.metadata!.namespace, { matchLabels: sel })) queue.addObject(pod);
  };
  services.addEventHandler({
    onAdd: (svc) => enqueueSelected(svc),
    onUpdate: (old, svc) => {
      enqueueSelected(old);
      enqueueSelected(svc);
    },
    onDelete: (svc) => enqueueSelected(extract<V1Service>(svc)),
  });
  void queue.run(signal);
}

/** The floor: the same informers and one event per pod change, no controller. */
function buildFloor(kube: KubeClient, emit: Emit, _signal: AbortSignal): void {
  const pods = createClient(kube, builtins.Pod);
  createClient(kube, builtins.Service).addEventHandler({});
  pods.addEventHandler({ onAdd: () => emit(), onUpdate: () => emit() });
}

/** Every variant, in the order each run measures them. */
const VARIANTS = ['floor', 'legacy-scan', 'legacy', 'krt'] as const;
const LABELS: Record<string, string> = {
  floor: 'floor (informers only)',
  'legacy-scan': "hand-written, Istio's scan",
  legacy: 'hand-written, indexed (baseline)',
  krt: 'krt',
};

const builders: Record<string, (kube: KubeClient, emit: Emit, signal: AbortSignal) => void> = {
  floor: buildFloor,
  legacy: (kube, emit, signal) => buildLegacy(kube, emit, { signal, scan: false }),
  'legacy-scan': (kube, emit, signal) => buildLegacy(kube, emit, { signal, scan: true }),
  krt: buildKrt,
};

interface Result {
  /** Wall-clock time of the timed region. */
  ms: number;
  /** CPU time (user + system, every thread of the process) of the timed region. */
  cpuMs: number;
  retainedBytes: number;
  events: number;
}

async function child(
  variant: string,
  { pods: nPods, services: nServices, apps }: Sizes,
  iters: number,
): Promise<Result> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const stop = new AbortController();
  const kube = createFakeKubeClient({ logger: noopLogger });
  let events = 0;
  let target = 0;
  let wake: (() => void) | undefined;
  const emit = (): void => {
    events++;
    if (events >= target && wake) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  // Waits until `n` more events than asked for so far have arrived (they may already have).
  const drain = (n: number): Promise<void> => {
    target += n;
    if (events >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${target - events} events`)),
        smoke ? 10_000 : 300_000,
      );
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  };
  builders[variant]!(kube, emit, stop.signal);
  const pods: V1Pod[] = [];
  for (let i = 0; i < nPods; i++) {
    // The API server ignores status on create: set it through the status subresource.
    const want = makePod(i, apps);
    const created = await kube.api.create(builtins.Pod, want);
    pods.push(
      await kube.api.update(builtins.Pod, { ...created, status: want.status }, { subresource: 'status' }),
    );
  }
  for (let i = 0; i < nServices; i++) await kube.api.create(builtins.Service, makeService(i, apps));

  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await kube.runAndWait(stop.signal);
  await drain(nPods);
  for (let it = 0; it < iters; it++) {
    const done = drain(nPods);
    for (let i = 0; i < nPods; i++) {
      const p = pods[i]!;
      const next: V1Pod = {
        ...p,
        metadata: { ...p.metadata, resourceVersion: undefined },
        status: { ...p.status, podIP: nextIp() },
      };
      pods[i] = await kube.api.update(builtins.Pod, next, { subresource: 'status' });
    }
    await done;
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  gc();
  gc();
  const retainedBytes = process.memoryUsage().heapUsed - heapBefore;
  stop.abort();
  kube.shutdown();
  return { ms, cpuMs, retainedBytes, events };
}

function run(variant: string, scale: number, iters: number): Result {
  const out = execFileSync(
    process.execPath,
    [
      '--conditions=@kubeloom/source',
      '--expose-gc',
      '--max-old-space-size=8192',
      import.meta.filename,
      'child',
      variant,
      String(scale),
      String(iters),
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24, env: process.env },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Result;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Sizes {
  readonly pods: number;
  readonly services: number;
  readonly apps: number;
}

function sizes(scale: number): Sizes {
  if (smoke) return { pods: 100 * scale, services: 6 * scale, apps: 3 * scale };
  return { pods: 1000 * scale, services: 50 * scale, apps: 25 * scale };
}

if (process.argv[2] === 'child') {
  const [, , , variant, scaleArg, itersArg] = process.argv;
  const scale = Number(scaleArg);
  const res = await child(variant!, sizes(scale), Number(itersArg));
  console.log(JSON.stringify(res));
  process.exit(0);
} else {
  const runs = smoke ? 1 : Number(process.env.KRT_BENCH_RUNS ?? 5);
  const iters = smoke ? 2 : 10;
  const scales = [1, 10];
  const fmt = (n: number, d = 1) =>
    n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const perPod: Record<string, { cpu: number[]; wall: number[]; cpuAbove: number[] }> = {};
  console.log(
    `Istio BenchmarkControllers port: ${iters} update rounds after the initial sync, median of ${runs} fresh ` +
      'processes per cell (variants in rotating order). CPU is the process CPU time of the timed region ' +
      '(robust to a loaded machine); wall is elapsed time. Ratios are against the indexed hand-written controller.\n',
  );
  console.log(
    '| size | variant | CPU (ms) | CPU range (ms) | wall (ms) | CPU µs/pod/round | retained heap (MB) | CPU ratio | wall ratio | memory ratio | above the floor (CPU / memory) |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const measurements: BenchMeasurement[] = [];
  for (const scale of scales) {
    const s = sizes(scale);
    const events = s.pods * (iters + 1);
    const res: Record<string, Result[]> = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < runs; r++) {
      for (let j = 0; j < VARIANTS.length; j++) {
        const v = VARIANTS[(j + r) % VARIANTS.length]!;
        const x = run(v, scale, iters);
        if (x.events < events) throw new Error(`${v}: ${x.events} events, want ${events}`);
        res[v]!.push(x);
      }
    }
    const med = (v: string, f: (x: Result) => number): number => median(res[v]!.map(f));
    const base = {
      cpu: med('legacy', (x) => x.cpuMs),
      wall: med('legacy', (x) => x.ms),
      mem: med('legacy', (x) => x.retainedBytes),
    };
    const floor = { cpu: med('floor', (x) => x.cpuMs), mem: med('floor', (x) => x.retainedBytes) };
    for (const v of VARIANTS) {
      const cell = `${s.pods} pods, ${s.services} services, ${iters} rounds`;
      const rs = res[v]!;
      measurements.push(
        { cell, variant: v, metric: 'cpu', unit: 'ms', values: rs.map((x) => x.cpuMs) },
        { cell, variant: v, metric: 'wall', unit: 'ms', values: rs.map((x) => x.ms) },
        { cell, variant: v, metric: 'retained-heap', unit: 'bytes', values: rs.map((x) => x.retainedBytes) },
      );
      const cpu = med(v, (x) => x.cpuMs);
      const wall = med(v, (x) => x.ms);
      const mem = med(v, (x) => x.retainedBytes);
      if (perPod[v] === undefined) perPod[v] = { cpu: [], wall: [], cpuAbove: [] };
      const p = perPod[v];
      p.cpu.push((cpu * 1000) / events);
      p.wall.push((wall * 1000) / events);
      p.cpuAbove.push(((cpu - floor.cpu) * 1000) / events);
      const over = v === 'floor' ? '–' : `${fmt(cpu - floor.cpu)} ms / ${fmt((mem - floor.mem) / 1e6)} MB`;
      console.log(
        `| ${s.pods} pods, ${s.services} svcs | ${LABELS[v]} | ${fmt(cpu)} | ${fmt(Math.min(...res[v]!.map((x) => x.cpuMs)), 0)}–${fmt(Math.max(...res[v]!.map((x) => x.cpuMs)), 0)} | ${fmt(wall)} | ${fmt((cpu * 1000) / events, 2)} | ${fmt(mem / 1e6)} | ${fmt(cpu / base.cpu, 2)}× | ${fmt(wall / base.wall, 2)}× | ${fmt(mem / base.mem, 2)}× | ${over} |`,
      );
    }
  }
  console.log('');
  console.log('Scaling (time per pod per round at 10× over 1×):\n');
  console.log('| variant | CPU | wall | CPU above the floor (µs/pod/round at 1× → 10×) |');
  console.log('|---|---:|---:|---:|');
  for (const v of VARIANTS) {
    const p = perPod[v]!;
    const above =
      v === 'floor'
        ? '–'
        : `${fmt(p.cpuAbove[0]!, 2)} → ${fmt(p.cpuAbove[1]!, 2)} (${fmt(p.cpuAbove[1]! / p.cpuAbove[0]!, 2)}×)`;
    console.log(
      `| ${LABELS[v]} | ${fmt(p.cpu[1]! / p.cpu[0]!, 2)}× | ${fmt(p.wall[1]! / p.wall[0]!, 2)}× | ${above} |`,
    );
  }
  reportBenchResults('krt/controllers', measurements);
}
