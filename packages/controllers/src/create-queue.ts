import {
  consoleLogger,
  type KubeObject,
  type Logger,
  type ObjectKey,
  objectKeyOf,
  serializeError,
} from '@kubeloom/kube';
import { type Clock, systemClock } from './clock.ts';
import { defaultControllerRateLimiter } from './default-rate-limiter.ts';
import { DelayTimer } from './internal/delay-timer.ts';
import { describeValue } from './internal/describe.ts';
import { Fifo } from './internal/fifo.ts';
import { defaultKeyFunc, logKey } from './internal/queue-keys.ts';
import { QueueRetries } from './internal/queue-retries.ts';
import { runningGauges } from './internal/running-gauges.ts';
import { requireInteger } from './internal/validate.ts';
import { yieldToEventLoop } from './internal/yield.ts';
import type { QueueMetricsRecorder } from './metrics.ts';
import type { Queue, QueueOptions, ReconcileContext, ReconcileResult, Reconciler } from './queue.ts';

/**
 * How many reconciles a worker runs in a row before it lets the event loop breathe (a macrotask
 * hop), whether they are synchronous or resolve at once.
 */
const YIELD_EVERY = 1024;

/** The sync marker's slot in the FIFO. */
const SYNC = null;

/**
 * Up to this many workers, whether a key is running is a scan of the workers' slots (cheaper than
 * a hashed set for a handful); above it, a set of the running keys answers.
 */
const SCAN_RUNNING_UP_TO = 8;

type State = 'new' | 'running' | 'closed';

/**
 * What a worker waits for after a run of synchronous reconciles ({@link WorkQueue.#runKeys}): an
 * add, the promise a reconcile returned, a turn of the event loop, or nothing (it exits).
 */
const Next = { Idle: 0, Reconcile: 1, Yield: 2, Stop: 3 } as const;
type Next = (typeof Next)[keyof typeof Next];

/**
 * Creates a {@link Queue}. Construction does no I/O and starts nothing; call
 * {@link Queue.run} once the informers feeding it have synced.
 *
 * @throws RangeError for invalid `workers` or `maxAttempts`; TypeError when `reconciler` is missing.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createQueue}
 */
export function createQueue<K = ObjectKey>(opts: QueueOptions<K>): Queue<K> {
  return new WorkQueue<K>(opts);
}

class WorkQueue<K> implements Queue<K> {
  readonly name: string;
  readonly closed: Promise<void>;
  readonly #resolveClosed: () => void;
  readonly #reconciler: Reconciler<K>;
  readonly #keyFunc: (key: K) => string;
  /** True without a custom keyFunc: string keys are their own key (a fast path for `add`). */
  readonly #stringKeys: boolean;
  readonly #retries: QueueRetries<K>;
  readonly #workerCount: number;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #metrics: QueueMetricsRecorder | undefined;
  /** Keys waiting to be processed, in order, and the sync marker. */
  readonly #fifo = new Fifo<string | typeof SYNC>();
  /**
   * Keys that need processing (waiting, or added again while being processed): client-go's dirty
   * set. One lookup per duplicate add, two per new key.
   */
  readonly #dirty = new Set<string>();
  /**
   * The latest value of each dirty key whose value is not the key itself (a string key is its own
   * value and costs nothing here).
   */
  readonly #values = new Map<string, K>();
  /** The key each worker is processing (by worker index), `undefined` when it is not. */
  readonly #running: Array<string | undefined>;
  /** When each worker's current reconcile started (by worker index); only with metrics. */
  readonly #runningSince: number[] | undefined;
  /** Reconciles each worker (by index) has run since it last yielded to the event loop. */
  readonly #streaks: number[];
  /** The promise of each worker's reconcile in flight (by index), while the worker awaits it. */
  readonly #pending: Array<PromiseLike<unknown> | undefined>;
  /** The value that reconcile was called with (by worker index). */
  readonly #pendingValues: Array<K | undefined>;
  /** How many workers are processing a key. */
  #runningCount = 0;
  /** The running keys, kept only above {@link SCAN_RUNNING_UP_TO} workers. */
  readonly #runningSet: Set<string> | undefined;
  /** Keys added again while being processed: queued once more when their reconcile ends. */
  readonly #readded = new Set<string>();
  /** When each waiting key entered the FIFO; only with metrics. */
  readonly #addedAt: Map<string, number> | undefined;
  readonly #delayed: DelayTimer<K>;
  readonly #waiters: Array<() => void> = [];
  /** The context of every first attempt (the common case), shared to avoid an allocation per reconcile. */
  #firstAttempt: ReconcileContext | undefined;
  #state: State = 'new';
  #shuttingDown = false;
  #syncQueued = false;
  #synced = false;
  #syncWaitFor: Set<string> | undefined;
  #signal: AbortSignal | undefined;

  constructor(opts: QueueOptions<K>) {
    this.name = opts.name ?? 'queue';
    if (typeof opts.reconciler !== 'function') {
      throw new TypeError(`queue "${this.name}": options.reconciler must be a function (key, ctx) => …`);
    }
    this.#reconciler = opts.reconciler;
    this.#keyFunc = (opts.keyFunc ?? defaultKeyFunc(this.name)) as (key: K) => string;
    this.#stringKeys = opts.keyFunc === undefined;
    const owner = `queue "${this.name}"`;
    const maxAttempts = requireInteger(opts.maxAttempts ?? 0, { owner, option: 'maxAttempts', min: 0 });
    this.#workerCount = requireInteger(opts.workers ?? 1, { owner, option: 'workers', min: 1 });
    this.#clock = opts.clock ?? systemClock;
    this.#delayed = new DelayTimer<K>(this.#clock, (value) => this.add(value));
    this.#logger = (opts.logger ?? consoleLogger('warn')).child({ queue: this.name });
    this.#retries = new QueueRetries<K>({
      rateLimiter: opts.rateLimiter ?? defaultControllerRateLimiter(() => this.#clock.now()),
      maxAttempts,
      logger: this.#logger,
      stopping: () => this.#shuttingDown,
      addAfter: (value, delayMs) => this.addAfter(value, delayMs),
    });
    let resolve!: () => void;
    this.closed = new Promise<void>((r) => {
      resolve = r;
    });
    this.#resolveClosed = resolve;
    this.#addedAt = opts.metrics ? new Map() : undefined;
    this.#running = new Array<string | undefined>(this.#workerCount).fill(undefined);
    this.#streaks = new Array<number>(this.#workerCount).fill(0);
    this.#pending = new Array<PromiseLike<unknown> | undefined>(this.#workerCount).fill(undefined);
    this.#pendingValues = new Array<K | undefined>(this.#workerCount).fill(undefined);
    this.#runningSince = opts.metrics ? new Array<number>(this.#workerCount).fill(0) : undefined;
    this.#runningSet = this.#workerCount > SCAN_RUNNING_UP_TO ? new Set() : undefined;
    this.#metrics = opts.metrics?.queue(this.name, {
      depth: () => this.size,
      ...runningGauges(this.#clock, this.#running, this.#runningSince!),
    });
  }

  add(value: K): void {
    let key: string;
    if (typeof value === 'string' && this.#stringKeys) {
      // A string key is its own value: only a value stored for it earlier (an object key) goes.
      key = value;
      if (this.#values.size !== 0) this.#values.delete(key);
    } else {
      if (this.#shuttingDown) return;
      key = this.#keyFunc(value);
      // The latest value wins.
      if ((value as unknown) !== key) this.#values.set(key, value);
      else if (this.#values.size !== 0) this.#values.delete(key);
    }
    // `has` first: a duplicate (most adds of a backlog) then costs one lookup that the JIT inlines,
    // where `add` is always a call; a new key pays a second lookup on an entry already in cache.
    // The dirty set is empty once the queue stops, so the stop is checked after it.
    if (this.#dirty.has(key) || this.#shuttingDown) return;
    this.#dirty.add(key);
    this.#metrics?.add();
    if (this.#runningCount !== 0 && this.#isRunning(key)) {
      this.#readded.add(key); // #done queues it when the running reconcile ends
      return;
    }
    this.#push(key);
  }

  addObject(this: Queue<ObjectKey>, obj: KubeObject): void {
    if (!obj?.metadata?.name) {
      throw new TypeError(
        `queue "${this.name}": addObject needs an object with metadata.name, got ${describeValue(obj)}`,
      );
    }
    this.add(objectKeyOf(obj));
  }

  addAfter(value: K, delayMs: number): void {
    this.#checkDelay('addAfter', delayMs);
    if (this.#shuttingDown) return;
    this.#metrics?.retry();
    if (delayMs === 0) {
      this.add(value);
      return;
    }
    const key = this.#keyFunc(value);
    this.#delayed.schedule(key, value, this.#clock.now() + delayMs);
  }

  addRateLimited(value: K): void {
    if (this.#shuttingDown) return;
    const delayMs = this.#retries.backoff(this.#keyFunc(value));
    this.#checkDelay('the rate limiter (its when())', delayMs);
    this.addAfter(value, delayMs);
  }

  /** Refuses a delay that is not a finite number of milliseconds ≥ 0, naming where it came from. */
  #checkDelay(from: string, delayMs: number): void {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
      throw new RangeError(
        `queue "${this.name}": ${from} needs a finite delay in milliseconds ≥ 0, got ${typeof delayMs === 'number' ? String(delayMs) : describeValue(delayMs)}`,
      );
    }
  }

  forget(value: K): void {
    this.#retries.forget(this.#keyFunc(value));
  }

  requeues(value: K): number {
    return this.#retries.requeues(this.#keyFunc(value));
  }

  get size(): number {
    return this.#fifo.length - (this.#syncQueued ? 1 : 0);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.#state === 'closed' && this.#signal === undefined) return; // shut down before it ran
    if (this.#state !== 'new') {
      throw new Error(
        `queue "${this.name}": run was called twice; a queue runs once, build a new one to run again`,
      );
    }
    if (!(signal instanceof AbortSignal)) {
      throw new TypeError(`queue "${this.name}": run needs an AbortSignal that stops it`);
    }
    this.#state = 'running';
    this.#signal = signal;
    this.#firstAttempt = Object.freeze({ signal, attempt: 1, queue: this.name });
    const onAbort = (): void => this.#beginShutdown();
    if (signal.aborted) this.#beginShutdown();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.#fifo.push(SYNC);
    this.#syncQueued = true;
    const workers: Array<Promise<void>> = [];
    for (let i = 0; i < this.#workerCount; i++) workers.push(this.#worker(i));
    await Promise.all(workers);
    signal.removeEventListener('abort', onAbort);
    this.#finishClose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#state !== 'closed') {
      this.#beginShutdown();
      if (this.#state === 'new') this.#finishClose(); // it never ran: nothing else will close it
    }
    await this.closed;
  }

  /** Whether a worker is processing `key` (callers check `#runningCount !== 0` first). */
  #isRunning(key: string): boolean {
    if (this.#runningSet !== undefined) return this.#runningSet.has(key);
    for (let i = 0; i < this.#workerCount; i++) if (this.#running[i] === key) return true;
    return false;
  }

  /**
   * Worker `slot` (0 … workers − 1) processes keys until the queue shuts down. The keys themselves
   * run in {@link WorkQueue.#runKeys}, a plain function: V8 optimizes it as a whole, where an async
   * function's loop resumed after every yield would re-enter its optimized code through on-stack
   * replacement, running the first keys after each resume unoptimized. This function only waits.
   */
  async #worker(slot: number): Promise<void> {
    for (;;) {
      const next = this.#runKeys(slot);
      if (next === Next.Stop) return;
      if (next === Next.Idle) await new Promise<void>((resolve) => this.#waiters.push(resolve));
      else if (next === Next.Yield) await yieldToEventLoop();
      else {
        const pending = this.#pending[slot]!;
        const value = this.#pendingValues[slot] as K;
        this.#pending[slot] = undefined;
        this.#pendingValues[slot] = undefined;
        let result: unknown;
        let failed = false;
        let error: unknown;
        try {
          result = await pending;
        } catch (err) {
          failed = true;
          error = err;
        }
        if (failed) this.#fail(slot, value, error);
        else this.#complete(slot, value, result);
        // Counted for async reconcilers too: one whose promise is already settled (a cache hit, a
        // no-op) resumes the worker in a microtask, and microtasks alone never let timers or I/O run.
        if (++this.#streaks[slot]! >= YIELD_EVERY) {
          this.#streaks[slot] = 0;
          await yieldToEventLoop();
        }
      }
    }
  }

  /**
   * Runs keys on worker `slot` for as long as their reconciles return synchronously; returns what
   * the worker waits for next. A reconcile that returns a promise is left in flight in the slot
   * ({@link WorkQueue.#pending}) for the worker to await.
   */
  #runKeys(slot: number): Next {
    // The fields every key touches, read once: none of them is reassigned while the queue runs.
    const fifo = this.#fifo;
    const dirty = this.#dirty;
    const values = this.#values;
    const retries = this.#retries;
    const limited = retries.limited;
    const running = this.#running;
    const reconciler = this.#reconciler;
    const firstAttempt = this.#firstAttempt!;
    const metrics = this.#metrics;
    let streak = this.#streaks[slot]!;
    while (!this.#shuttingDown) {
      const key = fifo.shift();
      if (key === undefined) {
        this.#streaks[slot] = streak;
        return Next.Idle;
      }
      if (key === SYNC) {
        this.#syncQueued = false;
        this.#onSyncMarker();
        continue;
      }
      dirty.delete(key);
      let value = key as K;
      if (values.size !== 0) {
        const stored = values.get(key);
        if (stored !== undefined || values.has(key)) {
          value = stored as K;
          values.delete(key);
        }
      }
      let start = 0;
      if (metrics !== undefined) {
        start = this.#clock.now();
        const addedAt = this.#addedAt!.get(key);
        this.#addedAt!.delete(key);
        if (addedAt !== undefined) metrics.observeQueueDuration((start - addedAt) / 1000);
        this.#runningSince![slot] = start;
      }
      running[slot] = key;
      this.#runningCount++;
      this.#runningSet?.add(key);
      let result: unknown;
      let threw = false;
      let thenable = false;
      try {
        result = reconciler(
          value,
          limited.size !== 0 && limited.has(key)
            ? { signal: this.#signal!, attempt: retries.attempt(key), queue: this.name }
            : firstAttempt,
        );
        // Await only real promises: a synchronous reconciler costs no microtask hop. Checked inside
        // the try: a `then` getter that throws fails the reconcile, it does not stop the worker.
        thenable =
          result !== undefined &&
          result !== null &&
          typeof result === 'object' &&
          typeof (result as PromiseLike<unknown>).then === 'function';
      } catch (err) {
        threw = true;
        result = err;
      }
      if (threw) this.#fail(slot, value, result);
      else if (thenable) {
        this.#pending[slot] = result as PromiseLike<unknown>;
        this.#pendingValues[slot] = value;
        this.#streaks[slot] = streak;
        return Next.Reconcile;
      } else this.#complete(slot, value, result);
      if (++streak >= YIELD_EVERY) {
        this.#streaks[slot] = 0;
        return Next.Yield;
      }
    }
    this.#streaks[slot] = streak;
    return Next.Stop;
  }

  /** The reconcile on worker `slot` returned (or resolved to) `result`. */
  #complete(slot: number, value: K, result: unknown): void {
    const key = this.#running[slot]!;
    // A plain success of a key without failures (the common case) has nothing to book.
    if (result !== undefined || this.#retries.limited.size !== 0) {
      try {
        this.#retries.succeeded(key, value, result as ReconcileResult | undefined);
      } catch (err) {
        this.#bookkeepingFailed(key, err);
      }
    }
    if (this.#metrics !== undefined) {
      const requeued = (result as ReconcileResult | undefined)?.requeueAfterMs !== undefined;
      this.#observeReconcile(slot, requeued ? 'requeue_after' : 'success');
    }
    this.#done(key, slot);
  }

  /** The reconcile on worker `slot` threw (or rejected with) `error`. */
  #fail(slot: number, value: K, error: unknown): void {
    const key = this.#running[slot]!;
    try {
      this.#retries.failed(key, error, () => this.addRateLimited(value));
    } catch (err) {
      this.#bookkeepingFailed(key, err);
    }
    if (this.#metrics !== undefined) this.#observeReconcile(slot, 'error');
    this.#done(key, slot);
  }

  /** A throwing rate limiter or keyFunc must not wedge the key as running: logged, then done. */
  #bookkeepingFailed(key: string, err: unknown): void {
    this.#logger.error('queue bookkeeping failed after reconcile', {
      key: logKey(key),
      err: serializeError(err),
    });
  }

  /** Records the reconcile that just ended on worker `slot` (with metrics only). */
  #observeReconcile(slot: number, outcome: 'success' | 'requeue_after' | 'error'): void {
    const metrics = this.#metrics!;
    // One clock read for both the reconcile and the work duration.
    const seconds = (this.#clock.now() - this.#runningSince![slot]!) / 1000;
    metrics.reconcile?.(outcome, seconds);
    metrics.observeWorkDuration(seconds);
  }

  /** Worker `slot` finished `key`: it is no longer running, and queued again if it was re-added. */
  #done(key: string, slot: number): void {
    this.#running[slot] = undefined;
    this.#runningCount--;
    this.#runningSet?.delete(key);
    if (this.#syncWaitFor?.delete(key) && this.#syncWaitFor.size === 0) {
      this.#syncWaitFor = undefined;
      this.#synced = true;
    }
    if (this.#readded.size !== 0 && this.#readded.delete(key) && !this.#shuttingDown) this.#push(key);
  }

  #onSyncMarker(): void {
    // Keys dequeued before the marker may still be running on other workers.
    if (this.#runningCount === 0) this.#synced = true;
    else {
      this.#syncWaitFor = new Set();
      for (const key of this.#running) if (key !== undefined) this.#syncWaitFor.add(key);
    }
  }

  #push(key: string): void {
    this.#fifo.push(key);
    this.#addedAt?.set(key, this.#clock.now());
    if (this.#waiters.length !== 0) this.#waiters.pop()!();
  }

  #beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#delayed.clear();
    this.#fifo.clear();
    this.#syncQueued = false;
    this.#dirty.clear();
    this.#values.clear();
    this.#readded.clear();
    this.#addedAt?.clear();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #finishClose(): void {
    this.#state = 'closed';
    this.#metrics?.close();
    this.#resolveClosed();
  }
}
