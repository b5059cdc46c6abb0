/**
 * The fake cluster's cost per Pod event: write → watch → informer handler, beside a JSON
 * stringify + parse round trip of the same object (the baseline the fake is held to: at most 2×).
 *
 * Objects: PODS server-side-applied Pods (bench-pod.ts, the informer benchmark's Pod; the fake
 * applies and defaults less than the apiserver, so the stored object is a little smaller: its
 * size is printed). Variants, each in a fresh process, the order rotated every round:
 *
 * - `fake`: a fake KubeClient with a Pod informer and a handler counting updates; timed: ROUNDS_PER
 *   rounds of one status update per Pod (the new podIP on the object the previous write returned,
 *   awaited one by one, as the krt benchmark does), until the handler saw every update;
 * - `roundtrip`: `JSON.parse(JSON.stringify(pod))` of the same stored Pod, as many times as the
 *   `fake` variant has events (the podIP changed before each, so nothing can be reused).
 *
 * Per event: wall and process CPU time (user + system) of the timed region over the events.
 * `KUBELOOM_BENCH_ROUNDS` sets the processes per variant (default 5), `KUBELOOM_BENCH_UPDATE_ROUNDS`
 * the update rounds per process (ROUNDS_PER, default 5); `KUBELOOM_BENCH_SMOKE=1`
 * uses tiny sizes and one round; `KUBELOOM_BENCH_CPU_PROF=<dir>` writes a `--cpu-prof` profile
 * of each child there.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { builtins, type KubeObject, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { type BenchMeasurement, reportBenchResults } from '@kubeloom/testing';
import type { V1Pod } from '@kubernetes/client-node';
import { benchPod } from './bench-pod.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const PODS = smoke ? 50 : 1_000;
const ROUNDS_PER = smoke ? 2 : Number(process.env.KUBELOOM_BENCH_UPDATE_ROUNDS ?? 5);
const ROUNDS = smoke ? 1 : Number(process.env.KUBELOOM_BENCH_ROUNDS ?? 5);
const VARIANTS = ['roundtrip', 'fake'] as const;
type Variant = (typeof VARIANTS)[number];

interface Result {
  /** Wall time of the timed region per event (µs). */
  wallUs: number;
  /** Process CPU time of the timed region per event (µs). */
  cpuUs: number;
  /** Bytes of JSON of one stored Pod. */
  podBytes: number;
}

let ipCounter = 10;
function nextIp(): string {
  const n = ipCounter++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** A fake client holding PODS applied Pods, each with a status; returns them as stored. */
async function seeded(): Promise<{ kube: ReturnType<typeof createFakeKubeClient>; pods: V1Pod[] }> {
  const kube = createFakeKubeClient({ logger: noopLogger });
  const pods: V1Pod[] = [];
  for (let i = 0; i < PODS; i++) {
    const applied = (await kube.api.patch(
      { resource: builtins.Pod, name: `pod-${i}`, namespace: 'bench' },
      benchPod(`pod-${i}`, 'bench'),
      { type: 'apply', fieldManager: 'bench-deployer' },
    )) as V1Pod;
    const status = { phase: 'Running', podIP: nextIp(), hostIP: '10.0.0.1', qosClass: 'Burstable' };
    pods.push(await kube.api.update(builtins.Pod, { ...applied, status }, { subresource: 'status' }));
  }
  return { kube, pods };
}

function withIp(p: V1Pod): V1Pod {
  return {
    ...p,
    metadata: { ...p.metadata, resourceVersion: undefined },
    status: { ...p.status, podIP: nextIp() },
  };
}

async function timeFake(): Promise<Result> {
  const { kube, pods } = await seeded();
  const stop = new AbortController();
  let updates = 0;
  let target = 0;
  let wake: (() => void) | undefined;
  kube.informer(builtins.Pod).addEventHandler({
    onUpdate: () => {
      if (++updates >= target && wake) wake();
    },
  });
  await kube.runAndWait(stop.signal);
  const events = PODS * ROUNDS_PER;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS_PER; r++) {
    for (let i = 0; i < PODS; i++) {
      pods[i] = await kube.api.update(builtins.Pod, withIp(pods[i]!), { subresource: 'status' });
    }
  }
  target = events;
  if (updates < events) await new Promise<void>((resolve) => (wake = resolve));
  const wallUs = ((performance.now() - start) * 1000) / events;
  const cpu = process.cpuUsage(cpu0);
  stop.abort();
  kube.shutdown();
  return { wallUs, cpuUs: (cpu.user + cpu.system) / events, podBytes: JSON.stringify(pods[0]).length };
}

async function timeRoundTrip(): Promise<Result> {
  const { kube, pods } = await seeded();
  kube.shutdown();
  const events = PODS * ROUNDS_PER;
  let sink = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS_PER; r++) {
    for (let i = 0; i < PODS; i++) {
      const pod = pods[i]!;
      (pod.status as { podIP?: string }).podIP = nextIp();
      const copy = JSON.parse(JSON.stringify(pod)) as KubeObject;
      if (copy.metadata?.name) sink++;
    }
  }
  const wallUs = ((performance.now() - start) * 1000) / events;
  const cpu = process.cpuUsage(cpu0);
  if (sink !== events) throw new Error('round trip lost objects');
  return { wallUs, cpuUs: (cpu.user + cpu.system) / events, podBytes: JSON.stringify(pods[0]).length };
}

function run(variant: Variant): Result {
  const prof = process.env.KUBELOOM_BENCH_CPU_PROF;
  const out = execFileSync(
    process.execPath,
    [
      '--conditions=@kubeloom/source',
      ...(prof
        ? ['--cpu-prof', `--cpu-prof-dir=${prof}`, `--cpu-prof-name=fake-${variant}-${Date.now()}.cpuprofile`]
        : []),
      import.meta.filename,
      'child',
      variant,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24, env: process.env },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Result;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const fmt = (n: number, d = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const spread = (xs: readonly number[]) =>
  `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;

if (process.argv[2] === 'child') {
  const variant = process.argv[3] as Variant;
  const res = variant === 'fake' ? await timeFake() : await timeRoundTrip();
  console.log(JSON.stringify(res));
  process.exit(0);
} else {
  const res: Record<Variant, Result[]> = { roundtrip: [], fake: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < VARIANTS.length; j++) {
      const v = VARIANTS[(j + r) % VARIANTS.length]!;
      res[v].push(run(v));
    }
  }
  const cell = `status update → informer handler, ${PODS} applied Pods × ${ROUNDS_PER} rounds`;
  const load = os.loadavg().map((x) => x.toFixed(1));
  console.log(
    `Fake cluster per Pod event (${fmt(res.fake[0]!.podBytes, 0)} bytes of JSON per stored Pod): ${ROUNDS} fresh ` +
      `process(es) per variant, order rotated; median (min–max); load ${load.join(' / ')} on ${os.cpus().length} cores.\n`,
  );
  console.log('| variant | CPU µs/event | wall µs/event | CPU ratio | wall ratio |');
  console.log('|---|---:|---:|---:|---:|');
  const base = res.roundtrip;
  for (const v of VARIANTS) {
    const cpu = res[v].map((x) => x.cpuUs);
    const wall = res[v].map((x) => x.wallUs);
    console.log(
      `| ${v === 'fake' ? 'fake: write → watch → informer handler' : 'JSON stringify + parse round trip (baseline)'} | ${spread(cpu)} | ${spread(wall)} | ${fmt(median(cpu) / median(base.map((x) => x.cpuUs)), 2)}× | ${fmt(median(wall) / median(base.map((x) => x.wallUs)), 2)}× |`,
    );
  }
  const measurements: BenchMeasurement[] = VARIANTS.flatMap((v) => [
    { cell, variant: v, metric: 'cpu-per-event', unit: 'µs', values: res[v].map((x) => x.cpuUs) },
    { cell, variant: v, metric: 'wall-per-event', unit: 'µs', values: res[v].map((x) => x.wallUs) },
  ]);
  reportBenchResults('kube/fake', measurements);
}
