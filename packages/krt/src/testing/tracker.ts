import { createEventTracker, type EventTracker } from '@kubeloom/kclient/testing';
import type { EventStream, Registration } from '../core.ts';
import { tryGetKey } from '../keys.ts';

export { settle } from '@kubeloom/kclient/testing';

/** Options of {@link createCollectionTracker}. */
export interface CollectionTrackerOptions<T> {
  /** How an object is named in a record. Default: its krt key. */
  readonly keyOf?: ((obj: T) => string) | undefined;
  /** Register without the existing state (default: with). */
  readonly skipExisting?: boolean | undefined;
  /** How long one wait may take before it fails, in ms. Default 30 000. */
  readonly timeoutMs?: number | undefined;
}

/**
 * An `EventTracker` (the shape of `@kubeloom/kclient/testing`'s: `waitOrdered`, `waitUnordered`,
 * `waitFor`, `empty`, `events`, `all`, `clear`) registered on a collection, recording its events
 * as `"<type>/<key>"` strings.
 */
export interface CollectionTracker extends EventTracker<string> {
  /** The tracker's registration on the collection. */
  readonly registration: Registration;
  /** Unregisters: later events are not recorded. */
  stop(): void;
}

/**
 * Registers a {@link CollectionTracker} on `stream` (a collection), with the existing state
 * unless `skipExisting`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createCollectionTracker}
 */
export function createCollectionTracker<T>(
  stream: EventStream<T>,
  opts: CollectionTrackerOptions<T> = {},
): CollectionTracker {
  const keyOf = opts.keyOf ?? ((o: T) => tryGetKey(o) ?? JSON.stringify(o));
  const tracker = createEventTracker<string>({ timeoutMs: opts.timeoutMs });
  const registration = stream.registerBatch((events) => {
    for (const e of events) tracker.record(`${e.type}/${keyOf((e.new ?? e.old)!)}`);
  }, !opts.skipExisting);
  return Object.assign(tracker, { registration, stop: () => registration.remove() });
}
