import { shardLabels } from '@kubeloom/controllers';
import type { UnionMember } from '@kubeloom/kube';
import { type LabelSelector, labelSelectorString } from './label-selector.ts';
import { type ShardRef, shardSelector } from './sharded-client.ts';

/** Options of {@link shardUnionMembers}. */
export interface ShardUnionMembersOptions extends ShardRef {
  /** The ring's fenced shards (`ShardRing.fenced()` of `@kubeloom/controllers`). */
  readonly fenced: readonly string[];
  /** One namespace; all when omitted. */
  readonly namespace?: string | undefined;
  /** Joined with every member's selector, e.g. `app.kubernetes.io/name=egress-gateway`. */
  readonly labelSelector?: LabelSelector | undefined;
}

/**
 * The scopes of a replica's cache of a sharded resource with adoption: its own share
 * (`shard.kubeloom.dev/<ring>=<identity>`) and, for each fenced shard D, D's objects that name this
 * replica as their standby (`shard.kubeloom.dev/<ring>=D,standby.kubeloom.dev/<ring>=<identity>`),
 * so it can reconcile them before the sharder relabels them (see `shardedReconciler`'s
 * `isFenced`). Pass them to `createUnionClient` and again to its `setMembers` whenever the ring's
 * fenced shards change.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#shardUnionMembers}
 *
 * @throws TypeError for a ring name that cannot be a label key, and SelectorError (from
 *   `@kubeloom/kube`) for an identity or shard that cannot be a label value or an invalid `selector`.
 */
export function shardUnionMembers(opts: ShardUnionMembersOptions): UnionMember[] {
  const { ring, identity, namespace, labelSelector } = opts;
  const labels = shardLabels(ring);
  const other = labelSelectorString(labelSelector);
  const scope = namespace !== undefined ? { namespace } : {};
  const members: UnionMember[] = [
    { ...scope, labelSelector: shardSelector({ ring, identity }, labelSelector) },
  ];
  for (const fenced of [...new Set(opts.fenced)].sort()) {
    if (fenced === identity) continue;
    const adopt = `${labels.shard}=${fenced},${labels.standby}=${identity}`;
    members.push({ ...scope, labelSelector: labelSelectorString(other ? `${other},${adopt}` : adopt)! });
  }
  return members;
}
