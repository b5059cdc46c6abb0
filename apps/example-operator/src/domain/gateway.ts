/**
 * The gateway Deployment a policy owns (invariants I8, I9, I15): its name, labels, selector, owner
 * reference with the policy's uid, and a config hash on the pod template so a changed address set
 * rolls the pods. Pure: the controller server-side applies what {@link renderGateway} returns.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import type { V1Deployment, V1OwnerReference } from '@kubernetes/client-node';
import type { EgressGatewayPolicy } from '../generated/egress.kubeloom.dev/v1alpha1/index.ts';
import { jsonEqual } from './json-equal.ts';

/** The API group of the operator's resources. */
const GROUP = 'egress.kubeloom.dev';
/** `apiVersion` of the operator's resources. */
const API_VERSION = `${GROUP}/v1alpha1`;
/** Label on gateway Deployments and pods: which policy they serve. */
const POLICY_LABEL = `${GROUP}/policy`;
/** Pod-template annotation: hash of the gateway's configuration (egress IPs, destinations). */
export const CONFIG_HASH_ANNOTATION = `${GROUP}/config-hash`;
/** Deployment annotation: hash of everything the operator renders, to skip applies that change nothing. */
export const RENDERED_HASH_ANNOTATION = `${GROUP}/rendered-hash`;
/** The gateway's container image when the policy names none (the CRD default). */
const DEFAULT_IMAGE = 'registry.example/egress-gw:v0.1.0';

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * `text` if it is at most `max` characters, otherwise a prefix and an 8-character hash of the
 * whole, so distinct long names stay distinct. The prefix never ends in `-` or `.`.
 */
function fit(text: string, max: number): string {
  if (text.length <= max) return text;
  const prefix = text.slice(0, max - 9).replace(/[-.]+$/, '');
  return `${prefix}-${hash(text, 8)}`;
}

/** The gateway Deployment's name: `egw-<policy>`, shortened with a hash to 63 characters (pod hostnames). */
export function gatewayName(policyName: string): string {
  return fit(`egw-${policyName}`, 63);
}

/** The labels selecting a policy's gateway pods (a label value holds at most 63 characters). */
export function gatewayLabels(policyName: string): Record<string, string> {
  return { 'app.kubernetes.io/name': 'egress-gateway', [POLICY_LABEL]: fit(policyName, 63) };
}

/** A label map as a selector string, keys sorted (`status.gatewaySelector`, the scale subresource's selector). */
export function selectorString(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/** The controller owner reference a gateway Deployment carries. */
function ownerReference(policy: EgressGatewayPolicy): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: 'EgressGatewayPolicy',
    name: policy.metadata?.name ?? '',
    uid: policy.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Who controls an existing Deployment relative to `policy`. */
export type Ownership = 'absent' | 'ours' | 'foreign';

/**
 * `ours` only when the Deployment's controller reference names this policy's uid; a Deployment
 * without a controller, or controlled by anything else (another policy of the same name included),
 * is `foreign` and is never adopted.
 */
export function ownership(deployment: V1Deployment | undefined, policy: EgressGatewayPolicy): Ownership {
  if (!deployment) return 'absent';
  const controller = deployment.metadata?.ownerReferences?.find((r) => r.controller === true);
  return controller && controller.uid === policy.metadata?.uid && controller.kind === 'EgressGatewayPolicy'
    ? 'ours'
    : 'foreign';
}

/**
 * The gateway Deployment for `policy` holding `egressIPs`, as an apply configuration: only the
 * fields the operator owns; with no addresses, scaled to zero. The config hash covers the addresses and destinations, so changing
 * either rolls the pods; replicas, image and node selector roll them through the Deployment itself.
 */
export function renderGateway(policy: EgressGatewayPolicy, egressIPs: readonly string[]): V1Deployment {
  const name = policy.metadata?.name ?? '';
  const namespace = policy.metadata?.namespace ?? '';
  const labels = gatewayLabels(name);
  const destinations = [...(policy.spec.destinationCIDRs ?? [])].sort();
  const ips = [...egressIPs];
  const configHash = hash(JSON.stringify({ ips, destinations }), 16);
  const nodeSelector = policy.spec.gateway?.nodeSelector;
  const rendered: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: gatewayName(name), namespace, labels, ownerReferences: [ownerReference(policy)] },
    spec: {
      // A gateway without addresses runs no pods: its old addresses may belong to another policy now.
      replicas: ips.length === 0 ? 0 : (policy.spec.gateway?.replicas ?? 2),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { [CONFIG_HASH_ANNOTATION]: configHash } },
        spec: {
          ...(nodeSelector && Object.keys(nodeSelector).length > 0
            ? { nodeSelector: { ...nodeSelector } }
            : {}),
          securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'gateway',
              image: policy.spec.gateway?.image ?? DEFAULT_IMAGE,
              env: [
                { name: 'EGRESS_IPS', value: ips.join(',') },
                { name: 'DESTINATION_CIDRS', value: destinations.join(',') },
              ],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] },
              },
            },
          ],
        },
      },
    },
  };
  const annotations = { [RENDERED_HASH_ANNOTATION]: hash(JSON.stringify(rendered), 16) };
  return { ...rendered, metadata: { ...rendered.metadata, annotations } };
}

/**
 * Whether `existing` already is what `desired` renders, so no apply is needed: the same rendered
 * hash, and none of the fields users are tempted to edit (replicas, image, node selector, the pod
 * template's config hash) drifted since. Fields the apiserver defaults are not compared.
 */
export function isUpToDate(existing: V1Deployment | undefined, desired: V1Deployment): boolean {
  if (!existing) return false;
  const pick = (d: V1Deployment) => ({
    rendered: d.metadata?.annotations?.[RENDERED_HASH_ANNOTATION],
    replicas: d.spec?.replicas,
    config: d.spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION],
    image: d.spec?.template.spec?.containers.find((c) => c.name === 'gateway')?.image,
    nodeSelector: JSON.stringify(Object.entries(d.spec?.template.spec?.nodeSelector ?? {}).sort()),
  });
  const a = pick(existing);
  const b = pick(desired);
  return (Object.keys(b) as (keyof typeof b)[]).every((k) => a[k] === b[k]);
}

/**
 * Whether an update of a gateway Deployment changed anything its policy's reconcile reads: all of
 * it but `resourceVersion`, `managedFields` and the labels in `ignoredLabels` (a sharded
 * operator's ring labels, which the sharder rewrites when it moves a policy and its gateway, or
 * renames the standby; the reconcile never reads them). A relabel then enqueues no reconcile.
 */
export function gatewayChanged(
  old: V1Deployment,
  next: V1Deployment,
  ignoredLabels: readonly string[] = [],
): boolean {
  const strip = (d: V1Deployment) => {
    const { resourceVersion: _rv, managedFields: _mf, labels, ...metadata } = d.metadata ?? {};
    const kept = Object.entries(labels ?? {}).filter(([key]) => !ignoredLabels.includes(key));
    return { ...d, metadata: { ...metadata, labels: Object.fromEntries(kept) } };
  };
  return !jsonEqual(strip(old), strip(next));
}
