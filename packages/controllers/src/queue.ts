import type { KubeObject, Logger, ObjectKey } from '@kubeloom/kube';
import type { Clock } from './clock.ts';
import type { ControllerMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';

/** What a reconciler receives besides the key. */
export interface ReconcileContext {
  /** The queue's run signal: it aborts when the queue stops. Pass it to your API calls. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt at this key since it last succeeded or was dropped, 2 for the first retry, … */
  readonly attempt: number;
  /** The queue's name, for logs. */
  readonly queue: string;
}

/** What a reconciler may return. */
export interface ReconcileResult {
  /**
   * Process the key again after this many milliseconds (controller-runtime's `RequeueAfter`): for
   * polling external state. The key's failure history is forgotten, as after any success. A
   * negative or non-finite value is logged and the key is not requeued.
   */
  readonly requeueAfterMs?: number;
}

/**
 * Processes one key. Level-based: read the current state (from a cache) and converge; do not
 * depend on which event enqueued the key. Throw to retry with backoff (see
 * {@link QueueOptions.maxAttempts}); throw a {@link TerminalError} to give up at once.
 */
export type Reconciler<K> = (
  key: K,
  ctx: ReconcileContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: reconcilers that return nothing are the common case
) => ReconcileResult | void | Promise<ReconcileResult | void>;

/** Options of {@link createQueue}. */
export interface QueueOptions<K> {
  /** The queue's name, used in logs and as the metrics `name` label. Default `queue`. */
  readonly name?: string;
  /** Processes each key. */
  readonly reconciler: Reconciler<K>;
  /**
   * Maps a key to the string the queue deduplicates on. Default: strings as they are, and
   * `{namespace, name}` objects as `namespace/name`. Required for any other key type.
   */
  readonly keyFunc?: (key: K) => string;
  /**
   * Total attempts per key, counting the first (Istio's `WithMaxAttempts`): a key whose reconcile
   * throws is retried through the rate limiter while `attempts < maxAttempts`, then logged and
   * dropped. Default 0: no retries, as in Istio.
   */
  readonly maxAttempts?: number;
  /** Delays retries. Default {@link defaultControllerRateLimiter} (a fresh one per queue). */
  readonly rateLimiter?: RateLimiter;
  /** Parallel reconciles (distinct keys only; a key is never processed twice at once). Default 1. */
  readonly workers?: number;
  /** Where failures and drops are logged. Default `consoleLogger('warn')`. */
  readonly logger?: Logger;
  /** A metrics sink, e.g. {@link prometheusMetrics}. Default: none. */
  readonly metrics?: ControllerMetrics;
  /** Time source for delayed adds and metrics. Default {@link systemClock}. */
  readonly clock?: Clock;
}

/** Anything keys can be added to: a {@link Queue}, or a test double. */
export interface KeySink<K> {
  /** Adds a key. */
  add(key: K): void;
}

/**
 * A deduplicating, rate-limited work queue with per-key serialization (client-go's workqueue as
 * Istio's `controllers.Queue` wraps it).
 *
 * - A key already waiting is not queued twice; the latest value added for it is processed.
 * - A key is never processed by two workers at once; a key added while it is being processed is
 *   processed once more afterwards.
 * - {@link Queue.run} first enqueues a sync marker: {@link Queue.hasSynced} turns true once every
 *   key added before `run` has been processed at least once (it may have failed).
 * - On stop, in-flight reconciles finish, nothing new starts, waiting and delayed keys are dropped
 *   (no drain, unlike client-go: reconciles are level-based and the next run's informer list
 *   enqueues every object again) and later adds are ignored.
 */
export interface Queue<K = ObjectKey> extends KeySink<K> {
  /** The queue's name. */
  readonly name: string;
  /** Adds a key, unless it is already waiting. Ignored once the queue is shutting down. */
  add(key: K): void;
  /** Adds the `{namespace, name}` key of an object. */
  addObject(this: Queue<ObjectKey>, obj: KubeObject): void;
  /**
   * Adds a key after `delayMs` (0: now); an earlier pending delayed add of the same key wins. Any
   * finite delay works, also beyond the 24.8 days a single timer can wait.
   *
   * @throws RangeError when `delayMs` is negative, NaN or infinite.
   */
  addAfter(key: K, delayMs: number): void;
  /**
   * Adds a key after the delay its rate limiter decides (one more recorded failure).
   *
   * @throws RangeError when the rate limiter returns a delay `addAfter` refuses.
   */
  addRateLimited(key: K): void;
  /** Clears the key's failure history in the rate limiter. */
  forget(key: K): void;
  /** How many times the key was retried since it was last forgotten. */
  requeues(key: K): number;
  /** Keys waiting to be processed (not counting delayed adds). */
  readonly size: number;
  /**
   * Runs the workers until `signal` aborts (or the queue is disposed); resolves once every
   * in-flight reconcile has finished. Call it once.
   *
   * @throws Error when the queue already runs or ran.
   */
  run(signal: AbortSignal): Promise<void>;
  /** True once every key added before {@link Queue.run} was processed at least once. */
  hasSynced(): boolean;
  /**
   * Settles when the queue has stopped: `run`'s signal aborted (or the queue was disposed) and
   * every in-flight reconcile finished. To bound the wait, race it against a timer.
   */
  readonly closed: Promise<void>;
  /**
   * Stops the queue and resolves once {@link Queue.closed} settled, for `await using`. Before
   * `run`, it closes a queue that will never run (its delayed adds release their timers, a later
   * `run` returns at once); while running, it stops it as aborting `run`'s signal does.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Thrown by a reconciler for a failure that retrying cannot fix: the key is dropped at once.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#TerminalError}
 */
export class TerminalError extends Error {
  /** Creates the error; `cause` is the underlying failure. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}
