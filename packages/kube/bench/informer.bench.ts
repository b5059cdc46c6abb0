/**
 * Informer benchmarks against a real control plane, kubeloom side by side with client-node's
 * informer and the floor (paginated raw HTTP list + JSON.parse into a Map), each measurement in
 * a fresh process:
 *
 * 1. initial sync of 10,000 ConfigMaps and of 2,000 pod-sized (~5 KB) Pods: time to synced and
 *    retained heap per cached object;
 * 2. watch throughput: 10,000 updates replayed from a resourceVersion through each informer,
 *    events per second delivered to a handler.
 *
 * KUBELOOM_BENCH_SMOKE=1 uses tiny sizes.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { builtins, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { startControlPlane } from '@kubeloom/testing';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const N_CM = smoke ? 300 : 10_000;
const N_POD = smoke ? 100 : 2_000;
const N_UPDATES = smoke ? 500 : 10_000;
const RUNS = smoke ? 1 : 3;
const worker = path.join(import.meta.dirname, 'informer-worker.ts');

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

function pod(name: string, namespace: string) {
  const env = Array.from({ length: 14 }, (_, i) => ({
    name: `ENV_VAR_NUMBER_${i}`,
    value: `value-${i}-${'x'.repeat(40)}`,
  }));
  return {
    metadata: {
      name,
      namespace,
      labels: { app: `app-${name.length % 25}`, tier: 'backend', 'pod-template-hash': '5d8f7c9b4' },
      annotations: { 'kubeloom.dev/bench': 'y'.repeat(600) },
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'registry.example.com/team/service:v1.2.3',
          env,
          ports: [{ containerPort: 8080, name: 'http' }],
        },
        { name: 'sidecar', image: 'registry.example.com/proxy:v9', args: ['--port=15001', '--mode=sidecar'] },
      ],
    },
  };
}

function run(args: string[]): Record<string, number> {
  const out = execFileSync(
    process.execPath,
    ['--conditions=@kubeloom/source', '--expose-gc', worker, ...args],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const plane = await startControlPlane({
  apiServerArgs: [
    '--watch-cache=false',
    '--etcd-compaction-interval=0',
    '--max-requests-inflight=2000',
    '--max-mutating-requests-inflight=1000',
  ],
});
let kube: KubeClient | undefined;
try {
  kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  for (const ns of ['bench-cm', 'bench-pod', 'bench-watch'])
    await kube.api.create(builtins.Namespace, { metadata: { name: ns } });
  const t0 = Date.now();
  await pool(
    Array.from({ length: N_CM }, (_, i) => i),
    32,
    (i) =>
      kube!.api.create(builtins.ConfigMap, {
        metadata: { name: `cm-${i}`, namespace: 'bench-cm', labels: { app: `a${i % 25}` } },
        data: { key: `value-${i}`, other: 'z'.repeat(64) },
      }),
  );
  await pool(
    Array.from({ length: N_POD }, (_, i) => i),
    32,
    (i) => kube!.api.create(builtins.Pod, pod(`pod-${i}`, 'bench-pod')),
  );
  const sample = await kube.api.get({ resource: builtins.Pod, name: 'pod-0', namespace: 'bench-pod' });
  console.log(
    `seeded ${N_CM} ConfigMaps and ${N_POD} Pods (${fmt(JSON.stringify(sample).length)} bytes of JSON each) in ${fmt((Date.now() - t0) / 1000, 1)} s; ${RUNS} run(s) per cell, median shown\n`,
  );

  console.log(
    '| objects | variant | time to synced (ms) | × floor | retained heap / object (bytes) | × client-node |',
  );
  console.log('|---|---|---:|---:|---:|---:|');
  for (const [kind, ns, n] of [
    ['configmaps', 'bench-cm', N_CM],
    ['pods', 'bench-pod', N_POD],
  ] as const) {
    const results: Record<string, { ms: number; bytes: number }> = {};
    for (const variant of ['floor', 'client-node', 'kubeloom']) {
      const runs = Array.from({ length: RUNS }, () => run([variant, kind, plane.kubeconfigPath, ns, 'sync']));
      for (const r of runs)
        if (r.count !== n) throw new Error(`${variant} cached ${r.count} of ${n} ${kind}`);
      results[variant] = {
        ms: median(runs.map((r) => r.ms!)),
        bytes: median(runs.map((r) => r.bytesPerObject!)),
      };
    }
    for (const variant of ['floor', 'client-node', 'kubeloom']) {
      const r = results[variant]!;
      console.log(
        `| ${fmt(n)} ${kind} | ${variant} | ${fmt(r.ms)} | ${fmt(r.ms / results.floor!.ms, 2)} | ${fmt(r.bytes)} | ${fmt(r.bytes / results['client-node']!.bytes, 2)} |`,
      );
    }
  }

  // Watch throughput: record the revision, make N updates, then replay them through each informer.
  const seedList = await kube.api.list(builtins.ConfigMap, { namespace: 'bench-watch' });
  const names = Array.from({ length: 100 }, (_, i) => `w-${i}`);
  await pool(names, 32, (name) =>
    kube!.api.create(builtins.ConfigMap, { metadata: { name, namespace: 'bench-watch' }, data: { v: '0' } }),
  );
  const start = (await kube.api.list(builtins.ConfigMap, { namespace: 'bench-watch', limit: 1 })).metadata
    .resourceVersion!;
  void seedList;
  await pool(
    Array.from({ length: N_UPDATES }, (_, i) => i),
    32,
    (i) =>
      kube!.api.patch(
        { resource: builtins.ConfigMap, name: names[i % names.length]!, namespace: 'bench-watch' },
        { data: { v: String(i), pad: 'p'.repeat(200) } },
        { type: 'merge' },
      ),
  );
  console.log(
    `\n| watch: ${fmt(N_UPDATES)} updates replayed | events/s delivered to a handler | × client-node | client CPU µs / event | × client-node |`,
  );
  console.log('|---|---:|---:|---:|---:|');
  const rates: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  for (const variant of ['client-node', 'kubeloom']) {
    const runs = Array.from({ length: RUNS }, () =>
      run([variant, 'configmaps', plane.kubeconfigPath, 'bench-watch', 'watch', start, String(N_UPDATES)]),
    );
    rates[variant] = median(runs.map((r) => r.eventsPerSecond!));
    cpu[variant] = median(runs.map((r) => (r.cpuMs! * 1000) / N_UPDATES));
  }
  for (const variant of ['client-node', 'kubeloom']) {
    const line = [
      variant,
      fmt(rates[variant]!),
      fmt(rates[variant]! / rates['client-node']!, 2),
      fmt(cpu[variant]!, 1),
      fmt(cpu[variant]! / cpu['client-node']!, 2),
    ];
    console.log(`| ${line.join(' | ')} |`);
  }
  console.log(
    "\n(events/s is bounded by the apiserver replaying from etcd; CPU per event is the client's own cost.)",
  );
} finally {
  kube?.shutdown();
  await plane.stop();
}
