import type { KubeObject } from '@kubeloom/kube';

/** The label on every shard Lease of a ring; its value is the ring's name. */
export const RING_LABEL = 'sharding.kubeloom.dev/ring';

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The label keys of one ring (see {@link shardLabels}). */
export interface ShardLabels {
  /** The ring's name. */
  readonly ring: string;
  /** On sharded objects: the identity of the shard that owns the object. */
  readonly shard: string;
  /** On sharded objects: set by the sharder to ask the owner to let go of the object. */
  readonly drain: string;
  /**
   * On sharded objects: the shard that adopts the object while its owner is fenced (the shard it
   * would go to if its owner left the ring), written by the sharder with the shard label.
   */
  readonly standby: string;
  /** On the ring's shard Leases: `sharding.kubeloom.dev/ring=<ring>`. */
  readonly leaseSelector: string;
}

/**
 * The label keys of a ring: `shard.kubeloom.dev/<ring>` (the owner's identity),
 * `drain.kubeloom.dev/<ring>` and `standby.kubeloom.dev/<ring>` (the adopter) on objects, `sharding.kubeloom.dev/ring=<ring>` on Leases.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#shardLabels}
 *
 * @throws TypeError when `ring` cannot be the name part of a label key (1–63 characters,
 *   alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric).
 */
export function shardLabels(ring: string): ShardLabels {
  if (typeof ring !== 'string' || ring.length > 63 || !NAME.test(ring)) {
    throw new TypeError(
      `sharding: the ring name ${JSON.stringify(ring)} must be 1–63 characters of [A-Za-z0-9-_.], starting ` +
        'and ending alphanumeric (it is the name part of the shard and drain label keys)',
    );
  }
  return {
    ring,
    shard: `shard.kubeloom.dev/${ring}`,
    drain: `drain.kubeloom.dev/${ring}`,
    standby: `standby.kubeloom.dev/${ring}`,
    leaseSelector: `${RING_LABEL}=${ring}`,
  };
}

/**
 * Checks a shard identity: it is a label value and a Lease name.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#validateShardIdentity}
 *
 * @throws TypeError saying what is wrong.
 */
export function validateShardIdentity(identity: string): void {
  if (
    typeof identity !== 'string' ||
    identity.length > 63 ||
    !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(identity)
  ) {
    throw new TypeError(
      `sharding: the shard identity ${JSON.stringify(identity)} must be 1–63 characters of [a-z0-9-.], starting ` +
        'and ending alphanumeric (it is the name of its Lease and the value of the shard label), e.g. the pod name',
    );
  }
}

/**
 * The default shard key of an object: `namespace/name` (`name` for cluster-scoped objects).
 * Pass your own `key` to the sharder to keep objects together: e.g. {@link controllerOwnerKey}.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#objectShardKey}
 */
export function objectShardKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/**
 * The shard key of an object's controller (its `ownerReferences` entry with `controller: true`,
 * in the object's namespace), or the object's own key when it has none: an owner and everything
 * it controls then land on one shard.
 *
 * @example
 * {@includeCode ./sharding-keys.example.test.ts#controllerOwnerKey}
 */
export function controllerOwnerKey(obj: KubeObject): string {
  const owner = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (!owner) return objectShardKey(obj);
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${owner.name}` : owner.name;
}
