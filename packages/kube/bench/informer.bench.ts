/**
 * Informer benchmarks against a real control plane (watch cache off, so every list and watch is
 * read from etcd): kubeloom side by side with client-node's informer and two floors, every
 * measurement in a fresh process (informer-worker.ts), ROUNDS processes per variant and cell with
 * the variant order rotated every round; median and range (min–max) of wall and CPU time.
 *
 * 1. initial sync of 10,000 1 KiB ConfigMaps and of 2,000 server-side-applied Pods (~11 KB of
 *    JSON each, most of it managedFields): time to synced and retained heap per cached object.
 *    Floors: `floor` (paginated raw list + JSON.parse into a Map) and `floor-strip` (the same,
 *    also dropping managedFields, which kubeloom's default transform does). The same cells run again
 *    at the end, labelled `(watch cache)`, on a second control plane with the watch cache on
 *    (kube-apiserver's default and production's, where 1.37 serves consistent lists from the
 *    cache); `KUBELOOM_BENCH_WATCH_CACHE=0` skips them;
 * 2. watch: 40,000 ConfigMap updates (KUBELOOM_BENCH_WATCH_EVENTS) replayed from a
 *    resourceVersion through each informer, events/s delivered to a handler and CPU per event:
 *    the process's (every thread) and the main thread's alone (`process.threadCpuUsage`, without
 *    V8's background GC and compiler threads, whose share swings ±20 % between runs). 40,000
 *    rather than 10,000 so that a process's fixed costs (connecting, compiling the hot path) are a
 *    small part of the figure. Two cells:
 *    - server-paced: from the apiserver itself, which reads them from etcd (watch cache off) at
 *      its own pace (~6–9 k events/s here), so events/s is the server's, not the client's;
 *    - client-bound: the same stream recorded once from the apiserver (watch-recording.ts) and
 *      served from 127.0.0.1 over TLS as fast as each client reads it (watch-replay-server.ts),
 *      one HTTP chunk and TLS record per event by default (`KUBELOOM_BENCH_REPLAY_FRAMING=batched`:
 *      the 2 KiB chunks and 4 KiB writes of an apiserver whose queue is backed up); events/s is
 *      then bounded by the client. Both clients read the same bytes through their normal watch
 *      code; the server runs in the benchmark's own process, not in the measured one;
 * 3. scale: kubeloom's sync of 1k … KUBELOOM_BENCH_SCALE ConfigMaps (default 30,000), time and
 *    bytes per object, beside `floor-strip`.
 *
 * `KUBELOOM_BENCH_BASE_REF=<commit>` adds the variant `base`: kubeloom's packages/kube/src at that
 * commit (extracted with `git archive` into a temporary directory), for a same-run before/after.
 * `KUBELOOM_BENCH_ROUNDS` sets the processes per variant and cell (default 5).
 * `KUBELOOM_BENCH_SMOKE=1` uses tiny sizes and one round.
 */
import { execFile, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { builtins, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { type BenchMeasurement, reportBenchResults, startControlPlane } from '@kubeloom/testing';
import { benchPod } from './bench-pod.ts';
import { recordWatch } from './watch-recording.ts';
import { type ReplayFraming, startWatchReplayServer, type WatchReplayServer } from './watch-replay-server.ts';

const execFileAsync = promisify(execFile);

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const N_CM = smoke ? 300 : 10_000;
const N_POD = smoke ? 100 : 2_000;
const N_UPDATES = smoke ? 500 : Number(process.env.KUBELOOM_BENCH_WATCH_EVENTS ?? 40_000);
if (!Number.isInteger(N_UPDATES) || N_UPDATES < 1)
  throw new Error(`KUBELOOM_BENCH_WATCH_EVENTS: "${N_UPDATES}" is not a positive integer`);
const ROUNDS = smoke ? 1 : Number(process.env.KUBELOOM_BENCH_ROUNDS ?? 5);
const SCALE_MAX = smoke ? 1_000 : Number(process.env.KUBELOOM_BENCH_SCALE ?? 30_000);
const REPLAY_FRAMING = (process.env.KUBELOOM_BENCH_REPLAY_FRAMING ?? 'event') as ReplayFraming;
if (REPLAY_FRAMING !== 'event' && REPLAY_FRAMING !== 'batched')
  throw new Error(`KUBELOOM_BENCH_REPLAY_FRAMING: "${REPLAY_FRAMING}" is neither event nor batched`);
/** `KUBELOOM_BENCH_WATCH_CACHE=0` skips the sync cells on a plane with the watch cache on. */
const WATCH_CACHE = process.env.KUBELOOM_BENCH_WATCH_CACHE !== '0';
const SCALES = [1_000, 3_000, 10_000, 30_000, 100_000].filter((n) => n <= SCALE_MAX);
const worker = path.join(import.meta.dirname, 'informer-worker.ts');
const kubeDir = path.resolve(import.meta.dirname, '..');
const measurements: BenchMeasurement[] = [];

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

/** A 1 KiB ConfigMap. */
function configMap(name: string, namespace: string, i: number) {
  return {
    metadata: { name, namespace, labels: { app: `a${i % 25}` } },
    data: { key: `value-${i}`, blob: 'z'.repeat(1000) },
  };
}

/** One measurement in a fresh process (asynchronous: the replay server answers it meanwhile). */
async function run(args: string[], base: string | undefined): Promise<Record<string, number>> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--conditions=@kubeloom/source', '--expose-gc', '--max-old-space-size=8192', worker, ...args],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      env: { ...process.env, ...(base ? { KUBELOOM_BENCH_BASE: base } : {}) },
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/** ROUNDS fresh processes per variant, one at a time, the order rotated every round. */
async function rounds(variants: readonly string[], args: (v: string) => string[], base: string | undefined) {
  const res: Record<string, Array<Record<string, number>>> = Object.fromEntries(variants.map((v) => [v, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(j + r) % variants.length]!;
      res[v]!.push(await run([v, ...args(v)], base));
    }
  }
  return res;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
/** `median (min–max)`. */
const spread = (xs: readonly number[], d = 0) =>
  `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;

/** Extracts packages/kube/src at `ref` into a temporary directory; returns its src path. */
function extractBase(ref: string): { src: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubeloom-bench-base-'));
  execSync(`git archive ${JSON.stringify(ref)} packages/kube/src | tar -x -C ${JSON.stringify(dir)}`, {
    cwd: path.resolve(kubeDir, '../..'),
  });
  // Its one dependency, client-node, resolves through the package's node_modules.
  mkdirSync(path.join(dir, 'packages/kube'), { recursive: true });
  symlinkSync(path.join(kubeDir, 'node_modules'), path.join(dir, 'packages/kube/node_modules'));
  return { src: path.join(dir, 'packages/kube/src'), dir };
}

function syncTable(opts: {
  readonly cell: string;
  readonly n: number;
  readonly res: Record<string, Array<Record<string, number>>>;
  readonly floor: string;
  readonly other: string | undefined;
}): void {
  const { cell, n, res, floor, other } = opts;
  for (const [v, rs] of Object.entries(res)) {
    for (const r of rs) if (r.count !== n) throw new Error(`${v} cached ${r.count} of ${n} (${cell})`);
    measurements.push(
      { cell, variant: v, metric: 'wall', unit: 'ms', values: rs.map((r) => r.wallMs!) },
      { cell, variant: v, metric: 'cpu', unit: 'ms', values: rs.map((r) => r.cpuMs!) },
      {
        cell,
        variant: v,
        metric: 'retained-bytes-per-object',
        unit: 'bytes',
        values: rs.map((r) => r.bytesPerObject!),
      },
    );
  }
  const med = (v: string, k: string) => median(res[v]!.map((r) => r[k]!));
  for (const [v, rs] of Object.entries(res)) {
    const ratio = (k: string, of: string | undefined) =>
      of && res[of] ? fmt(med(v, k) / med(of, k), 2) : '–';
    console.log(
      `| ${cell} | ${v} | ${spread(rs.map((r) => r.wallMs!))} | ${ratio('wallMs', floor)} | ${ratio('wallMs', other)} | ` +
        `${spread(rs.map((r) => r.cpuMs!))} | ${ratio('cpuMs', floor)} | ${ratio('cpuMs', other)} | ` +
        `${spread(rs.map((r) => r.bytesPerObject!))} | ${ratio('bytesPerObject', other)} |`,
    );
  }
}

/** A watch cell's records and table: events/s, CPU and main-thread CPU per event, wall. */
async function watchCell(opts: {
  readonly cell: string;
  readonly res: Record<string, Array<Record<string, number>>>;
  readonly note: string;
}): Promise<void> {
  const { cell, res } = opts;
  const rate = (r: Record<string, number>) => (r.events! / r.wallMs!) * 1000;
  const cpuPer = (r: Record<string, number>) => (r.cpuMs! * 1000) / r.events!;
  const threadPer = (r: Record<string, number>) => (r.threadCpuMs! * 1000) / r.events!;
  console.log(
    `\n| ${cell} | events/s delivered to a handler | × client-node | client CPU µs / event | × client-node | main-thread CPU µs / event | × client-node | wall ms |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [v, rs] of Object.entries(res)) {
    for (const r of rs)
      if (r.events !== N_UPDATES) throw new Error(`${v} saw ${r.events} of ${N_UPDATES} events (${cell})`);
    measurements.push(
      { cell, variant: v, metric: 'events-per-second', unit: 'events/s', values: rs.map(rate) },
      { cell, variant: v, metric: 'cpu-per-event', unit: 'µs', values: rs.map(cpuPer) },
      { cell, variant: v, metric: 'main-thread-cpu-per-event', unit: 'µs', values: rs.map(threadPer) },
      { cell, variant: v, metric: 'wall', unit: 'ms', values: rs.map((r) => r.wallMs!) },
    );
  }
  const cn = res['client-node']!;
  const ratio = (rs: Array<Record<string, number>>, f: (r: Record<string, number>) => number) =>
    fmt(median(rs.map(f)) / median(cn.map(f)), 2);
  for (const [v, rs] of Object.entries(res)) {
    console.log(
      `| ${v} | ${spread(rs.map(rate))} | ${ratio(rs, rate)} | ${spread(rs.map(cpuPer), 1)} | ${ratio(rs, cpuPer)} | ` +
        `${spread(rs.map(threadPer), 1)} | ${ratio(rs, threadPer)} | ${spread(rs.map((r) => r.wallMs!))} |`,
    );
  }
  console.log(
    `\n(${opts.note}; load average now ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}.)`,
  );
}

/** Creates `bench-cm` with N_CM ConfigMaps and `bench-pod` with N_POD server-side-applied Pods. */
async function seedSync(k: KubeClient): Promise<void> {
  for (const ns of ['bench-cm', 'bench-pod'])
    await k.api.create(builtins.Namespace, { metadata: { name: ns } });
  await pool(
    Array.from({ length: N_CM }, (_, i) => i),
    32,
    (i) => k.api.create(builtins.ConfigMap, configMap(`cm-${i}`, 'bench-cm', i)),
  );
  await pool(
    Array.from({ length: N_POD }, (_, i) => i),
    32,
    (i) =>
      k.api.patch(
        { resource: builtins.Pod, name: `pod-${i}`, namespace: 'bench-pod' },
        benchPod(`pod-${i}`, 'bench-pod'),
        { type: 'apply', fieldManager: 'bench-deployer' },
      ),
  );
}

/** The sync cells (ConfigMaps, Pods) against the plane of `kubeconfigPath`, their table and records. */
async function syncCells(opts: {
  readonly kubeconfigPath: string;
  readonly suffix: string;
  readonly variants: string[];
  readonly base: string | undefined;
}): Promise<void> {
  console.log(
    '| cell | variant | wall ms | × floor-strip | × client-node | CPU ms | × floor-strip | × client-node | retained bytes / object | × client-node |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [kind, ns, n] of [
    ['configmaps', 'bench-cm', N_CM],
    ['pods', 'bench-pod', N_POD],
  ] as const) {
    const res = await rounds(
      opts.variants,
      () => [kind, opts.kubeconfigPath, ns, 'sync', String(n)],
      opts.base,
    );
    syncTable({
      cell: `sync ${n} ${kind}${opts.suffix}`,
      n,
      res,
      floor: 'floor-strip',
      other: 'client-node',
    });
  }
}

const baseRef = process.env.KUBELOOM_BENCH_BASE_REF;
const base = baseRef ? extractBase(baseRef) : undefined;
let plane: Awaited<ReturnType<typeof startControlPlane>> | undefined;
let kube: KubeClient | undefined;
let replay: WatchReplayServer | undefined;
let replayDir: string | undefined;
try {
  plane = await startControlPlane({
    apiServerArgs: [
      '--watch-cache=false',
      '--etcd-compaction-interval=0',
      '--max-requests-inflight=2000',
      '--max-mutating-requests-inflight=1000',
    ],
    // A loaded machine (the benchmark runs beside other work) starts the apiserver slowly.
    startTimeoutMs: 300_000,
  });
  const kubeconfigPath = plane.kubeconfigPath;
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  const k = kube;
  const scaleNs = (n: number) => (n === N_CM ? 'bench-cm' : `bench-scale-${n}`);
  for (const ns of ['bench-watch', ...SCALES.filter((n) => n !== N_CM).map(scaleNs)])
    await k.api.create(builtins.Namespace, { metadata: { name: ns } });
  const t0 = Date.now();
  const seed = (ns: string, n: number) =>
    pool(
      Array.from({ length: n }, (_, i) => i),
      32,
      (i) => k.api.create(builtins.ConfigMap, configMap(`cm-${i}`, ns, i)),
    );
  await seedSync(k);
  const samplePod = (await k.api.list(builtins.Pod, { namespace: 'bench-pod', limit: 1 })).items[0]!;
  const sampleCm = (await k.api.list(builtins.ConfigMap, { namespace: 'bench-cm', limit: 1 })).items[0]!;
  const podBytes = JSON.stringify(samplePod).length;
  const managedBytes = JSON.stringify(samplePod.metadata?.managedFields ?? []).length;
  console.log(
    `seeded ${fmt(N_CM)} ConfigMaps (${fmt(JSON.stringify(sampleCm).length)} bytes of JSON each) and ${fmt(N_POD)} Pods by server-side apply ` +
      `(${fmt(podBytes)} bytes of JSON each, ${fmt(managedBytes)} of them managedFields) in ${fmt((Date.now() - t0) / 1000, 1)} s`,
  );
  const load = os.loadavg().map((x) => x.toFixed(1));
  console.log(
    `${ROUNDS} fresh process(es) per variant and cell, variant order rotated every round; median (min–max). ` +
      `Machine: ${os.availableParallelism()} cores, load average ${load.join(' / ')} at the start, Node ${process.version}` +
      `${baseRef ? `; base = packages/kube/src at ${baseRef}` : ''}\n`,
  );

  const withBase = (vs: string[]) => (base ? [...vs, 'base'] : vs);
  const syncVariants = withBase(['floor', 'floor-strip', 'client-node', 'kubeloom']);
  await syncCells({ kubeconfigPath, suffix: '', variants: syncVariants, base: base?.src });

  // Watch: record the revision, make N updates, then replay them through each informer, first from
  // the apiserver (server-paced), then from a recording served as fast as each client reads it.
  const names = Array.from({ length: 100 }, (_, i) => `w-${i}`);
  await pool(names, 32, (name) =>
    k.api.create(builtins.ConfigMap, { metadata: { name, namespace: 'bench-watch' }, data: { v: '0' } }),
  );
  const start = (await k.api.list(builtins.ConfigMap, { namespace: 'bench-watch', limit: 1 })).metadata
    .resourceVersion!;
  await pool(
    Array.from({ length: N_UPDATES }, (_, i) => i),
    32,
    (i) =>
      k.api.patch(
        { resource: builtins.ConfigMap, name: names[i % names.length]!, namespace: 'bench-watch' },
        { data: { v: String(i), pad: 'p'.repeat(200) } },
        { type: 'merge' },
      ),
  );
  const watchVariants = withBase(['client-node', 'kubeloom']);
  const watchArgs = (kc: string) => () => [
    'configmaps',
    kc,
    'bench-watch',
    'watch',
    start,
    String(N_UPDATES),
  ];
  await watchCell({
    cell: `watch server-paced ${N_UPDATES} configmap updates`,
    res: await rounds(watchVariants, watchArgs(kubeconfigPath), base?.src),
    note: "server-paced: the apiserver replays from etcd (watch cache off), so events/s is its pace; CPU per event is the client's own cost",
  });

  const lines = await recordWatch({
    kubeConfig: plane.kubeConfig,
    path: '/api/v1/namespaces/bench-watch/configmaps',
    resourceVersion: start,
    events: N_UPDATES,
  });
  const bytes = lines.reduce((sum, l) => sum + l.length, 0);
  replay = await startWatchReplayServer({ lines, framing: REPLAY_FRAMING });
  replayDir = mkdtempSync(path.join(os.tmpdir(), 'kubeloom-bench-replay-'));
  const replayKubeconfig = path.join(replayDir, 'kubeconfig');
  writeFileSync(replayKubeconfig, replay.kubeConfig.exportConfig());
  await watchCell({
    cell: `watch client-bound ${N_UPDATES} configmap updates`,
    res: await rounds(watchVariants, watchArgs(replayKubeconfig), base?.src),
    note:
      `client-bound: the ${fmt(lines.length)} lines the apiserver sent (${fmt(bytes / lines.length)} bytes each on average), recorded once and ` +
      `served from 127.0.0.1 over TLS as fast as each client reads them, framing "${REPLAY_FRAMING}" ` +
      `(${REPLAY_FRAMING === 'event' ? 'one HTTP chunk and TLS record per event' : "Go net/http's 2 KiB chunks, 4 KiB writes"}); ` +
      `${replay.watches()} watch requests served, ${replay.others()} other requests`,
  });
  await replay.close();
  replay = undefined;

  // Scale: the same sync at growing sizes; per-object time and bytes should stay flat.
  if (SCALES.length > 0) {
    for (const n of SCALES) if (n !== N_CM) await seed(scaleNs(n), n);
    console.log('\n| scale | variant | wall µs / object | CPU µs / object | retained bytes / object |');
    console.log('|---|---|---:|---:|---:|');
    for (const n of SCALES) {
      const cell = `scale ${n} configmaps`;
      const res = await rounds(
        ['floor-strip', 'kubeloom'],
        () => ['configmaps', kubeconfigPath, scaleNs(n), 'sync', String(n)],
        undefined,
      );
      for (const [v, rs] of Object.entries(res)) {
        for (const r of rs) if (r.count !== n) throw new Error(`${v} cached ${r.count} of ${n} (${cell})`);
        const per = (k2: string) => rs.map((r) => (r[k2]! * 1000) / n);
        measurements.push(
          { cell, variant: v, metric: 'wall-per-object', unit: 'µs', values: per('wallMs') },
          { cell, variant: v, metric: 'cpu-per-object', unit: 'µs', values: per('cpuMs') },
          {
            cell,
            variant: v,
            metric: 'retained-bytes-per-object',
            unit: 'bytes',
            values: rs.map((r) => r.bytesPerObject!),
          },
        );
        console.log(
          `| ${fmt(n)} | ${v} | ${spread(per('wallMs'), 1)} | ${spread(per('cpuMs'), 1)} | ${spread(rs.map((r) => r.bytesPerObject!))} |`,
        );
      }
    }
  }
  // The sync again on a plane with the watch cache on (kube-apiserver's default, and production's):
  // 1.37 serves a consistent list, paginated or not, from the cache instead of reading etcd.
  if (WATCH_CACHE) {
    kube.shutdown();
    await plane.stop();
    plane = undefined;
    plane = await startControlPlane({
      apiServerArgs: ['--max-requests-inflight=2000', '--max-mutating-requests-inflight=1000'],
      startTimeoutMs: 300_000,
    });
    kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    await seedSync(kube);
    console.log(
      `\nThe same sync on a second control plane with the watch cache on (the default), load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' / ')}:\n`,
    );
    await syncCells({
      kubeconfigPath: plane.kubeconfigPath,
      suffix: ' (watch cache)',
      variants: syncVariants,
      base: base?.src,
    });
  }
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}`,
  );
  reportBenchResults('kube/informer', measurements);
} finally {
  kube?.shutdown();
  await replay?.close();
  if (replayDir) rmSync(replayDir, { recursive: true, force: true });
  await plane?.stop();
  if (base) rmSync(base.dir, { recursive: true, force: true });
}
