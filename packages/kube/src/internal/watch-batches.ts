import type { ApiClient, WatchEvent, WatchOptions } from '../api.ts';
import type { KubeObject } from '../object.ts';
import type { TypedResourceDescriptor } from '../resource.ts';

/**
 * The key of an {@link ApiClient}'s optional batched watch: the same stream as `watch`, but the
 * events that arrived together (one network chunk) come as one array, so a consumer pays one
 * async step per chunk instead of one per event. The informer uses it when the transport has it
 * (the HTTPS client, and wrappers that forward it) and falls back to `watch` otherwise.
 */
export const WATCH_BATCHES: unique symbol = Symbol('kubeloom.watchBatches');

/** The batched watch's signature. */
export type WatchBatches = <T extends KubeObject>(
  resource: TypedResourceDescriptor<T>,
  opts?: WatchOptions,
) => AsyncIterable<readonly WatchEvent<T>[]>;

/** The batched watch of `api`, bound to it, or undefined when it has none. */
export function batchedWatchOf(api: ApiClient): WatchBatches | undefined {
  const fn = (api as ApiClient & { [WATCH_BATCHES]?: WatchBatches })[WATCH_BATCHES];
  return typeof fn === 'function' ? fn.bind(api) : undefined;
}
