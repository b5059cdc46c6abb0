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
import { cpus, loadavg } from 'node:os';
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

/** Wall-clock and CPU time (user + system, every thread of the process) of one timed span. */
interface Span {
  ms: number;
  cpuMs: number;
}

interface Result extends Span {
  /** Starting the informers through the initial workload event of every pod. */
  sync: Span;
  /** Each update round: every pod's IP updated through the API, one workload event per pod. */
  rounds: Span[];
  retainedBytes: number;
  events: number;
}

/** Starts timing a span; the returned function ends it. */
function startSpan(): () => Span {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpuStart);
    return { ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
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

  const endTotal = startSpan();
  const endSync = startSpan();
  await kube.runAndWait(stop.signal);
  await drain(nPods);
  const sync = endSync();
  const rounds: Span[] = [];
  for (let it = 0; it < iters; it++) {
    const endRound = startSpan();
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
    rounds.push(endRound());
  }
  const { ms, cpuMs } = endTotal();
  gc();
  gc();
  const retainedBytes = process.memoryUsage().heapUsed - heapBefore;
  stop.abort();
  kube.shutdown();
  return { ms, cpuMs, sync, rounds, retainedBytes, events };
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
  await main();
}

/** `median (min–max)` of `xs`, each formatted by `f`. */
function spread(xs: readonly number[], f: (n: number) => string): string {
  return `${f(median([...xs]))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
}

/** The per-process figure of the update rounds: the median round (robust to one GC-heavy round). */
function roundCpu(x: Result): number {
  return median(x.rounds.map((r) => r.cpuMs));
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const scales = [1, 10] as const;
  /** Processes per variant: more at 1×, where krt's own cost is a small difference of two large numbers. */
  const runsAt = (scale: number): number =>
    smoke ? 1 : Number(process.env.KRT_BENCH_RUNS ?? (scale === 1 ? 7 : 5));
  const itersAt = (scale: number): number => (smoke ? 2 : scale === 1 ? 20 : 10);
  const fmt = (n: number, d = 1) =>
    n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const ms0 = (n: number) => fmt(n, 0);
  const ms1 = (n: number) => fmt(n, 1);
  const ratio = (n: number) => `${fmt(n, 2)}×`;
  const perPod: Record<string, number[]> = {};
  const totals: string[] = [];
  const phases: string[] = [];
  const measurements: BenchMeasurement[] = [];
  for (const scale of scales) {
    const s = sizes(scale);
    const runs = runsAt(scale);
    const iters = itersAt(scale);
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
    const base = { cpu: med('legacy', (x) => x.cpuMs), mem: med('legacy', (x) => x.retainedBytes) };
    // Above the floor, paired by rotation round (the two processes ran seconds apart, under the
    // same load): variant − floor per round, for the initial sync and for the median update round.
    const above = (v: string, f: (x: Result) => number): number[] =>
      res[v]!.map((x, r) => f(x) - f(res.floor![r]!));
    const own = {
      sync: above('legacy', (x) => x.sync.cpuMs),
      round: above('legacy', roundCpu),
    };
    const size = `${s.pods} pods, ${s.services} svcs`;
    const cell = `${s.pods} pods, ${s.services} services, ${iters} rounds`;
    for (const v of VARIANTS) {
      const rs = res[v]!;
      measurements.push(
        { cell, variant: v, metric: 'cpu', unit: 'ms', values: rs.map((x) => x.cpuMs) },
        { cell, variant: v, metric: 'wall', unit: 'ms', values: rs.map((x) => x.ms) },
        { cell, variant: v, metric: 'sync-cpu', unit: 'ms', values: rs.map((x) => x.sync.cpuMs) },
        { cell, variant: v, metric: 'round-cpu', unit: 'ms', values: rs.map(roundCpu) },
        { cell, variant: v, metric: 'retained-heap', unit: 'bytes', values: rs.map((x) => x.retainedBytes) },
      );
      const cpu = med(v, (x) => x.cpuMs);
      const mem = med(v, (x) => x.retainedBytes);
      const round = med(v, roundCpu);
      perPod[v] = [...(perPod[v] ?? []), (round * 1000) / s.pods];
      totals.push(
        `| ${size} | ${LABELS[v]} | ${spread(
          rs.map((x) => x.cpuMs),
          ms0,
        )} | ${spread(
          rs.map((x) => x.ms),
          ms0,
        )} | ${fmt(mem / 1e6)} | ${ratio(cpu / base.cpu)} | ${ratio(mem / base.mem)} |`,
      );
      let aboveCols = '– | – | – | –';
      if (v !== 'floor') {
        const sync = above(v, (x) => x.sync.cpuMs);
        const round = above(v, roundCpu);
        measurements.push(
          { cell, variant: v, metric: 'sync-cpu-above-floor', unit: 'ms', values: sync },
          { cell, variant: v, metric: 'round-cpu-above-floor', unit: 'ms', values: round },
        );
        // The own-cost ratio of medians, with the range of the per-round ratios.
        const vs = (mine: number[], theirs: number[]): string =>
          `${ratio(median(mine) / median(theirs))} (${ratio(Math.min(...mine.map((m, r) => m / theirs[r]!)))}–${ratio(Math.max(...mine.map((m, r) => m / theirs[r]!)))})`;
        aboveCols = `${spread(sync, ms0)} | ${spread(round, ms1)} | ${vs(sync, own.sync)} | ${vs(round, own.round)}`;
      }
      phases.push(
        `| ${size} | ${LABELS[v]} | ${spread(
          rs.map((x) => x.sync.cpuMs),
          ms0,
        )} | ${spread(rs.map(roundCpu), ms1)} | ${fmt((round * 1000) / s.pods, 2)} | ${aboveCols} |`,
      );
    }
  }
  const runsText = scales.map((sc) => `${runsAt(sc)} at ${sc}×`).join(', ');
  const itersText = scales.map((sc) => `${itersAt(sc)} at ${sc}×`).join(', ');
  console.log(
    `Istio BenchmarkControllers port: the initial sync, then update rounds (${itersText}), fresh processes per ` +
      `variant (${runsText}; variants in rotating order); median (min–max) over the processes. CPU is the ` +
      `process CPU time (robust to a loaded machine); wall is elapsed time. Node ${process.version}, ` +
      `${cpus().length} cores, load average (1 min) ${fmt(loadBefore)} before and ${fmt(loadavg()[0]!)} after.\n`,
  );
  console.log('Totals (initial sync + every update round):\n');
  console.log(
    '| size | variant | CPU (ms) | wall (ms) | retained heap (MB) | CPU vs indexed | memory vs indexed |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const row of totals) console.log(row);
  console.log(
    '\nBy phase, and the cost above the floor (informers only). A round is the median update round of a ' +
      'process. Above the floor is paired per rotation round (variant − floor, processes run seconds apart); ' +
      'the own-cost ratio is against the indexed hand-written controller (ratio of the median differences, ' +
      'range of the per-round ratios).\n',
  );
  console.log(
    '| size | variant | initial sync CPU (ms) | update round CPU (ms) | CPU µs/pod/round | sync above floor (ms) | round above floor (ms) | own cost vs indexed: sync | own cost vs indexed: round |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of phases) console.log(row);
  console.log('\nScaling of the update round (CPU µs per pod, 1× → 10×):\n');
  console.log('| variant | 1× | 10× | 10× / 1× |');
  console.log('|---|---:|---:|---:|');
  for (const v of VARIANTS) {
    const [a, b] = perPod[v]!;
    console.log(`| ${LABELS[v]} | ${fmt(a!, 2)} | ${fmt(b!, 2)} | ${ratio(b! / a!)} |`);
  }
  reportBenchResults('krt/controllers', measurements);
}
