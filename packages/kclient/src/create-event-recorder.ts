import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  builtins,
  defineResource,
  isAlreadyExists,
  isNotFound,
  isTimeout,
  isTooManyRequests,
  type KubeClient,
  type KubeObject,
  type Logger,
  serializeError,
  toApiError,
} from '@kubeloom/kube';
import type { EventRecorder, EventRecorderOptions, RecordedEvent } from './event-recorder.ts';
import { type EventBody, EventCorrelator, type InvolvedObject } from './internal/event-correlator.ts';

/** The Event resource, typed as the body the recorder writes. */
const EventResource = defineResource<EventBody>(builtins.Event);

interface Pending {
  readonly event: EventBody;
}

/** RFC 3339 with second precision, as `metav1.Time` serializes. */
function timestamp(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

function retriable(err: unknown): boolean {
  if (isTooManyRequests(err) || isTimeout(err)) return true;
  const api = toApiError(err);
  if (api === undefined) return true; // a transport failure
  return api.code === 0 || api.code >= 500;
}

/**
 * Creates an {@link EventRecorder}. No I/O happens until an event is written.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createEventRecorder}
 *
 * @throws TypeError when `options.component` is empty.
 */
export function createEventRecorder(kube: KubeClient, options: EventRecorderOptions): EventRecorder {
  return new Recorder(kube, options);
}

class Recorder implements EventRecorder {
  readonly #kube: KubeClient;
  readonly #component: string;
  readonly #host: string;
  readonly #maxQueued: number;
  readonly #maxAttempts: number;
  readonly #retryDelayMs: number;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #correlator: EventCorrelator;
  readonly #queue: Pending[] = [];
  readonly #stop = new AbortController();
  readonly #detachSignal: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #closed = false;
  #seq = 0;

  constructor(kube: KubeClient, options: EventRecorderOptions) {
    if (!options.component) throw new TypeError('EventRecorder: options.component is required');
    this.#kube = kube;
    this.#component = options.component;
    this.#host = options.host ?? hostname();
    this.#maxQueued = Math.max(1, options.maxQueued ?? 1000);
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.#retryDelayMs = options.retryDelayMs ?? 1000;
    this.#log =
      options.logger ?? kube.logger.child({ component: 'event-recorder', reporter: options.component });
    this.#now = options.now ?? (() => new Date());
    this.#correlator = new EventCorrelator({
      now: () => this.#now().getTime(),
      maxSimilar: options.maxSimilarEvents,
      aggregationWindowMs: options.aggregationWindowMs,
      spamBurst: options.spamBurst,
      spamRefillIntervalMs: options.spamRefillIntervalMs,
    });
    const signal = options.signal;
    if (signal?.aborted) this.#abort();
    else if (signal) {
      const onAbort = (): void => this.#abort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** {@inheritDoc EventRecorder.write} */
  write(obj: KubeObject, { type, reason, message }: RecordedEvent): void {
    if (this.#closed) {
      this.#log.debug('event dropped: the recorder is shut down', { reason });
      return;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      this.#log.error('event dropped: unsupported event type', { type, reason });
      return;
    }
    const ref = this.#reference(obj);
    if (!ref) {
      this.#log.error('event dropped: the object needs apiVersion, kind and metadata.name', {
        object: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata?.name },
        reason,
      });
      return;
    }
    const now = timestamp(this.#now());
    const event: EventBody = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.#eventName(ref.name), namespace: ref.namespace || 'default' },
      involvedObject: ref,
      reason,
      message,
      type,
      source: { component: this.#component, host: this.#host },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: this.#component,
      reportingInstance: this.#host,
    };
    if (this.#queue.length >= this.#maxQueued) {
      this.#log.warn('event dropped: too many events waiting to be written', {
        queued: this.#queue.length,
        object: `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`,
        reason,
      });
      return;
    }
    this.#queue.push({ event });
    // start writing after the caller's synchronous work: write() itself does no I/O
    this.#running ??= Promise.resolve().then(() => this.#drain());
  }

  /** Resolves once every event written so far was sent (or given up on). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /**
   * Stops accepting events, writes the ones already queued, and resolves when done (like
   * client-go's `Broadcaster.Shutdown`). Abort the recorder's `signal` to drop them instead.
   */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.flush();
    this.#detachSignal?.();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  #abort(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#stop.abort();
    this.#detachSignal?.();
  }

  #reference(obj: KubeObject): InvolvedObject | undefined {
    const name = obj.metadata?.name;
    if (!obj.apiVersion || !obj.kind || !name) return undefined;
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name,
      ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
      ...(obj.metadata?.uid ? { uid: obj.metadata.uid } : {}),
      ...(obj.metadata?.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
    };
  }

  /** `<name>.<hex nanoseconds>`, unique per recorder even within one millisecond. */
  #eventName(objectName: string): string {
    const ns = BigInt(this.#now().getTime()) * 1_000_000n + BigInt(this.#seq++ % 1_000_000);
    return `${objectName}.${ns.toString(16)}`;
  }

  async #drain(): Promise<void> {
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        if (this.#stop.signal.aborted) return;
        await this.#record(next.event);
      }
    } finally {
      this.#running = undefined;
    }
  }

  async #record(fresh: EventBody): Promise<void> {
    const correlation = this.#correlator.correlate(fresh, () => this.#eventName(fresh.involvedObject.name));
    if (correlation.skip) {
      this.#log.debug('event dropped by the spam filter', { reason: fresh.reason });
      return;
    }
    const { event, key, patch } = correlation;
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.#send(event, patch);
        this.#correlator.recordWritten(key, stored);
        return;
      } catch (err) {
        if (isAlreadyExists(err)) return; // same name written already: nothing to do
        if (attempt >= this.#maxAttempts || !retriable(err) || this.#stop.signal.aborted) {
          this.#log.error('could not write event; dropping it', {
            event: `${event.metadata.namespace}/${event.metadata.name}`,
            reason: event.reason,
            attempts: attempt,
            err: serializeError(err),
          });
          return;
        }
        const aborted = await sleep(this.#retryDelayMs, false, { signal: this.#stop.signal }).catch(
          () => true,
        );
        if (aborted) return;
      }
    }
  }

  async #send(event: EventBody, patch: object | undefined): Promise<EventBody> {
    const signal = this.#stop.signal;
    if (patch) {
      try {
        const { name, namespace } = event.metadata;
        return await this.#kube.api.patch({ resource: EventResource, name, namespace }, patch, {
          type: 'merge',
          signal,
        });
      } catch (err) {
        // the Event was deleted (or expired): create it again, with the count so far
        if (!isNotFound(err)) throw err;
      }
    }
    const { resourceVersion: _rv, ...metadata } = event.metadata;
    return await this.#kube.api.create(EventResource, { ...event, metadata }, { signal });
  }
}
