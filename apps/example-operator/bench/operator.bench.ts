/**
 * `pnpm bench operator`: the egress operator converging N policies over 4 pools on a plane that
 * runs workloads (real Deployment and ReplicaSet controllers, scheduler, kwok nodes), each run on a
 * fresh plane with a fresh operator process.
 *
 * Measured per run: time from the first policy created to every policy `Ready=True` (gateways
 * available), the operator's API writes per policy (from its own `rest_client_requests_total`:
 * POST, PUT, PATCH, DELETE) against the minimum a correct reconcile needs, and the operator
 * process's CPU seconds and resident memory (its `process_*` metrics). Reported: median and range
 * over the runs.
 *
 * The minimum, per policy: 1 finalizer (PUT policy), 1 allocation (PUT pool/status), 1 gateway
 * (PATCH apply Deployment), 2 statuses (PUT policy/status: addresses held while the gateway rolls
 * out, then Ready) = 5. Anything above is conflict retries (several policies of one pool racing
 * for its status) and status writes for intermediate gateway states.
 *
 * EGRESS_BENCH_POLICIES (default 1000), EGRESS_BENCH_RUNS (default 5); KUBELOOM_BENCH_SMOKE=1
 * runs 8 policies once.
 */

import { builtins, createKubeClient, noopLogger } from '@kubeloom/kube';
import { installCRDs, startControlPlane, waitFor } from '@kubeloom/testing';
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
const MINIMUM_WRITES = 5;
const TYPE_META = { apiVersion: 'egress.kubeloom.dev/v1alpha1' };

interface RunResult {
  readonly convergeSeconds: number;
  readonly writesPerPolicy: number;
  readonly cpuSeconds: number;
  readonly rssMiB: number;
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

async function run(): Promise<RunResult> {
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
  return {
    convergeSeconds,
    writesPerPolicy: (sample(after, writes) - sample(before, writes)) / POLICIES,
    cpuSeconds: sample(after, /^process_cpu_seconds_total /),
    rssMiB: sample(after, /^process_resident_memory_bytes /) / 2 ** 20,
  };
}

function summary(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return `${median.toFixed(digits)} (${sorted[0]?.toFixed(digits)}–${sorted.at(-1)?.toFixed(digits)})`;
}

const results: RunResult[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await run();
  results.push(r);
  console.log(`run ${i + 1}/${RUNS}: ${JSON.stringify(r)}`);
}
console.log(
  `\n${POLICIES} policies over ${POOLS} pools, ${RUNS} run(s), fresh plane and operator each; median (range)\n`,
);
console.log('| measure | operator | minimum / note |');
console.log('|---|---|---|');
console.log(
  `| time to converge (all Ready), s | ${summary(
    results.map((r) => r.convergeSeconds),
    1,
  )} | gateways must become available through the real controllers |`,
);
console.log(
  `| API writes per policy | ${summary(
    results.map((r) => r.writesPerPolicy),
    2,
  )} | ${MINIMUM_WRITES} |`,
);
console.log(
  `| operator CPU, s | ${summary(
    results.map((r) => r.cpuSeconds),
    2,
  )} | |`,
);
console.log(
  `| operator RSS, MiB | ${summary(
    results.map((r) => r.rssMiB),
    0,
  )} | |`,
);
