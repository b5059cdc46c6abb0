/**
 * Where the time goes when a sharded operator's replica dies: a fresh plane, three replicas in a
 * ring, N policies converged, paced spec changes throughout; then the replica holding the
 * sharder's Lease (the worst case: the sharder fails over too) is SIGKILLed and the hand-over is
 * timed, from the kill, in phases:
 *
 * - its Lease expires (its last `renewTime` + lease duration) and is taken over by the sharder;
 * - the sharder relabels its policies and their gateways (first and last label seen by a watch);
 * - the new owners cache them (their `egress_cached_objects` gauges equal their shares);
 * - the new owners reconcile every moved policy (their `reconcile finished` records).
 *
 * Served by adopters: from the kill until every moved policy was reconciled by its new owner,
 * which (adoption, see the controllers README) happens as soon as the sharder fences the dead
 * replica, before the relabelling; the report says how many of those first reconciles started
 * before the policy's relabel was seen. The phases are waited for side by side, each stamped when
 * first seen. Reassigned and converged: the survivors' caches hold their new shares and every moved
 * policy was reconciled by its new owner; labels normalised: every moved object carries its new
 * shard label (and new standby). Also checked: no policy reconciled by two replicas at once, no
 * address held twice, and (the harness's own check) every label, address and cache as the
 * survivors' ring says. Exits 1 on a violation.
 *
 * Per adopter (each survivor), from the kill: when it saw the fence (its caches started following
 * the fenced replica's objects), when those caches synced, its first and last adopted reconcile
 * (and their durations: median, 90th percentile), and from its metrics over kill → served: CPU
 * seconds, API requests by method, and the policy queue's mean wait and work per item. `--cpu-prof
 * <dir>` writes each replica's CPU profile there (`node --cpu-prof`).
 *
 * ```sh
 * node --conditions=@kubeloom/source apps/example-operator/scripts/shard-failover.ts --policies 3000 [--runs 1] [--concurrency 4] [--cpu-prof <dir>]
 * ```
 */

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { hashRing, shardLabels } from '@kubeloom/controllers';
import { builtins, type KubeObject } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1Lease } from '@kubernetes/client-node';
import { GATEWAY_SELECTOR } from '../src/controller/clients.ts';
import { EgressGatewayPolicyResource } from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { churnSpecs, type ShardCluster, startShardCluster } from '../test/shard-cluster.ts';
import { auditAllocations, overlaps } from '../test/shard-invariants.ts';

const { values } = parseArgs({
  options: {
    policies: { type: 'string', default: '3000' },
    runs: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '4' },
    'cpu-prof': { type: 'string' },
  },
});
const int = (flag: string, text: string | undefined, min: number): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}=${text}: expected an integer ≥ ${min}`);
  return n;
};
const POLICIES = int('policies', values.policies, 3);
const RUNS = int('runs', values.runs, 1);
const CONCURRENCY = int('concurrency', values.concurrency, 1);
/** The operator's Lease timings (`src/cli/run-operator.ts`). */
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;
const SYSTEM = 'kubeloom-egress-system';
const LABELS = shardLabels('egress');
const MEMBERS = ['shard-a', 'shard-b', 'shard-c'];

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** When each object's shard label was last seen changing to each value (epoch ms), by a watch. */
function labelTimes(cluster: ShardCluster) {
  const seen = new Map<string, Map<string, number>>();
  const track = (kind: string) => (obj: KubeObject) => {
    const shard = obj.metadata?.labels?.[LABELS.shard];
    if (shard === undefined) return;
    const key = `${kind}/${obj.metadata?.name}`;
    const byShard = seen.get(key) ?? new Map<string, number>();
    seen.set(key, byShard);
    if (!byShard.has(shard)) byShard.set(shard, Date.now());
  };
  for (const [kind, informer] of [
    ['policy', cluster.admin.informer(EgressGatewayPolicyResource, { namespace: cluster.namespace })],
    [
      'gateway',
      cluster.admin.informer(builtins.Deployment, {
        namespace: cluster.namespace,
        labelSelector: GATEWAY_SELECTOR,
      }),
    ],
  ] as const) {
    // The harness's client runs these informers already (until the cluster is disposed).
    const on = track(kind);
    informer.addEventHandler({ onAdd: on, onUpdate: (_old, obj) => on(obj) });
  }
  return (kind: string, name: string, shard: string) => seen.get(`${kind}/${name}`)?.get(shard);
}

async function runOnce(run: number): Promise<boolean> {
  const profileDir = values['cpu-prof'];
  const cluster = await startShardCluster({
    pools: 4,
    args: [`--concurrency=${CONCURRENCY}`],
    ...(profileDir ? { env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } } : {}),
  });
  const stop = new AbortController();
  const auditing = auditAllocations(cluster.admin, { signal: stop.signal });
  const labelledAt = labelTimes(cluster);
  let churning: Promise<number> | undefined;
  try {
    await Promise.all(MEMBERS.map((n) => cluster.start(n)));
    const names = await cluster.createPolicies(POLICIES);
    const first = Date.now();
    const before = await waitFor('the ring to converge', () => cluster.converged(MEMBERS), {
      timeoutMs: Math.max(600_000, POLICIES * 1000),
      intervalMs: 2000,
    });
    const initialMs = Date.now() - first;
    churning = churnSpecs(cluster, names, stop.signal);

    const lease = await cluster.admin.api.get({
      resource: builtins.Lease,
      name: 'egress-sharder',
      namespace: SYSTEM,
    });
    const holder = (lease as V1Lease).spec?.holderIdentity ?? '';
    const victim = MEMBERS.find((n) => holder.startsWith(`${n}_`));
    if (!victim) throw new Error(`the sharder's Lease is held by ${holder || 'nobody'}, not a member`);
    const survivors = MEMBERS.filter((n) => n !== victim);
    const loadAtKill = loadavg()[0]!;
    const scrapesAtKill = await Promise.all(survivors.map((m) => scrapeMetrics(cluster, m)));
    const killedAt = Date.now();
    await cluster.kill(victim);
    const victimLease = (await cluster.admin.api.get({
      resource: builtins.Lease,
      name: victim,
      namespace: SYSTEM,
    })) as V1Lease;
    const expiresAt =
      new Date(victimLease.spec?.renewTime as unknown as string).getTime() + LEASE_DURATION_MS;
    const moved = [...before.owner].filter(([, owner]) => owner === victim).map(([key]) => key);

    // Where each moved policy goes, and when the watch saw it (and its gateway) there.
    const ring = hashRing(survivors);
    const newOwner = new Map(moved.map((k) => [k, ring.shardFor(k) ?? ''] as const));
    const gatewayOf = new Map(
      before.deployments.map((d) => [
        `${cluster.namespace}/${d.metadata?.ownerReferences?.[0]?.name}`,
        d.metadata?.name ?? '',
      ]),
    );
    const policyAt = (k: string) => labelledAt('policy', k.split('/')[1]!, newOwner.get(k)!);
    const gatewayAt = (k: string) => labelledAt('gateway', gatewayOf.get(k) ?? '', newOwner.get(k)!);
    const shares = new Map<string, number>();
    for (const [key, owner] of before.owner) {
      const now = owner === victim ? newOwner.get(key)! : owner;
      shares.set(now, (shares.get(now) ?? 0) + 1);
    }
    // The three phases are waited for side by side, each stamped when it is first seen: the
    // caches and the reconciles do not wait for the labels (adoption serves before relabelling).
    // If one fails, `stop` (aborted on the way out) ends the others' polling.
    const relabelled = waitFor(
      'the moved policies and their gateways to be relabelled',
      () => moved.every((k) => policyAt(k) !== undefined && gatewayAt(k) !== undefined),
      { timeoutMs: 600_000, intervalMs: 100, signal: stop.signal },
    );
    // Caches: each survivor's gauges (cheap) until they hold their shares.
    const caching = waitFor(
      'the survivors to cache their shares',
      async () => {
        for (const m of survivors)
          if ((await cluster.cached(m)).policies !== (shares.get(m) ?? 0)) return undefined;
        return Date.now();
      },
      { timeoutMs: 600_000, intervalMs: 100, signal: stop.signal },
    );
    const reconciledBy = new Map<string, number>();
    const startedBy = new Map<string, number>();
    const serving = waitFor(
      'every moved policy reconciled by its new owner',
      () => {
        for (const r of cluster.reconciles())
          if (
            r.start >= killedAt &&
            r.end !== undefined &&
            r.shard === newOwner.get(r.key) &&
            !reconciledBy.has(r.key)
          ) {
            reconciledBy.set(r.key, r.end);
            startedBy.set(r.key, r.start);
          }
        return moved.every((k) => reconciledBy.has(k));
      },
      { timeoutMs: 600_000, intervalMs: 100, signal: stop.signal },
    );
    const scraping = serving.then(() => Promise.all(survivors.map((m) => scrapeMetrics(cluster, m))));
    const [, cachedAt, scrapesAtServed] = await Promise.all([relabelled, caching, scraping]);
    // The harness's own check too: every label, address and cache as the survivors' ring says.
    const after = await waitFor('the ring to converge after the kill', () => cluster.converged(survivors), {
      timeoutMs: 600_000,
      intervalMs: 1000,
    });
    const misplaced = moved.filter((k) => after.owner.get(k) !== newOwner.get(k));
    const takeover = [...cluster.replicas.values()]
      .flatMap((p) => p.logs)
      .find((r) => String(r.msg).startsWith('took over the Lease') && r.shard === victim);
    const takeoverAt = takeover ? Date.parse(String(takeover.time)) : Number.NaN;
    const policyTimes = moved.map((k) => policyAt(k) ?? Number.NaN);
    const gatewayTimes = moved.map((k) => gatewayAt(k) ?? Number.NaN);
    const reconciled = [...reconciledBy.values()];
    const servedAt = Math.max(...reconciled);
    const adopted = moved.filter(
      (k) => (startedBy.get(k) ?? Number.POSITIVE_INFINITY) < (policyAt(k) ?? 0),
    ).length;
    const budget = LEASE_DURATION_MS + RETRY_PERIOD_MS;
    // Reassigned and converged: the survivors' caches hold their new shares and every moved policy
    // was reconciled by its new owner. Labels normalised: every moved object carries its new shard.
    const servedWithin = Math.max(servedAt, cachedAt) - killedAt <= budget;
    const normalisedAt = Math.max(...policyTimes, ...gatewayTimes);
    const convergedAt = Math.max(cachedAt, normalisedAt, ...reconciled);
    stop.abort();
    const patches = await churning;
    const { checks, duplicates } = await auditing;
    const found = overlaps(cluster.reconciles());
    const within = convergedAt - killedAt <= budget;
    const ok = found.length === 0 && duplicates.length === 0 && misplaced.length === 0;
    const at = (t: number) => seconds(t - killedAt);
    print(
      `run ${run}: ${ok ? 'ok' : 'FAILED'} — ${POLICIES} policies converged in ${seconds(initialMs)} s; killed ${victim} ` +
        `(the sharder, ${moved.length} policies); from the kill, s: Lease expired ${at(expiresAt)}, taken over ${at(takeoverAt)}, ` +
        `policies relabelled ${at(Math.min(...policyTimes))}–${at(Math.max(...policyTimes))}, ` +
        `gateways relabelled ${at(Math.min(...gatewayTimes))}–${at(Math.max(...gatewayTimes))} (${gatewayTimes.length}), ` +
        `cached ${at(cachedAt)}, reconciled by new owners ${at(Math.min(...reconciled))}–${at(Math.max(...reconciled))}; ` +
        `served by adopters ${at(servedAt)} s (${adopted}/${moved.length} first reconciled before their relabel); ` +
        `reassigned and converged (cached and served) ${at(Math.max(servedAt, cachedAt))} s (${servedWithin ? 'within' : 'over'} lease duration + retry, ${seconds(budget)} s); ` +
        `labels normalised ${at(normalisedAt)} s, all done ${at(convergedAt)} s (${within ? 'within' : 'over'}); ` +
        `${patches} spec changes, ${found.length} overlaps, ${checks} pool audits, ${duplicates.length} addresses held twice`,
    );
    for (const f of [...found, ...duplicates].slice(0, 10)) print(`  ${f}`);
    print(
      `  load ${loadAtKill.toFixed(1)} at the kill, ${loadavg()[0]!.toFixed(1)} now; killed at ${killedAt}, served at ${servedAt} (epoch ms)`,
    );
    for (const [i, m] of survivors.entries())
      print(
        `  ${adopterLine({ cluster, adopter: m, victim, killedAt, moved: moved.filter((k) => newOwner.get(k) === m) })}; ` +
          `kill → served: ${metricsDelta(scrapesAtKill[i]!, scrapesAtServed[i]!)}`,
      );
    return ok;
  } finally {
    stop.abort();
    await churning;
    await auditing;
    await cluster[Symbol.asyncDispose]();
  }
}

/** A replica's metrics as `name{labels}` → value. */
async function scrapeMetrics(cluster: ShardCluster, name: string): Promise<Map<string, number>> {
  const port = await cluster.replicas.get(name)!.port('serving metrics');
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

/** CPU, requests by method, and the policy queue's mean wait and work, between two scrapes. */
function metricsDelta(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): string {
  const d = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const sum = (prefix: string, filter: (key: string) => boolean = () => true) => {
    let total = 0;
    for (const key of after.keys()) if (key.startsWith(prefix) && filter(key)) total += d(key);
    return total;
  };
  const methods = new Map<string, number>();
  for (const key of after.keys()) {
    const m = /^rest_client_requests_total\{.*method="([A-Z]+)"/.exec(key);
    if (m) methods.set(m[1]!, (methods.get(m[1]!) ?? 0) + d(key));
  }
  const requests = [...methods]
    .filter(([, n]) => n > 0)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  const policyQueue = (key: string) => key.includes('name="egressgatewaypolicy"');
  const queue = (metric: string) => {
    const count = sum(`${metric}_count{`, policyQueue);
    return count > 0 ? `${((sum(`${metric}_sum{`, policyQueue) / count) * 1000).toFixed(1)} ms` : '-';
  };
  const items = sum('workqueue_work_duration_seconds_count{', policyQueue);
  return (
    `CPU ${sum('process_cpu_seconds_total').toFixed(1)} s, requests ${requests || 'none'}, ` +
    `${items} policy items (mean wait ${queue('workqueue_queue_duration_seconds')}, work ${queue('workqueue_work_duration_seconds')})`
  );
}

/** One adopter's phases from its log, in seconds from the kill. */
function adopterLine(opts: {
  readonly cluster: ShardCluster;
  readonly adopter: string;
  readonly victim: string;
  readonly killedAt: number;
  readonly moved: readonly string[];
}): string {
  const { cluster, adopter, victim, killedAt } = opts;
  const logs = cluster.replicas.get(adopter)?.logs ?? [];
  const at = (msg: string) => {
    const r = logs.find(
      (x) =>
        x.msg === msg && Number(x.at) >= killedAt && (x.fenced as string[] | undefined)?.includes(victim),
    );
    return r ? seconds(Number(r.at) - killedAt) : '-';
  };
  const mine = new Set(opts.moved);
  const first = new Map<string, { start: number; end: number }>();
  for (const r of cluster.reconciles())
    if (
      r.shard === adopter &&
      r.start >= killedAt &&
      r.end !== undefined &&
      mine.has(r.key) &&
      !first.has(r.key)
    )
      first.set(r.key, { start: r.start, end: r.end });
  const runs = [...first.values()];
  const durations = runs.map((r) => r.end - r.start).sort((a, b) => a - b);
  const pct = (q: number) =>
    durations.length ? durations[Math.floor(q * (durations.length - 1))]!.toFixed(0) : '-';
  const starts = runs.map((r) => r.start);
  const ends = runs.map((r) => r.end);
  return (
    `${adopter}: fence seen ${at('caching the adopted objects of fenced shards')}, cached ${at('cached the adopted objects')}, ` +
    `${runs.length}/${mine.size} adopted reconciles ${runs.length ? seconds(Math.min(...starts) - killedAt) : '-'}–` +
    `${runs.length ? seconds(Math.max(...ends) - killedAt) : '-'} s (each ${pct(0.5)} ms median, ${pct(0.9)} ms p90)`
  );
}

let failed = 0;
for (let i = 1; i <= RUNS; i++) if (!(await runOnce(i))) failed++;
process.exitCode = failed > 0 ? 1 : 0;
