import type { KubeObject, Logger } from '@kubeloom/kube';

/**
 * The `type` of a Kubernetes Event: how severe it is. (Named so as not to be confused with the
 * add/update/delete `EventType` of `@kubeloom/krt`.)
 */
export type EventSeverity = 'Normal' | 'Warning';

/** Options of `createEventRecorder`. */
export interface EventRecorderOptions {
  /** The component that reports (`source.component`, `reportingComponent`), e.g. `my-controller`. */
  readonly component: string;
  /** The reporting host (`source.host`, `reportingInstance`). Default: `os.hostname()`. */
  readonly host?: string | undefined;
  /** Events waiting to be written at most; further events are dropped (and logged). Default 1000. */
  readonly maxQueued?: number | undefined;
  /** Attempts per event for retriable failures (5xx, 429, timeouts, connection errors). Default 3. */
  readonly maxAttempts?: number | undefined;
  /** Delay between attempts, in ms. Default 1000. */
  readonly retryDelayMs?: number | undefined;
  /** Distinct messages per object, type and reason before they are aggregated. Default 10. */
  readonly maxSimilarEvents?: number | undefined;
  /** Aggregation window, in ms. Default 10 minutes. */
  readonly aggregationWindowMs?: number | undefined;
  /** Events per object (and type) in a burst before the spam filter drops them. Default 25. */
  readonly spamBurst?: number | undefined;
  /** The spam filter gives one event back every this many ms. Default 5 minutes. */
  readonly spamRefillIntervalMs?: number | undefined;
  /** Where failures are logged. Default: the KubeClient's logger. */
  readonly logger?: Logger | undefined;
  /** The clock. Default `() => new Date()`. */
  readonly now?: (() => Date) | undefined;
  /** Aborting drops the events not yet written and stops the recorder (see {@link EventRecorder.shutdown}). */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link EventRecorder.write} records about an object: the Event's type, reason and message. */
export interface RecordedEvent {
  /** `Normal` or `Warning`. */
  readonly type: EventSeverity;
  /** UpperCamelCase and machine-readable, e.g. `ScalingReplicaSet`. */
  readonly reason: string;
  /** Human-readable. */
  readonly message: string;
}

/**
 * Records Kubernetes Events (core/v1 `Event`) about objects, as client-go's event recorder does
 * (Istio's `kclient.EventRecorder`):
 *
 * - {@link EventRecorder.write} never blocks and never throws: the event is queued and written
 *   in the background, in order; failures are logged (retried first when transient), never
 *   thrown; when `maxQueued` events wait, further ones are dropped with a warning;
 * - an event equal to an earlier one (same object, type, reason and message) is not created
 *   again: the existing Event's `count` goes up and its `lastTimestamp` moves (a patch; a
 *   deleted Event is created again);
 * - from the 10th distinct message with the same object, type and reason within 10 minutes, the
 *   messages are aggregated into one Event `(combined from similar events): <latest message>`
 *   whose count goes up;
 * - a spam filter per object drops events beyond a burst of 25 (one more every 5 minutes).
 *
 * The Event lives in the object's namespace (`default` for cluster-scoped objects) and is named
 * `<object name>.<hex timestamp>`. The object needs `apiVersion`, `kind` and `metadata.name`
 * (objects from kclient caches have them); an event about an object without them is dropped and
 * logged.
 */
export interface EventRecorder {
  /**
   * Records an event about `obj`, e.g.
   * `recorder.write(deployment, { type: 'Warning', reason: 'InvalidSpec', message })`. Returns at
   * once; the Event is written in the background. After {@link EventRecorder.shutdown} events are
   * dropped.
   */
  write(obj: KubeObject, event: RecordedEvent): void;
  /** Resolves once every event written so far was sent (or given up on). */
  flush(): Promise<void>;
  /**
   * Stops accepting events, writes the ones already queued, and resolves when done (like
   * client-go's `Broadcaster.Shutdown`). Abort the recorder's `signal` to drop them instead.
   */
  shutdown(): Promise<void>;
  /** {@link EventRecorder.shutdown}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
