/**
 * The processors a reconcile runs in order (design §2.7.4): finalizer guard → IP pool →
 * Deployment → status. Each reads the cache, decides with the pure domain modules, and writes
 * only when something changed; each write carries a precondition (resourceVersion, or a field
 * manager that owns what it applies), so a stale cache makes a write fail, never wrong.
 *
 * @module
 */

import type { ApplyConfiguration } from '@kubeloom/kclient';
import { builtins, ignoreNotFound, type KubeClient } from '@kubeloom/kube';
import type { V1Deployment } from '@kubernetes/client-node';
import { type AllocationPlan, planAllocation, releaseAllocations } from '../domain/allocation.ts';
import { isUpToDate, type Ownership, ownership, renderGateway } from '../domain/gateway.ts';
import { jsonEqual } from '../domain/json-equal.ts';
import { desiredPolicyStatus } from '../domain/policy-status.ts';
import type { OrphanCandidate } from '../domain/pool-summary.ts';
import {
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { FIELD_MANAGER, type OperatorClients } from './clients.ts';
import type { PoolWriter } from './pool-writer.ts';

/** The finalizer that holds a policy until its addresses are back in the pool. */
export const FINALIZER = 'egress.kubeloom.dev/release-ips';

/** What every processor needs. */
export interface ProcessorContext {
  readonly kube: KubeClient;
  readonly clients: OperatorClients;
  /** Every pool-status write goes through it (one write per pool for the changes pending at once). */
  readonly pools: PoolWriter;
  readonly signal: AbortSignal;
  readonly now: () => Date;
}

/** Adds the finalizer before anything is allocated; returns the policy as stored afterwards. */
export async function ensureFinalizer(
  ctx: ProcessorContext,
  policy: EgressGatewayPolicy,
): Promise<EgressGatewayPolicy> {
  const finalizers = policy.metadata?.finalizers ?? [];
  if (finalizers.includes(FINALIZER)) return policy;
  return ctx.clients.policies.update(
    { ...policy, metadata: { ...policy.metadata, finalizers: [...finalizers, FINALIZER] } },
    { signal: ctx.signal },
  );
}

/** Deletion: return the policy's addresses to its pool (if the pool still exists), then drop the finalizer. */
export async function finalize(ctx: ProcessorContext, policy: EgressGatewayPolicy): Promise<void> {
  const finalizers = policy.metadata?.finalizers ?? [];
  if (!finalizers.includes(FINALIZER)) return;
  const uid = policy.metadata?.uid ?? '';
  await ctx.pools.write(policy.spec.ipamPoolRef.name, (pool) => releaseAllocations(pool, uid), ctx.signal);
  await ignoreNotFound(
    ctx.clients.policies.update(
      { ...policy, metadata: { ...policy.metadata, finalizers: finalizers.filter((f) => f !== FINALIZER) } },
      { signal: ctx.signal },
    ),
  );
}

/** The IP pool processor's outcome. */
export interface PoolOutcome {
  readonly poolFound: boolean;
  readonly egressIPs: readonly string[];
  readonly failure?: AllocationPlan['failure'];
}

/** Allocates the policy's addresses in its pool (sticky, lowest free first; see `planAllocation`). */
export async function allocate(ctx: ProcessorContext, policy: EgressGatewayPolicy): Promise<PoolOutcome> {
  let plan: AllocationPlan | undefined;
  const written = await ctx.pools.write(
    policy.spec.ipamPoolRef.name,
    (pool) => {
      plan = planAllocation(pool, policy, ctx.now());
      return plan;
    },
    ctx.signal,
  );
  if (!written || !plan) return { poolFound: false, egressIPs: [] };
  return plan.failure
    ? { poolFound: true, egressIPs: plan.egressIPs, failure: plan.failure }
    : { poolFound: true, egressIPs: plan.egressIPs };
}

/** The Deployment processor's outcome. */
export interface GatewayOutcome {
  readonly deployment?: V1Deployment | undefined;
  readonly ownership: Ownership;
}

/**
 * Converges the gateway Deployment by server-side apply with {@link FIELD_MANAGER} when the
 * policy holds all its addresses. A Deployment of that name that this policy does not control is
 * reported, never adopted: when the cache (gateway-labelled Deployments only) has none, a live
 * read confirms the name is free before the apply creates it (only then: a policy still waiting
 * for addresses costs no API read).
 */
export async function convergeGateway(
  ctx: ProcessorContext,
  policy: EgressGatewayPolicy,
  pool: PoolOutcome,
): Promise<GatewayOutcome> {
  const desired = renderGateway(policy, pool.egressIPs);
  const name = desired.metadata?.name ?? '';
  const namespace = desired.metadata?.namespace ?? '';
  // Converge when the policy holds all its addresses; also scale an existing gateway to zero once
  // it holds none (its old addresses may be handed to another policy).
  const ready = pool.poolFound && !pool.failure && pool.egressIPs.length > 0;
  let existing = ctx.clients.deployments.get(name, namespace);
  // Only before creating: a policy waiting for addresses does not read the API on every reconcile.
  if (!existing && ready)
    existing = (await ignoreNotFound(
      ctx.kube.api.get({ resource: builtins.Deployment, name, namespace }, { signal: ctx.signal }),
    )) as V1Deployment | undefined;
  const owner = ownership(existing, policy);
  if (owner === 'foreign') return { deployment: existing, ownership: owner };
  const drain = owner === 'ours' && pool.egressIPs.length === 0;
  if ((!ready && !drain) || isUpToDate(existing, desired)) return { deployment: existing, ownership: owner };
  const applied = await ctx.clients.deployments.apply(desired as ApplyConfiguration<V1Deployment>, {
    fieldManager: FIELD_MANAGER,
    force: true,
    signal: ctx.signal,
  });
  return { deployment: applied, ownership: 'ours' };
}

/** Writes the policy's status through `/status` only when it differs from the stored one. */
export async function writeStatus(
  ctx: ProcessorContext,
  policy: EgressGatewayPolicy,
  observed: { readonly pool: PoolOutcome; readonly gateway: GatewayOutcome },
): Promise<void> {
  const status = desiredPolicyStatus({
    policy,
    poolFound: observed.pool.poolFound,
    egressIPs: observed.pool.egressIPs,
    allocationFailure: observed.pool.failure,
    deployment: observed.gateway.deployment,
    ownership: observed.gateway.ownership,
    now: ctx.now(),
  });
  if (jsonEqual(status, policy.status ?? {})) return;
  await ctx.clients.policies.updateStatus({ ...policy, status }, { signal: ctx.signal });
}

/** Which pool {@link summarizePool} summarizes, and where its orphan candidates come from. */
export interface PoolSummaryRequest {
  readonly name: string;
  /** Allocations of the cached pool whose owner the cache does not know (the pool usage, or the uid index). */
  readonly candidates: (pool: IPAMPool) => readonly OrphanCandidate[];
  /**
   * Whether a candidate is still this replica's to confirm, asked again right before its live read
   * (a sharded replica's share can change while the pass reads). Default: all are.
   */
  readonly owns?: (candidate: OrphanCandidate) => boolean;
}

/**
 * The pool summary: counters and conditions, and orphan reclaim — an allocation whose owner is not
 * in the cache is released only after a live read shows the policy gone (404, or another uid).
 */
export async function summarizePool(ctx: ProcessorContext, request: PoolSummaryRequest): Promise<void> {
  const { name } = request;
  const pool = ctx.clients.pools.get(name);
  if (!pool) return;
  const orphans = new Set<string>();
  for (const candidate of request.candidates(pool)) {
    if (orphans.has(candidate.uid) || request.owns?.(candidate) === false) continue;
    const live = (await ignoreNotFound(
      ctx.kube.api.get(
        { resource: EgressGatewayPolicyResource, name: candidate.name, namespace: candidate.namespace },
        {
          signal: ctx.signal,
        },
      ),
    )) as EgressGatewayPolicy | undefined;
    if (!live || live.metadata?.uid !== candidate.uid) orphans.add(candidate.uid);
  }
  await ctx.pools.write(
    name,
    (current) => {
      const allocations = (current.status?.allocations ?? []).filter((a) => !orphans.has(a.owner.uid));
      return { allocations, changed: allocations.length !== (current.status?.allocations ?? []).length };
    },
    ctx.signal,
  );
}
