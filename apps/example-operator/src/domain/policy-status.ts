/**
 * The status a policy should have (invariants I10–I12): addresses, gateway, ready replicas, and
 * the `IPAllocated`, `GatewayAvailable` and `Ready` conditions. Pure: the controller writes it to
 * the `/status` subresource only when it differs from what is stored.
 *
 * @module
 */

import type { V1Deployment } from '@kubernetes/client-node';
import type {
  EgressGatewayPolicy,
  EgressGatewayPolicyStatus,
} from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import type { AllocationFailure } from './allocation.ts';
import { type ConditionInput, setCondition } from './conditions.ts';
import { gatewayLabels, gatewayName, type Ownership, selectorString } from './gateway.ts';

/** What the reconcile observed, as the status is derived from it. */
export interface PolicyObservation {
  /** The policy as read (its stored status is the starting point). */
  readonly policy: EgressGatewayPolicy;
  /** `false` when the referenced pool does not exist. */
  readonly poolFound: boolean;
  /** The addresses the policy holds after the pool write. */
  readonly egressIPs: readonly string[];
  /** Why it holds fewer than it asks for, if it does. */
  readonly allocationFailure?: { readonly reason: AllocationFailure; readonly message: string } | undefined;
  /** The gateway Deployment by its name, if one exists. */
  readonly deployment?: V1Deployment | undefined;
  /** Who controls that Deployment. */
  readonly ownership: Ownership;
  /** The clock, for transition times. */
  readonly now: Date;
}

function allocated(o: PolicyObservation): ConditionInput {
  const want = o.policy.spec.ipCount ?? 1;
  if (!o.poolFound)
    return {
      type: 'IPAllocated',
      status: 'False',
      reason: 'PoolNotFound',
      message: `IPAMPool ${o.policy.spec.ipamPoolRef.name} does not exist`,
    };
  if (o.allocationFailure)
    return {
      type: 'IPAllocated',
      status: 'False',
      reason: o.allocationFailure.reason,
      message: o.allocationFailure.message,
    };
  if (o.egressIPs.length !== want)
    return {
      type: 'IPAllocated',
      status: 'False',
      reason: 'PoolExhausted',
      message: `holds ${o.egressIPs.length} of ${want} addresses`,
    };
  return {
    type: 'IPAllocated',
    status: 'True',
    reason: 'Allocated',
    message: `allocated ${o.egressIPs.join(', ')}`,
  };
}

function available(o: PolicyObservation, ipsReady: boolean): ConditionInput {
  const type = 'GatewayAvailable';
  const name = gatewayName(o.policy.metadata?.name ?? '');
  if (o.ownership === 'foreign')
    return {
      type,
      status: 'False',
      reason: 'OwnershipConflict',
      message: `Deployment ${name} exists and is not controlled by this policy; delete or rename it`,
    };
  if (!ipsReady || o.ownership === 'absent' || !o.deployment)
    return {
      type,
      status: 'False',
      reason: 'DeploymentNotCreated',
      message: ipsReady ? `Deployment ${name} is being created` : 'waiting for egress IPs',
    };
  const d = o.deployment;
  if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0))
    return {
      type,
      status: 'False',
      reason: 'DeploymentProgressing',
      message: `Deployment ${name} is rolling out`,
    };
  const availableReplicas = d.status?.availableReplicas ?? 0;
  if (availableReplicas < 1)
    return {
      type,
      status: 'False',
      reason: 'NoAvailableReplicas',
      message: `Deployment ${name} has no available replicas`,
    };
  return {
    type,
    status: 'True',
    reason: 'Available',
    message: `Deployment ${name} has ${availableReplicas} available replica${availableReplicas === 1 ? '' : 's'}`,
  };
}

/** The status `o.policy` should have: `observedGeneration` is the policy's generation, conditions carry it too. */
export function desiredPolicyStatus(o: PolicyObservation): EgressGatewayPolicyStatus {
  const generation = o.policy.metadata?.generation;
  const options = { now: o.now, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  const ip = allocated(o);
  const gw = available(o, ip.status === 'True');
  const ready: ConditionInput =
    ip.status !== 'True'
      ? { type: 'Ready', status: 'False', reason: 'IPNotAllocated', message: ip.message }
      : gw.status !== 'True'
        ? { type: 'Ready', status: 'False', reason: 'GatewayUnavailable', message: gw.message }
        : {
            type: 'Ready',
            status: 'True',
            reason: 'Ready',
            message: 'egress IPs allocated and gateway available',
          };
  let conditions = o.policy.status?.conditions;
  for (const c of [ip, gw, ready]) conditions = setCondition(conditions, c, options);
  const ours = o.ownership === 'ours' ? o.deployment : undefined;
  const name = o.policy.metadata?.name ?? '';
  return {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    egressIPs: [...o.egressIPs],
    ...(ours ? { gatewayDeployment: gatewayName(name) } : {}),
    readyReplicas: ours?.status?.readyReplicas ?? 0,
    gatewaySelector: selectorString(gatewayLabels(name)),
    conditions: conditions ?? [],
  };
}
