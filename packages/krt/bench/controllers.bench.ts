/**
 * The port of Istio's `BenchmarkControllers` (pkg/kube/krt/bench_test.go) on the fake cluster:
 * Pods → Workloads (each pod joined with the services selecting it in its namespace), krt
 * against a hand-written queue-based controller computing the same workloads. The data and the
 * controllers are in controllers.ts.
 *
 * Data as in Istio: 1,000 pods `pod-<i>` in `ns-<i%2>` labelled `app: app-<i%25>`, 50 services
 * `pod-<i>` in `ns-<i%2>` selecting `app: app-<i%25>` (25 is odd, so each app label has one
 * service in each namespace and every pod is selected by exactly one service). And 10×, which
 * Istio does not have: 10,000 pods, 500 services, 250 app labels. 250 is even, so both services
 * of an app label (`pod-<a>` and `pod-<a+250>`) live in the namespace of that label's pods: every
 * pod is selected by two services, and each namespace has 250 services over 125 app labels.
 *
 * Variants: the floor (the informers and one event per pod change, no controller); the
 * hand-written controller exactly as Istio's `NewLegacy` (scanning every service of the pod's
 * namespace); the same controller with a kclient index of the services by selector pair (the
 * baseline for the ratios: the kind of index krt now builds automatically, which a Go engineer
 * would add at this scale); and krt, with Istio's ServiceWrapper augmentation on the services
 * (KRT_BENCH_AUGMENT=0 turns it off).
 *
 * Each process runs one variant in two phases:
 *
 * 1. Istio's timed work: start the informers, initial sync, the initial workload events (one per
 *    pod), then `iters` rounds of updating every pod's IP through the API and waiting for one
 *    event per pod. Wall time and process CPU time (user + system, GC threads included) of the
 *    sync and of each round; retained heap after a forced GC with the controller alive, relative
 *    to the heap before the fake client was created.
 * 2. The controller's own cost, inside the process, by CPU-profile attribution: the controller is
 *    detached (its signal aborted), then fresh instances are attached to the synced informers one
 *    after another, each through its initial workload events (its own initial sync) and detached
 *    again, except the last, which then runs more update rounds. Each attach and the rounds run
 *    under V8's sampling profiler; a sample is the controller's when a frame of its code is on
 *    the stack, and its own CPU time is its share of the busy samples times the main thread's CPU
 *    time. The process's own initial sync is the median over its attaches (one attach at 1× is
 *    ≈ 10 ms, a few dozen samples, and swings with the machine's load).
 *
 * KUBELOOM_BENCH_SMOKE=1 runs tiny sizes (< 30 s); KRT_BENCH_RUNS sets the processes per cell,
 * KRT_BENCH_OWN_ROUNDS the profiled rounds per process, KRT_BENCH_ATTACHES the profiled attaches per
 * process; KRT_BENCH_PROFILE_DIR=dir writes the profiles.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { type Profiler, Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { builtins, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { type BenchMeasurement, reportBenchResults } from '@kubeloom/testing';
import type { V1Pod } from '@kubernetes/client-node';
import { builders, LABELS, makePod, makeService, nextIp, VARIANTS } from './controllers.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';

/** Wall-clock and CPU time of one timed span: the process's (every thread) and the main thread's. */
interface Span {
  ms: number;
  cpuMs: number;
  threadCpuMs: number;
}

/**
 * A span run under V8's sampling profiler, its samples attributed: `own` samples have a frame of
 * the controller's code on the stack (krt's sources, the controllers package's queue, the
 * variants in controllers.ts), `busy` are all samples but idle ones, `gc` the garbage collector's.
 */
interface Profiled extends Span {
  own: number;
  busy: number;
  gc: number;
}

interface Result extends Span {
  /** Starting the informers through the initial workload event of every pod. */
  sync: Span;
  /** Each update round: every pod's IP updated through the API, one workload event per pod. */
  rounds: Span[];
  /**
   * Profiled, one per attach: a fresh controller attached to the synced informers, through its
   * initial events (its own initial sync).
   */
  attaches: Profiled[];
  /** Profiled: update rounds with that controller. */
  ownRounds: Profiled;
  retainedBytes: number;
  events: number;
  pods: number;
}

/** The sampling interval of the own-cost profiles, µs. */
const SAMPLE_US = 100;

/** Whether a script is the controller's code (rather than the fake cluster's or the informers'). */
function isControllerCode(url: string): boolean {
  return (
    url.includes('/packages/krt/src/') ||
    url.includes('/packages/controllers/src/') ||
    url.endsWith('/packages/krt/bench/controllers.ts')
  );
}

/** Counts the samples of `profile` by {@link isControllerCode} on any frame of the stack. */
function attribute(profile: Profiler.Profile): { own: number; busy: number; gc: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, boolean>();
  const owned = (id: number): boolean => {
    let v = memo.get(id);
    if (v === undefined) {
      const p = parent.get(id);
      v = isControllerCode(byId.get(id)!.callFrame.url) || (p !== undefined && owned(p));
      memo.set(id, v);
    }
    return v;
  };
  let own = 0;
  let busy = 0;
  let gc = 0;
  for (const id of profile.samples ?? []) {
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)') continue;
    busy++;
    if (name === '(garbage collector)') gc++;
    else if (owned(id)) own++;
  }
  return { own, busy, gc };
}

let profileCount = 0;

/** Runs `body` under the sampling profiler, timed (KRT_BENCH_PROFILE_DIR=dir also writes the profile there). */
async function profiled(session: Session, body: () => Promise<void>): Promise<Profiled> {
  await session.post('Profiler.start');
  const end = startSpan();
  await body();
  const span = end();
  const { profile } = await session.post('Profiler.stop');
  const dir = process.env.KRT_BENCH_PROFILE_DIR;
  if (dir)
    writeFileSync(`${dir}/krt-bench-${process.pid}-${profileCount++}.cpuprofile`, JSON.stringify(profile));
  return { ...span, ...attribute(profile) };
}

/** Starts timing a span; the returned function ends it. */
function startSpan(): () => Span {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const threadStart = process.threadCpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpuStart);
    const thread = process.threadCpuUsage(threadStart);
    return {
      ms: performance.now() - start,
      cpuMs: (cpu.user + cpu.system) / 1000,
      threadCpuMs: (thread.user + thread.system) / 1000,
    };
  };
}

/** Counts events; `drain(n)` resolves once `n` more than asked for so far have arrived. */
class Counter {
  #events = 0;
  #target = 0;
  #wake: (() => void) | undefined;
  get events(): number {
    return this.#events;
  }
  readonly emit = (): void => {
    this.#events++;
    if (this.#events >= this.#target && this.#wake) {
      const w = this.#wake;
      this.#wake = undefined;
      w();
    }
  };
  drain(n: number): Promise<void> {
    this.#target += n;
    if (this.#events >= this.#target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${this.#target - this.#events} events`)),
        smoke ? 10_000 : 300_000,
      );
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Updates every pod's IP through the API (status subresource), in order. */
async function updateRound(kube: KubeClient, pods: V1Pod[]): Promise<void> {
  for (let i = 0; i < pods.length; i++) {
    const p = pods[i]!;
    const next: V1Pod = {
      ...p,
      metadata: { ...p.metadata, resourceVersion: undefined },
      status: { ...p.status, podIP: nextIp() },
    };
    pods[i] = await kube.api.update(builtins.Pod, next, { subresource: 'status' });
  }
}

async function child(variant: string, { pods: nPods, services: nServices, apps }: Sizes): Promise<Result> {
  const { iters, ownIters, attachIters } = plan(nPods);
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const informers = new AbortController();
  const stop = new AbortController();
  const kube = createFakeKubeClient({ logger: noopLogger });
  const counter = new Counter();
  builders[variant]!(kube, counter.emit, stop.signal);
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

  // Phase 1: Istio's timed work.
  const endTotal = startSpan();
  const endSync = startSpan();
  await kube.runAndWait(informers.signal);
  await counter.drain(nPods);
  const sync = endSync();
  const rounds: Span[] = [];
  for (let it = 0; it < iters; it++) {
    const endRound = startSpan();
    const done = counter.drain(nPods);
    await updateRound(kube, pods);
    await done;
    rounds.push(endRound());
  }
  const total = endTotal();
  gc();
  gc();
  const retainedBytes = process.memoryUsage().heapUsed - heapBefore;

  // Phase 2: the own cost, by CPU-profile attribution. The controller is detached (its signal
  // aborted), then fresh instances are attached to the synced informers one after another (each
  // through its initial events, then detached, except the last), and the last one runs
  // `ownIters` update rounds; each attach and the rounds under V8's sampling profiler.
  stop.abort();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLE_US });
  const attaches: Profiled[] = [];
  let detach = new AbortController();
  let own = new Counter();
  for (let k = 0; k < attachIters; k++) {
    if (k > 0) {
      detach.abort();
      detach = new AbortController();
      own = new Counter();
    }
    gc();
    gc();
    const d = detach;
    const c = own;
    attaches.push(
      await profiled(session, async () => {
        builders[variant]!(kube, c.emit, d.signal);
        await c.drain(nPods);
      }),
    );
  }
  gc();
  gc();
  const ownCounter = own;
  const ownRounds = await profiled(session, async () => {
    for (let it = 0; it < ownIters; it++) {
      const done = ownCounter.drain(nPods);
      await updateRound(kube, pods);
      await done;
    }
  });
  session.disconnect();
  detach.abort();
  informers.abort();
  kube.shutdown();
  return { ...total, sync, rounds, attaches, ownRounds, retainedBytes, events: counter.events, pods: nPods };
}

function run(variant: string, scale: number): Result {
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
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24, env: process.env },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Result;
}

function median(values: readonly number[]): number {
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

/**
 * Istio-style update rounds, profiled own-cost rounds and profiled attaches per process: more at
 * 1×, where rounds and attaches are short.
 */
function plan(pods: number): { iters: number; ownIters: number; attachIters: number } {
  const env = process.env;
  const p = smoke
    ? { iters: 2, ownIters: 2, attachIters: 2 }
    : pods <= 1000
      ? { iters: 10, ownIters: 40, attachIters: 25 }
      : { iters: 5, ownIters: 5, attachIters: 3 };
  return {
    iters: p.iters,
    ownIters: env.KRT_BENCH_OWN_ROUNDS === undefined ? p.ownIters : Number(env.KRT_BENCH_OWN_ROUNDS),
    attachIters: env.KRT_BENCH_ATTACHES === undefined ? p.attachIters : Number(env.KRT_BENCH_ATTACHES),
  };
}

if (process.argv[2] === 'child') {
  const [, , , variant, scaleArg] = process.argv;
  const res = await child(variant!, sizes(Number(scaleArg)));
  console.log(JSON.stringify(res));
  process.exit(0);
} else {
  await main();
}

/** `median (min–max)` of `xs`, each formatted by `f`. */
function spread(xs: readonly number[], f: (n: number) => string): string {
  return `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
}

/** The controller's own main-thread CPU in a profiled span: its share of the busy samples. */
function ownCpu(p: Profiled): number {
  return p.busy === 0 ? 0 : (p.threadCpuMs * p.own) / p.busy;
}

/** The process's own CPU per profiled update round. */
function ownRound(x: Result): number {
  return ownCpu(x.ownRounds) / plan(x.pods).ownIters;
}

/** The process's own initial sync CPU: the median over its attaches. */
function ownSync(x: Result): number {
  return median(x.attaches.map(ownCpu));
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const scales = [1, 10] as const;
  const runsAt = (scale: number): number =>
    smoke ? 1 : Number(process.env.KRT_BENCH_RUNS ?? (scale === 1 ? 7 : 5));
  const fmt = (n: number, d = 1) =>
    n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const ms0 = (n: number) => fmt(n, 0);
  const ms1 = (n: number) => fmt(n, 1);
  const ratio = (n: number) => `${fmt(n, 2)}×`;
  const cpu = (s: Span) => s.cpuMs;
  const totals: string[] = [];
  const phases: string[] = [];
  const owns: string[] = [];
  const measurements: BenchMeasurement[] = [];
  for (const scale of scales) {
    const s = sizes(scale);
    const runs = runsAt(scale);
    const { iters } = plan(s.pods);
    const events = s.pods * (iters + 1);
    const res: Record<string, Result[]> = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < runs; r++) {
      for (let j = 0; j < VARIANTS.length; j++) {
        const v = VARIANTS[(j + r) % VARIANTS.length]!;
        const x = run(v, scale);
        if (x.events < events) throw new Error(`${v}: ${x.events} events, want ${events}`);
        res[v]!.push(x);
      }
    }
    const med = (v: string, f: (x: Result) => number): number => median(res[v]!.map(f));
    const base = { cpu: med('legacy', (x) => x.cpuMs), mem: med('legacy', (x) => x.retainedBytes) };
    const size = `${s.pods} pods, ${s.services} svcs`;
    const cell = `${s.pods} pods, ${s.services} services, ${iters} rounds`;
    const roundsCpu = (x: Result) => x.rounds.reduce((a, r) => a + r.cpuMs, 0);
    // krt against the indexed controller: the ratio of the medians, and the range of the ratios
    // of the processes of the same rotation round.
    const vs = (v: string, f: (x: Result) => number): string => {
      const mine = res[v]!.map(f);
      const theirs = res.legacy!.map(f);
      const rs = mine.map((m, r) => m / theirs[r]!);
      return `${ratio(median(mine) / median(theirs))} (${ratio(Math.min(...rs))}–${ratio(Math.max(...rs))})`;
    };
    for (const v of VARIANTS) {
      const rs = res[v]!;
      measurements.push(
        { cell, variant: v, metric: 'cpu', unit: 'ms', values: rs.map((x) => x.cpuMs) },
        { cell, variant: v, metric: 'wall', unit: 'ms', values: rs.map((x) => x.ms) },
        { cell, variant: v, metric: 'sync-cpu', unit: 'ms', values: rs.map((x) => x.sync.cpuMs) },
        { cell, variant: v, metric: 'rounds-cpu', unit: 'ms', values: rs.map(roundsCpu) },
        { cell, variant: v, metric: 'retained-heap', unit: 'bytes', values: rs.map((x) => x.retainedBytes) },
        { cell, variant: v, metric: 'own-round-cpu', unit: 'ms', values: rs.map(ownRound) },
        { cell, variant: v, metric: 'own-sync-cpu', unit: 'ms', values: rs.map(ownSync) },
      );
      totals.push(
        `| ${size} | ${LABELS[v]} | ${spread(
          rs.map((x) => x.cpuMs),
          ms0,
        )} | ${spread(
          rs.map((x) => x.ms),
          ms0,
        )} | ${v === 'floor' ? '–' : ms0(med(v, (x) => x.cpuMs) - med('floor', (x) => x.cpuMs))} | ${fmt(
          med(v, (x) => x.retainedBytes) / 1e6,
        )} | ${ratio(med(v, (x) => x.cpuMs) / base.cpu)} | ${ratio(
          med(v, (x) => x.retainedBytes) / base.mem,
        )} |`,
      );
      phases.push(
        `| ${size} | ${LABELS[v]} | ${spread(
          rs.map((x) => x.sync.cpuMs),
          ms0,
        )} | ${spread(rs.map(roundsCpu), ms0)} | ${spread(
          rs.map((x) => median(x.rounds.map(cpu))),
          ms1,
        )} |`,
      );
      const perPod = (ms: number) => fmt((ms * 1000) / s.pods, 2);
      const own = rs.map(ownRound);
      const isFloor = v === 'floor';
      owns.push(
        `| ${size} | ${LABELS[v]} | ${spread(own, ms1)} | ${perPod(median(own))} | ${spread(
          rs.map((x) => (100 * x.ownRounds.own) / x.ownRounds.busy),
          ms1,
        )} | ${spread(
          rs.map(
            (x) => (x.ownRounds.threadCpuMs * x.ownRounds.gc) / x.ownRounds.busy / plan(x.pods).ownIters,
          ),
          ms1,
        )} | ${spread(rs.map(ownSync), ms1)} | ${
          isFloor ? '– | –' : `${vs(v, ownRound)} | ${vs(v, ownSync)}`
        } |`,
      );
    }
    console.error(`done: ${size}`);
  }
  const runsText = scales.map((sc) => `${runsAt(sc)} at ${sc}×`).join(', ');
  const planText = scales
    .map((sc) => {
      const p = plan(sizes(sc).pods);
      return `${p.iters} timed update rounds, ${p.attachIters} profiled attaches and ${p.ownIters} profiled update rounds at ${sc}×`;
    })
    .join(', ');
  console.log(
    `Istio BenchmarkControllers port: fresh processes per variant (${runsText}; variants in rotating order), ` +
      `${planText}; median (min–max) over the processes. CPU is the process CPU time (robust to a loaded ` +
      `machine); wall is elapsed time. ServiceWrapper augmentation ${process.env.KRT_BENCH_AUGMENT === '0' ? 'off' : 'on'}. ` +
      `Node ${process.version}, ${cpus().length} cores, load average (1 min) ${fmt(loadBefore)} before and ` +
      `${fmt(loadavg()[0]!)} after.\n`,
  );
  console.log("Istio's timed work, totals (initial sync + every update round):\n");
  console.log(
    '| size | variant | CPU (ms) | wall (ms) | CPU above floor (ms, medians) | retained heap (MB) | CPU vs indexed | memory vs indexed |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const row of totals) console.log(row);
  console.log('\nBy phase (CPU ms):\n');
  console.log('| size | variant | initial sync | all update rounds | median update round |');
  console.log('|---|---|---:|---:|---:|');
  for (const row of phases) console.log(row);
  console.log(
    `\nOwn cost, inside each process: the controller's share of the busy CPU-profile samples (${SAMPLE_US} µs ` +
      "interval; a sample is the controller's when its code is on the stack; garbage collection is " +
      "nobody's) times the main thread's CPU time, for the profiled update rounds (per round) and for " +
      'attaching a fresh controller to the synced informers (its own initial sync: the median over the ' +
      "process's attaches). Ratios against the " +
      'indexed hand-written controller (ratio of the medians, range of the per-rotation-round ratios).\n',
  );
  console.log(
    '| size | variant | own CPU per round (ms) | µs per pod update | share of busy samples (%) | GC per round, whole process (ms) | own initial sync CPU (ms) | own round vs indexed | own sync vs indexed |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of owns) console.log(row);
  reportBenchResults('krt/controllers', measurements);
}
