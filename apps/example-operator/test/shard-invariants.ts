/**
 * The operator's invariants checked across the replicas of a sharded run: no policy reconciled by
 * two replicas at once (from every replica's reconcile records), no address held twice (from the
 * pools' allocation tables).
 *
 * @module
 */

import { setTimeout as delay } from 'node:timers/promises';
import type { KubeClient } from '@kubeloom/kube';
import { type IPAMPool, IPAMPoolResource } from '../src/generated/egress.kubeloom.dev/v1alpha1/index.ts';

/** One reconcile of one policy by one replica (epoch milliseconds; `end` undefined: never finished). */
export interface ReconcileRecord {
  readonly shard: string;
  readonly key: string;
  readonly start: number;
  readonly end: number | undefined;
}

/**
 * Pairs of reconciles of one policy by two replicas that overlapped in time (a record without an
 * end overlaps everything after its start).
 */
export function overlaps(records: readonly ReconcileRecord[]): string[] {
  const byKey = new Map<string, ReconcileRecord[]>();
  for (const r of records) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  const found: string[] = [];
  for (const [key, list] of byKey) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++)
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i]!;
        const b = sorted[j]!;
        if (b.start >= (a.end ?? Number.POSITIVE_INFINITY)) break;
        if (a.shard !== b.shard)
          found.push(`${key}: ${a.shard} [${a.start}, ${a.end}] and ${b.shard} [${b.start}, ${b.end}]`);
      }
  }
  return found;
}

/** Addresses held twice in the pools' allocation tables (across all pools), as `ip: uid, uid`. */
function duplicateAllocations(pools: readonly IPAMPool[]): string[] {
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const pool of pools)
    for (const a of pool.status?.allocations ?? []) {
      const other = seen.get(a.ip);
      if (other !== undefined) twice.push(`${a.ip}: ${other}, ${a.owner.uid}`);
      seen.set(a.ip, a.owner.uid);
    }
  return twice;
}

/**
 * Lists the pools every `intervalMs` until `signal` aborts and records any address held twice;
 * resolves to what it saw.
 */
export async function auditAllocations(
  admin: KubeClient,
  options: { readonly signal: AbortSignal; readonly intervalMs?: number },
): Promise<{ checks: number; duplicates: string[] }> {
  const duplicates: string[] = [];
  let checks = 0;
  while (!options.signal.aborted) {
    const pools = (await admin.api.list(IPAMPoolResource, {}).catch(() => undefined))?.items as
      | IPAMPool[]
      | undefined;
    if (pools) {
      checks++;
      duplicates.push(...duplicateAllocations(pools));
    }
    await delay(options.intervalMs ?? 500, undefined, { signal: options.signal }).catch(() => {});
  }
  return { checks, duplicates };
}
