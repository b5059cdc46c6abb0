/**
 * `pnpm bench operator`: the egress operator converging N policies over 4 pools on a plane that
 * runs workloads (real Deployment and ReplicaSet controllers, scheduler, kwok nodes), each run on a
 * fresh plane with a fresh operator process. Two variants in the same run, in rotating order: the
 * pool-summary pass driven by the derived pool-usage collection (`--pool-summary=krt`) and by every
 * pool event (`--pool-summary=queue`); the policy reconcile is the same in both.
 *
 * Measured per run: time from the first policy created to every policy `Ready=True` (gateways
 * available), the operator's API writes per policy (from its own `rest_client_requests_total`:
 * POST, PUT, PATCH, DELETE) against the minimum a correct reconcile needs, and the operator
 * process's CPU seconds (since start, and while converging) and resident memory (its
 * `process_*` metrics), and the pool-summary passes it ran
 * (`controller_runtime_reconcile_total{controller="ipampool"}`). Reported per variant: median and
 * range over the runs.
 *
 * The minimum, per policy: 1 finalizer (PUT policy), 1 gateway (PATCH apply Deployment), 2
 * statuses (PUT policy/status: addresses held while the gateway rolls out, then Ready) = 4, plus
 * its share of the allocation writes (PUT pool/status): 1 when every allocation is written on its
 * own, less when the pool writer's group commit carries several allocations pending for one pool
 * in one write (`src/controller/pool-writer.ts`). So 5 is the minimum of a controller that writes
 * each allocation alone; anything above is conflict retries (a pool written by someone else
 * first) and status writes for intermediate gateway states.
 *
 * `pnpm bench --json` also gets every run's figures as `example-operator/operator` records (one
 * cell, the variants `krt` and `queue`; the docs' performance page charts them).
 *
 * EGRESS_BENCH_POLICIES (default 1000), EGRESS_BENCH_RUNS (processes per variant, default 5),
 * EGRESS_BENCH_VARIANTS (default `krt,queue`); KUBELOOM_BENCH_SMOKE=1 runs 8 policies once per
 * variant.
 */

import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';
import {
  type BenchMeasurement,
  installCRDs,
  reportBenchResults,
  startControlPlane,
  waitFor,
} from '@kubeloom/testing';
import { startOperatorProcess } from '../scripts/replica.ts';
import { findCondition } from '../src/domain/conditions.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  IPAMPoolResource,
} from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { operatorCrds } from '../test/scenarios.ts';

const smoke = process.env.KUBELOOM_BENCH_SMOKE === '1';
const POLICIES = smoke ? 8 : Number(process.env.EGRESS_BENCH_POLICIES ?? 1000);
const RUNS = smoke ? 1 : Number(process.env.EGRESS_BENCH_RUNS ?? 5);
const POOLS = 4;
const VARIANTS = (process.env.EGRESS_BENCH_VARIANTS ?? 'krt,queue').split(',').map((v) => v.trim());
for (const v of VARIANTS)
  if (v !== 'krt' && v !== 'queue')
    throw new Error(
      `EGRESS_BENCH_VARIANTS: unknown variant "${v}" (expected krt, queue or both, comma-separated)`,
    );
const MINIMUM_WRITES = 5;
const TYPE_META = { apiVersion: 'egress.kubeloom.dev/v1alpha1' };

interface RunResult {
  readonly variant: string;
  readonly convergeSeconds: number;
  readonly writesPerPolicy: number;
  readonly cpuSeconds: number;
  readonly convergeCpuSeconds: number;
  readonly rssMiB: number;
  readonly summaryPasses: number;
}

async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

function sample(text: string, pattern: RegExp): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = pattern.exec(line);
    if (m) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function run(variant: string): Promise<RunResult> {
  await using plane = await startControlPlane({ workloads: { nodes: 4 } });
  await using kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
  await installCRDs(plane.kubeConfig, operatorCrds() as never);
  await kube.api.create(builtins.Namespace, { metadata: { name: 'bench' } });
  for (let p = 0; p < POOLS; p++)
    await kube.api.create(IPAMPoolResource, {
      ...TYPE_META,
      kind: 'IPAMPool',
      metadata: { name: `pool-${p}` },
      spec: { cidrs: [`10.${p}.0.0/20`] },
    });
  await using operator = startOperatorProcess({
    name: 'bench',
    env: {},
    args: [
      `--kubeconfig=${plane.kubeconfigPath}`,
      '--metrics-secure=false',
      '--log-level=info',
      '--concurrency=4',
      `--pool-summary=${variant}`,
    ],
  });
  const port = await operator.port('serving metrics');
  await waitFor('operator caches synced', () => operator.logs.some((r) => r.msg === 'caches synced'), {
    timeoutMs: 60_000,
  });
  const before = await scrape(port);
  const started = process.hrtime.bigint();
  const names = Array.from({ length: POLICIES }, (_, i) => `policy-${i}`);
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(
      names.slice(i, i + 50).map((name, j) =>
        kube.api.create(EgressGatewayPolicyResource, {
          ...TYPE_META,
          kind: 'EgressGatewayPolicy',
          metadata: { name, namespace: 'bench' },
          spec: {
            podSelector: {},
            ipamPoolRef: { name: `pool-${(i + j) % POOLS}` },
            gateway: { replicas: 1 },
          },
        }),
      ),
    );
  await waitFor(
    `${POLICIES} policies Ready`,
    async () => {
      const list = await kube.api.list(EgressGatewayPolicyResource, { namespace: 'bench' });
      return (
        list.items.filter(
          (p: EgressGatewayPolicy) => findCondition(p.status?.conditions, 'Ready')?.status === 'True',
        ).length === POLICIES
      );
    },
    { timeoutMs: 30 * 60_000, intervalMs: 500 },
  );
  const convergeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = await scrape(port);
  const writes = /^rest_client_requests_total\{[^}]*method="(POST|PUT|PATCH|DELETE)"/;
  const passes = /^controller_runtime_reconcile_total\{[^}]*controller="ipampool"/;
  return {
    variant,
    convergeSeconds,
    writesPerPolicy: (sample(after, writes) - sample(before, writes)) / POLICIES,
    cpuSeconds: sample(after, /^process_cpu_seconds_total /),
    convergeCpuSeconds:
      sample(after, /^process_cpu_seconds_total /) - sample(before, /^process_cpu_seconds_total /),
    rssMiB: sample(after, /^process_resident_memory_bytes /) / 2 ** 20,
    summaryPasses: sample(after, passes),
  };
}

function summary(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return `${median.toFixed(digits)} (${sorted[0]?.toFixed(digits)}–${sorted.at(-1)?.toFixed(digits)})`;
}

const results: RunResult[] = [];
for (let i = 0; i < RUNS; i++) {
  // Rotate the order so neither variant always runs first (or last) on a machine that drifts.
  const order = VARIANTS.map((_, j) => VARIANTS[(i + j) % VARIANTS.length] as string);
  for (const variant of order) {
    const r = await run(variant);
    results.push(r);
    console.log(`run ${i + 1}/${RUNS} ${variant}: ${JSON.stringify(r)}`);
  }
}
console.log(
  `\n${POLICIES} policies over ${POOLS} pools, ${RUNS} run(s) per variant in rotating order, fresh plane and operator process each; median (range)\n`,
);
const of = (variant: string, pick: (r: RunResult) => number) =>
  results.filter((r) => r.variant === variant).map(pick);
const rows: [string, (r: RunResult) => number, number, string][] = [
  [
    'time to converge (all Ready), s',
    (r) => r.convergeSeconds,
    1,
    'gateways become available through the real controllers',
  ],
  [
    'API writes per policy',
    (r) => r.writesPerPolicy,
    2,
    `minimum ${MINIMUM_WRITES} with one allocation per pool write, less with group commit`,
  ],
  ['operator CPU while converging, s', (r) => r.convergeCpuSeconds, 2, 'beside the time to converge (wall)'],
  ['operator CPU since start, s', (r) => r.cpuSeconds, 2, 'startup and cache sync included'],
  ['operator RSS, MiB', (r) => r.rssMiB, 0, ''],
  ['pool-summary passes', (r) => r.summaryPasses, 0, ''],
];
console.log(`| measure | ${VARIANTS.map((v) => `--pool-summary=${v}`).join(' | ')} | note |`);
console.log(`|---|${VARIANTS.map(() => '---:|').join('')}---|`);
for (const [label, pick, digits, note] of rows)
  console.log(`| ${label} | ${VARIANTS.map((v) => summary(of(v, pick), digits)).join(' | ')} | ${note} |`);

const cell = `converge ${POLICIES} policies over ${POOLS} pools`;
const measures: ReadonlyArray<readonly [metric: string, unit: string, pick: (r: RunResult) => number]> = [
  ['wall', 's', (r) => r.convergeSeconds],
  ['cpu', 's', (r) => r.convergeCpuSeconds],
  ['writes-per-policy', 'writes', (r) => r.writesPerPolicy],
  ['rss', 'MiB', (r) => r.rssMiB],
  ['summary-passes', 'passes', (r) => r.summaryPasses],
];
reportBenchResults(
  'example-operator/operator',
  VARIANTS.flatMap((variant) =>
    measures.map(
      ([metric, unit, pick]): BenchMeasurement => ({
        cell,
        variant,
        metric,
        unit,
        values: of(variant, pick),
      }),
    ),
  ),
);
