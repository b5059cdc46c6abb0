import { shardLabels } from '@kubeloom/controllers';
import type { KubeClient, KubeObject, TypedResourceDescriptor } from '@kubeloom/kube';
import { createClient } from './create-client.ts';
import type { Client, ClientOptions } from './interfaces.ts';
import { type LabelSelector, labelSelectorString } from './label-selector.ts';

/** Which shard of which ring (see `@kubeloom/controllers`' `createShardMember`). */
export interface ShardRef {
  /** The ring's name. */
  readonly ring: string;
  /** The shard's identity. */
  readonly identity: string;
}

/**
 * The label selector of one shard's objects, `shard.kubeloom.dev/<ring>=<identity>`, joined with
 * `selector` when given: pass it as an informer's or client's `labelSelector` so the API server
 * sends this replica only its share.
 *
 * @example
 * {@includeCode ./doc-examples-helpers.test.ts#shardSelector}
 *
 * @throws TypeError for a ring name that cannot be a label key, and SelectorError (from
 *   `@kubeloom/kube`) for an identity that cannot be a label value or an invalid `selector`.
 */
export function shardSelector(shard: ShardRef, selector?: LabelSelector): string {
  const own = `${shardLabels(shard.ring).shard}=${shard.identity}`;
  const other = labelSelectorString(selector);
  return labelSelectorString(other ? `${other},${own}` : own)!;
}

/** Options of {@link createShardedClient}: a client's options plus the shard. */
export interface ShardedClientOptions<T extends KubeObject = KubeObject> extends ClientOptions<T>, ShardRef {}

/**
 * A client that lists, watches and caches only one shard's objects: {@link createClient} with
 * {@link shardSelector} as its server-side label selector (combined with `labelSelector` when
 * given). Resources you do not shard take a plain {@link createClient}. From
 * `src/example.test.ts`:
 *
 * {@includeCode ./example.test.ts#sharded}
 */
export function createShardedClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: ShardedClientOptions<T>,
): Client<T> {
  const { ring, identity, labelSelector, ...rest } = options;
  return createClient(kube, resource, {
    ...rest,
    labelSelector: shardSelector({ ring, identity }, labelSelector),
  });
}
