/**
 * Seeded churn runs of the sharded operator on a real plane: for each seed a fresh plane, three
 * operator processes in a ring (`--shard-ring`), N policies; then a seeded sequence of ring changes
 * (the first a replica SIGKILLed and replaced; then SIGKILLs, SIGTERMs and joins drawn) while policies are
 * changed, created and deleted, each change followed by convergence. Checked per run: every
 * reconcile start/end record of every process shows no policy reconciled by two replicas at once;
 * a pool audit every 500 ms never finds an address held twice. Exits 1 on any violation.
 *
 * ```sh
 * node --conditions=@kubeloom/source apps/example-operator/scripts/shard-churn.ts --seed 1 --runs 10 [--policies 200] [--steps 4]
 * ```
 */

import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { waitFor } from '@kubeloom/testing';
import { EgressGatewayPolicyResource } from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { type Random, random } from '../test/random.ts';
import { type ShardCluster, startShardCluster } from '../test/shard-cluster.ts';
import { auditAllocations, overlaps } from '../test/shard-invariants.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    policies: { type: 'string', default: '200' },
    steps: { type: 'string', default: '4' },
  },
});
const int = (flag: string, text: string | undefined, min: number): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}=${text}: expected an integer ≥ ${min}`);
  return n;
};
const FIRST_SEED = int('seed', values.seed, 0);
const RUNS = int('runs', values.runs, 1);
const POLICIES = int('policies', values.policies, 1);
const STEPS = int('steps', values.steps, 1);

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** What {@link churn} changes: `names` (the live policies) is updated as it creates and deletes. */
interface Churn {
  readonly cluster: ShardCluster;
  readonly rnd: Random;
  readonly names: string[];
  readonly signal: AbortSignal;
}

/** Changes, creates and deletes policies (seeded) until `signal` aborts; returns how many writes. */
async function churn({ cluster, rnd, names, signal }: Churn): Promise<number> {
  let writes = 0;
  let created = 0;
  while (!signal.aborted) {
    const roll = rnd.next();
    const api = cluster.admin.api;
    const ns = cluster.namespace;
    try {
      if (roll < 0.8 && names.length > 0) {
        await api.patch(
          { resource: EgressGatewayPolicyResource, name: rnd.pick(names), namespace: ns },
          { spec: { gateway: { replicas: rnd.int(1, 3) } } },
          { type: 'merge', signal },
        );
      } else if (roll < 0.9) {
        names.push(...(await cluster.createPolicies(1, `extra-${rnd.int(0, 1e9)}-${created++}`)));
      } else if (names.length > 1) {
        const name = names.splice(rnd.int(0, names.length - 1), 1)[0]!;
        await api.delete({ resource: EgressGatewayPolicyResource, name, namespace: ns }, { signal });
      }
      writes++;
    } catch {
      // Aborted, or a 404/409 from a policy deleted meanwhile: churn goes on.
    }
    await delay(rnd.int(10, 100), undefined, { signal }).catch(() => {});
  }
  return writes;
}

async function runSeed(seed: number): Promise<boolean> {
  const rnd = random(seed);
  const started = Date.now();
  const cluster = await startShardCluster({ pools: 4 });
  const audit = new AbortController();
  const auditing = auditAllocations(cluster.admin, { signal: audit.signal });
  try {
    const live = ['shard-0', 'shard-1', 'shard-2'];
    let next = live.length;
    await Promise.all(live.map((n) => cluster.start(n)));
    const names = await cluster.createPolicies(POLICIES);
    const converge = async (what: string, timeoutMs = 600_000) => {
      try {
        await waitFor(what, () => cluster.converged(live), { timeoutMs, intervalMs: 1000 });
      } catch (err) {
        // Everything that is not converged, not only the first problem the wait reported.
        print(`seed ${seed}: ${what} failed; the state now:\n${await cluster.diagnose(live).catch(String)}`);
        throw err;
      }
    };
    // The first convergence allocates every policy: bounded by their number, not by a ring change.
    const first = Date.now();
    await converge('the ring to converge', Math.max(600_000, POLICIES * 1000));
    const initial = `${POLICIES} policies converged in ${((Date.now() - first) / 1000).toFixed(1)} s`;
    const steps: string[] = [];
    let writes = 0;
    for (let step = 0; step < STEPS; step++) {
      const stop = new AbortController();
      const churning = churn({ cluster, rnd, names, signal: stop.signal });
      await delay(rnd.int(500, 3000)); // churn before the ring changes
      // The first change of every run is the worst case, a SIGKILL; the others are drawn.
      const action =
        step === 0
          ? 'kill'
          : live.length <= 2
            ? 'add'
            : live.length >= 4
              ? rnd.pick(['kill', 'stop'])
              : rnd.pick(['kill', 'stop', 'add']);
      const at = Date.now();
      if (action === 'add') {
        const name = `shard-${next++}`;
        await cluster.start(name);
        live.push(name);
      } else {
        const name = live.splice(rnd.int(0, live.length - 1), 1)[0]!;
        await (action === 'kill' ? cluster.kill(name) : cluster.stop(name));
        steps.push(`${action} ${name}`);
        if (action === 'kill') {
          const replacement = `shard-${next++}`;
          await cluster.start(replacement);
          live.push(replacement);
        }
      }
      if (action === 'add') steps.push(`add ${live.at(-1)}`);
      await delay(rnd.int(500, 3000)); // churn during the move
      stop.abort();
      writes += await churning;
      await converge(`step ${step + 1} (${steps.at(-1)}) to converge`);
      steps[steps.length - 1] += ` (${((Date.now() - at) / 1000).toFixed(1)} s)`;
    }
    audit.abort();
    const { checks, duplicates } = await auditing;
    const log = cluster.reconciles();
    const found = overlaps(log);
    const ok = found.length === 0 && duplicates.length === 0;
    print(
      `seed ${seed}: ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s — ${initial}; ${steps.join(', ')}; ` +
        `${log.length} reconciles on ${new Set(log.map((r) => r.shard)).size} replicas, ${writes} policy writes, ` +
        `${found.length} overlaps, ${checks} pool audits, ${duplicates.length} addresses held twice`,
    );
    for (const f of [...found, ...duplicates].slice(0, 10)) print(`  ${f}`);
    return ok;
  } finally {
    audit.abort();
    await auditing;
    await cluster[Symbol.asyncDispose]();
  }
}

let failed = 0;
for (let i = 0; i < RUNS; i++) if (!(await runSeed(FIRST_SEED + i))) failed++;
print(`${RUNS - failed}/${RUNS} seeded churn runs without overlap or double allocation`);
process.exitCode = failed > 0 ? 1 : 0;
