import type { ApiClient, WatchEvent, WatchOptions } from '../api.ts';
import type { KubeObject } from '../object.ts';
import type { TypedResourceDescriptor } from '../resource.ts';

/**
 * The key of an {@link ApiClient}'s optional watch of deep-frozen objects: the same stream as
 * `watch`, but an event's object may be frozen and shared with the server's own state (an
 * in-memory server has no wire to copy across), so the consumer must not change it. The
 * informer uses it when its transform leaves a frozen object alone (the default one), and
 * `watch` otherwise.
 */
export const WATCH_FROZEN: unique symbol = Symbol('kubeloom.watchFrozen');

/** The frozen watch's signature. */
export type FrozenWatch = <T extends KubeObject>(
  resource: TypedResourceDescriptor<T>,
  opts?: WatchOptions,
) => AsyncIterable<WatchEvent<T>>;

/** The frozen watch of `api`, bound to it, or undefined when it has none. */
export function frozenWatchOf(api: ApiClient): FrozenWatch | undefined {
  const fn = (api as ApiClient & { [WATCH_FROZEN]?: FrozenWatch })[WATCH_FROZEN];
  return typeof fn === 'function' ? fn.bind(api) : undefined;
}
