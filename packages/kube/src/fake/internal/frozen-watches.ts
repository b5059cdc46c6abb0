import type { WatchOptions } from '../../api.ts';

/** The options of watches whose events may carry the stored (frozen) objects themselves. */
const frozenWatches = new WeakSet<WatchOptions>();

/** A copy of `opts` that asks for a watch of frozen objects (see `WATCH_FROZEN`). */
export function frozenWatchOptions(opts: WatchOptions = {}): WatchOptions {
  const copy = { ...opts };
  frozenWatches.add(copy);
  return copy;
}

/** True when `opts` came from {@link frozenWatchOptions}. */
export function isFrozenWatch(opts: WatchOptions): boolean {
  return frozenWatches.has(opts);
}
