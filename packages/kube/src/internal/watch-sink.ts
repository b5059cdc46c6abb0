import type { ApiClient, WatchEvent, WatchOptions } from '../api.ts';
import type { KubeObject } from '../object.ts';
import type { TypedResourceDescriptor } from '../resource.ts';

/**
 * Receives the events of a watch synchronously, in order, as each network chunk is decoded;
 * returning true ends the watch (its connection is closed).
 */
export type WatchEventSink<T extends KubeObject> = (event: WatchEvent<T>) => boolean;

/**
 * The key of an {@link ApiClient}'s optional push watch: the same stream as `watch`, but each
 * event is handed to a callback as soon as its chunk is decoded, so a consumer pays no promise,
 * microtask or async-iterator step per chunk or event. The informer uses it when the transport
 * has it (the HTTPS client, and wrappers that forward it) and falls back to `watch` otherwise.
 */
export const WATCH_SINK: unique symbol = Symbol('kubeloom.watchSink');

/**
 * The push watch's signature: settles when the watch ends (the server closed it, the sink
 * stopped it or the signal aborted), rejecting with what `watch` would throw. An exception of the
 * sink ends the watch and rejects with that exception.
 */
export type SinkWatch = <T extends KubeObject>(
  resource: TypedResourceDescriptor<T>,
  opts: WatchOptions,
  sink: WatchEventSink<T>,
) => Promise<void>;

/** The push watch of `api`, bound to it, or undefined when it has none. */
export function sinkWatchOf(api: ApiClient): SinkWatch | undefined {
  const fn = (api as ApiClient & { [WATCH_SINK]?: SinkWatch })[WATCH_SINK];
  return typeof fn === 'function' ? fn.bind(api) : undefined;
}
