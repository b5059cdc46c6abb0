/**
 * The correlation of client-go's event recorder (`tools/record/events_cache.go`), applied to
 * each event before it is written:
 *
 * 1. **aggregation**: events that differ only in their message (same source, object, type and
 *    reason) are counted per aggregation window; from the `maxSimilar`-th distinct message on,
 *    they are replaced by one aggregate event whose message is prefixed with
 *    `(combined from similar events): `;
 * 2. **deduplication**: an event seen before (same key) is not created again: the existing one
 *    gets `count + 1`, the new `lastTimestamp` and message (a patch);
 * 3. **spam filter**: a token bucket per source and object (default burst 25, one more token
 *    every 5 minutes) drops events beyond the rate.
 */

/** A reference to the object an event is about (core/v1 `ObjectReference`). */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
}

/** A core/v1 Event as JSON, as the recorder writes it. */
export interface EventBody {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string | undefined };
  involvedObject: InvolvedObject;
  reason: string;
  message: string;
  type: string;
  source: { component: string; host?: string | undefined };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
}

/** Tuning of {@link EventCorrelator}; the defaults are client-go's. */
export interface CorrelatorOptions {
  /** Clock, in ms. */
  readonly now: () => number;
  /** Distinct messages per aggregation key before aggregating. Default 10. */
  readonly maxSimilar?: number | undefined;
  /** How long an aggregation record lives after its last event, in ms. Default 10 minutes. */
  readonly aggregationWindowMs?: number | undefined;
  /** Entries of each LRU cache. Default 4096. */
  readonly cacheSize?: number | undefined;
  /** Spam filter burst per source and object. Default 25. */
  readonly spamBurst?: number | undefined;
  /** Spam filter: one token comes back every this many ms. Default 5 minutes. */
  readonly spamRefillIntervalMs?: number | undefined;
}

/** What to do with one event. */
export type Correlation =
  | { readonly skip: true }
  | {
      readonly skip: false;
      /** The event to write (renamed and counted when it was seen before). */
      readonly event: EventBody;
      /** The dedup key, for {@link EventCorrelator.recordWritten}. */
      readonly key: string;
      /** Present when the event exists: the merge patch to send instead of a create. */
      readonly patch: { count: number; lastTimestamp: string; message: string } | undefined;
    };

/** The combined-message prefix of aggregate events (client-go's). */
const AGGREGATE_PREFIX = '(combined from similar events): ';

class Lru<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();
  constructor(max: number) {
    this.#max = max;
  }
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next().value as string;
      this.#map.delete(oldest);
    }
  }
}

interface AggregateRecord {
  readonly messages: Set<string>;
  lastMs: number;
}

interface Observation {
  readonly count: number;
  readonly firstTimestamp: string;
  readonly name: string;
  readonly resourceVersion: string | undefined;
}

interface Bucket {
  tokens: number;
  lastMs: number;
}

const SEP = '\u0000';

function objectParts(e: EventBody): string[] {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? '',
    o.kind,
    o.namespace ?? '',
    o.name,
    o.uid ?? '',
    o.apiVersion,
  ];
}

function aggregateKey(e: EventBody): string {
  return [...objectParts(e), e.type, e.reason, e.reportingComponent, e.reportingInstance].join(SEP);
}

function eventKey(e: EventBody): string {
  return [aggregateKey(e), e.message].join(SEP);
}

function spamKey(e: EventBody): string {
  return [...objectParts(e), e.type].join(SEP);
}

/** Aggregation, deduplication and spam filtering of events; see the module comment. */
export class EventCorrelator {
  readonly #now: () => number;
  readonly #maxSimilar: number;
  readonly #windowMs: number;
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #aggregates: Lru<AggregateRecord>;
  readonly #observations: Lru<Observation>;
  readonly #buckets: Lru<Bucket>;

  constructor(options: CorrelatorOptions) {
    this.#now = options.now;
    this.#maxSimilar = Math.max(1, options.maxSimilar ?? 10);
    this.#windowMs = options.aggregationWindowMs ?? 600_000;
    this.#burst = Math.max(1, options.spamBurst ?? 25);
    this.#refillMs = options.spamRefillIntervalMs ?? 300_000;
    const size = options.cacheSize ?? 4096;
    this.#aggregates = new Lru(size);
    this.#observations = new Lru(size);
    this.#buckets = new Lru(size);
  }

  /**
   * Correlates `event` (fresh: count 1, its own name and timestamps). `rename` gives the name of
   * a new aggregate event.
   */
  correlate(event: EventBody, rename: () => string): Correlation {
    const now = this.#now();
    const { event: aggregated, key } = this.#aggregate(event, now, rename);
    const { event: observed, patch } = this.#observe(aggregated, key);
    if (!this.#allow(observed, now)) return { skip: true };
    return { skip: false, event: observed, key, patch };
  }

  /** Remembers what the server stored (its name and resourceVersion) under `key`. */
  recordWritten(key: string, stored: EventBody): void {
    this.#observations.set(key, {
      count: stored.count,
      firstTimestamp: stored.firstTimestamp,
      name: stored.metadata.name,
      resourceVersion: stored.metadata.resourceVersion,
    });
  }

  #aggregate(event: EventBody, now: number, rename: () => string): { event: EventBody; key: string } {
    const akey = aggregateKey(event);
    let record = this.#aggregates.get(akey);
    if (!record || now - record.lastMs > this.#windowMs) record = { messages: new Set(), lastMs: now };
    record.messages.add(event.message);
    record.lastMs = now;
    this.#aggregates.set(akey, record);
    if (record.messages.size < this.#maxSimilar) return { event, key: eventKey(event) };
    // do not grow the set further: forget one message
    const any = record.messages.values().next().value as string;
    record.messages.delete(any);
    return {
      event: {
        ...event,
        metadata: { name: rename(), namespace: event.metadata.namespace },
        message: `${AGGREGATE_PREFIX}${event.message}`,
        count: 1,
      },
      key: akey,
    };
  }

  #observe(
    event: EventBody,
    key: string,
  ): { event: EventBody; patch: { count: number; lastTimestamp: string; message: string } | undefined } {
    const last = this.#observations.get(key);
    let observed = event;
    let patch: { count: number; lastTimestamp: string; message: string } | undefined;
    if (last && last.count > 0) {
      observed = {
        ...event,
        metadata: {
          name: last.name,
          namespace: event.metadata.namespace,
          resourceVersion: last.resourceVersion,
        },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: observed.count, lastTimestamp: observed.lastTimestamp, message: observed.message };
    }
    this.recordWritten(key, observed);
    return { event: observed, patch };
  }

  #allow(event: EventBody, now: number): boolean {
    const key = spamKey(event);
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, lastMs: now };
    if (this.#refillMs > 0) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.lastMs) / this.#refillMs);
    }
    bucket.lastMs = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
