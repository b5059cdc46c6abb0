/**
 * The operator's typed clients (informer + lister + writer each), built in phase 1 with no I/O,
 * and the policy index by pool. Every cache is shared through the `KubeClient`.
 *
 * @module
 */

import {
  type Client,
  createClient,
  createUnionClient,
  type InformerIndex,
  type ShardRef,
  shardUnionMembers,
} from '@kubeloom/kclient';
import { builtins, type KubeClient } from '@kubeloom/kube';
import type { V1Deployment } from '@kubernetes/client-node';
import {
  createEgressGatewayPolicyClient,
  createIPAMPoolClient,
  type EgressGatewayPolicy,
  EgressGatewayPolicyResource,
  type IPAMPool,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';

/** The field manager of every write the operator makes (server-side apply included). */
export const FIELD_MANAGER = 'kubeloom-egress-operator';

/** The operator's view of the cluster. */
export interface OperatorClients {
  readonly policies: Client<EgressGatewayPolicy>;
  readonly pools: Client<IPAMPool>;
  /** Only gateway Deployments (by label): the operator never caches the cluster's other Deployments. */
  readonly deployments: Client<V1Deployment>;
  /** Policies by `spec.ipamPoolRef.name`. */
  readonly policiesByPool: InformerIndex<EgressGatewayPolicy>;
  /** Policies by uid (to tell orphan allocations from live ones). */
  readonly policiesByUid: InformerIndex<EgressGatewayPolicy>;
  /**
   * Sharded only: makes the policy and gateway caches also hold the objects of these fenced
   * shards that name this shard as their standby (adoption), besides its own. Returns
   * `undefined` when the set is unchanged, otherwise a promise of the caches holding the new
   * members (true), or false when they stopped first.
   */
  readonly adopt?: ((fenced: readonly string[]) => Promise<boolean> | undefined) | undefined;
}

/** The label every gateway Deployment carries (the Deployment informer's and the sharder's selector). */
export const GATEWAY_SELECTOR = 'app.kubernetes.io/name=egress-gateway';

/** Options of {@link createOperatorClients}. */
export interface OperatorClientsOptions {
  /** Watch policies and Deployments in this namespace only (pools are cluster-scoped). Default: all. */
  readonly namespace?: string | undefined;
  /**
   * Cache only this shard's policies and gateway Deployments (server-side label selector
   * `shard.kubeloom.dev/<ring>=<identity>`, plus the objects it adopts: see `adopt`); pools stay
   * whole. Default: every object.
   */
  readonly shard?: ShardRef | undefined;
}

/** Builds the clients and indexes; nothing is started (the `KubeClient` starts the informers). */
export function createOperatorClients(
  kube: KubeClient,
  options: OperatorClientsOptions = {},
): OperatorClients {
  const scope = options.namespace ? { namespace: options.namespace } : {};
  const shard = options.shard;
  const pools = createIPAMPoolClient(kube, { fieldManager: FIELD_MANAGER });
  if (!shard) {
    const policies = createEgressGatewayPolicyClient(kube, { ...scope, fieldManager: FIELD_MANAGER });
    const deployments = createClient<V1Deployment>(kube, builtins.Deployment, {
      ...scope,
      labelSelector: GATEWAY_SELECTOR,
      fieldManager: FIELD_MANAGER,
    });
    return withIndexes({ policies, pools, deployments });
  }
  // Sharded: one cache over this shard's own objects and those it adopts from fenced shards.
  const membersOf = (fenced: readonly string[], labelSelector?: string) =>
    shardUnionMembers({
      ring: shard.ring,
      identity: shard.identity,
      fenced,
      namespace: options.namespace,
      labelSelector,
    });
  const policies = createUnionClient(kube, EgressGatewayPolicyResource, {
    members: membersOf([]),
    fieldManager: FIELD_MANAGER,
  });
  const deployments = createUnionClient<V1Deployment>(kube, builtins.Deployment, {
    members: membersOf([], GATEWAY_SELECTOR),
    fieldManager: FIELD_MANAGER,
  });
  let adopted = '';
  const adopt = (fenced: readonly string[]): Promise<boolean> | undefined => {
    const next = [...fenced].sort().join(',');
    if (next === adopted) return undefined;
    adopted = next;
    policies.setMembers(membersOf(fenced));
    deployments.setMembers(membersOf(fenced, GATEWAY_SELECTOR));
    return Promise.all([policies.waitForMembers(), deployments.waitForMembers()]).then((ok) =>
      ok.every(Boolean),
    );
  };
  return { ...withIndexes({ policies, pools, deployments }), adopt };
}

function withIndexes(clients: {
  readonly policies: Client<EgressGatewayPolicy>;
  readonly pools: Client<IPAMPool>;
  readonly deployments: Client<V1Deployment>;
}): OperatorClients {
  const { policies, pools, deployments } = clients;
  return {
    policies,
    pools,
    deployments,
    policiesByPool: policies.index('byPool', (p) => [p.spec.ipamPoolRef.name]),
    policiesByUid: policies.index('byUid', (p) => (p.metadata?.uid ? [p.metadata.uid] : [])),
  };
}
