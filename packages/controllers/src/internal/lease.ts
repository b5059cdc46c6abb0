import { builtins, defineResource, type KubeObject } from '@kubeloom/kube';

/** The spec of a coordination.k8s.io/v1 Lease, as JSON (times are RFC 3339 strings with microseconds). */
export interface LeaseSpecJson {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | Date | null;
  renewTime?: string | Date | null;
  leaseTransitions?: number | null;
  [other: string]: unknown;
}

/** A Lease object as JSON. */
export interface LeaseJson extends KubeObject {
  spec?: LeaseSpecJson;
}

/**
 * The Lease resource typed as its JSON: client-node's `V1Lease` (what `builtins.Lease` carries)
 * types the times as `Date`, while the API sends RFC 3339 strings.
 */
export const LeaseResource = defineResource<LeaseJson>(builtins.Lease);

/** `metav1.MicroTime` text: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The record's lease duration in ms, or 0 when missing or nonsense. */
export function recordLeaseDurationMs(spec: LeaseSpecJson | undefined): number {
  const s = spec?.leaseDurationSeconds;
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

/** The record's transitions count, or 0 when missing or nonsense. */
export function recordTransitions(spec: LeaseSpecJson | undefined): number {
  const t = spec?.leaseTransitions;
  return typeof t === 'number' && Number.isInteger(t) && t >= 0 ? t : 0;
}
