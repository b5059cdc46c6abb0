import {
  type ApiClient,
  type WatchEvent,
  WatchIdleTimeoutError,
  type WatchOptions,
  WatchResetError,
} from './api.ts';
import type { InformerTuning } from './client.ts';
import { describeInformerKey } from './client.ts';
import { isGone, isTooManyRequests, toApiError } from './errors.ts';
import type {
  HandlerRegistration,
  InformerHealth,
  InformerKey,
  InformerState,
  ResourceEventHandler,
  SharedInformer,
  TransformFunc,
} from './informer.ts';
import { applyListItems } from './internal/apply-list.ts';
import { Backoff } from './internal/backoff.ts';
import { frozenWatchOf } from './internal/frozen-watch.ts';
import { HandlerSet } from './internal/handler-set.ts';
import { InformerCounters } from './internal/informer-counters.ts';
import { type ResolvedTuning, resolveTuning } from './internal/informer-tuning.ts';
import { cacheKey, ingestObject, type ListItemType, rawResourceVersion } from './internal/ingest.ts';
import { listAll } from './internal/list-pager.ts';
import { sleep } from './internal/sleep.ts';
import { StringPool } from './internal/string-pool.ts';
import {
  isServerWatchFailure,
  WATCH_FAILURES_BEFORE_RELIST,
  WatchFailures,
} from './internal/watch-failures.ts';
import { sinkWatchOf } from './internal/watch-sink.ts';
import type { Logger } from './logger.ts';
import type { KubeObject } from './object.ts';
import type { ObjectFilter } from './object-filter.ts';
import { ObjectStore } from './object-store.ts';
import { apiVersionOf } from './resource.ts';
import { serializeError } from './serialize-error.ts';
import { stripManagedFields } from './strip-managed-fields.ts';

/** Options of {@link InformerEngine}. */
export interface InformerEngineOptions {
  /** The transport. */
  readonly api: ApiClient;
  /** What to list and watch. */
  readonly key: InformerKey;
  /** Applied to every object before it is cached and frozen. Default {@link stripManagedFields}. */
  readonly transform?: TransformFunc | undefined;
  /** The client-wide object filter. */
  readonly filter?: ObjectFilter | undefined;
  /** Where to log. */
  readonly logger: Logger;
  /** Engine tuning. */
  readonly tuning?: InformerTuning | undefined;
}

type WatchOutcome = 'closed' | 'gone' | 'restart';

/**
 * The informer engine: a reflector (paginated list, then watch with bookmarks and resume), an
 * indexed cache of frozen objects, and synchronous, ordered delivery to handlers.
 * See {@link SharedInformer} for the guarantees. Internal: users get informers from
 * `KubeClient.informer` and see the {@link SharedInformer} interface only.
 */
export class InformerEngine<T extends KubeObject = KubeObject> implements SharedInformer<T> {
  readonly key: InformerKey;
  readonly #api: ApiClient;
  readonly #transform: TransformFunc;
  readonly #filter: ObjectFilter | undefined;
  readonly #log: Logger;
  readonly #tuning: ResolvedTuning;
  readonly #backoff: Backoff;
  readonly #store: ObjectStore<T>;
  /** Shares repeated strings between the cached objects. */
  readonly #strings = new StringPool();
  readonly #handlers: HandlerSet<T>;
  #syncWaiters: Array<(synced: boolean) => void> = [];
  #signal: AbortSignal | undefined;
  /** The list/watch loop, from the first {@link InformerEngine.run} on; settles once it stopped. */
  #running: Promise<void> | undefined;
  #unsubscribeFilter: (() => void) | undefined;
  #rv: string | undefined;
  #state: InformerState = 'idle';
  #synced = false;
  #lastEventMs: number | undefined;
  #lastListTime: Date | undefined;
  readonly #counters: InformerCounters;
  readonly #watchFailures = new WatchFailures();
  /** True while the initial list is being delivered; handlers added meanwhile join late. */
  #deliveringInitial = false;
  #eventsSeen = 0;
  #wake: AbortController | undefined;

  /** Creates an informer; nothing happens until {@link InformerEngine.run}. */
  constructor(options: InformerEngineOptions) {
    this.key = options.key;
    this.#api = options.api;
    this.#transform = options.transform ?? stripManagedFields;
    this.#filter = options.filter;
    this.#log = options.logger.child({ informer: describeInformerKey(options.key) });
    this.#tuning = resolveTuning(options.tuning);
    const { initialBackoffMs, maxBackoffMs, random } = this.#tuning;
    this.#backoff = new Backoff(initialBackoffMs, maxBackoffMs, random);
    const filter = this.#filter;
    const counters = new InformerCounters(this.#log);
    this.#counters = counters;
    this.#store = new ObjectStore<T>(filter ? (obj) => filter.matches(obj) : undefined, (index, key, err) =>
      counters.indexFailed(index, key, err),
    );
    this.#handlers = new HandlerSet<T>(filter, (callback, err) => this.#counters.handlerThrew(callback, err));
  }

  /** {@inheritDoc SharedInformer.store} */
  get store(): ObjectStore<T> {
    return this.#store;
  }

  /** {@inheritDoc SharedInformer.listUnfiltered} */
  listUnfiltered(): T[] {
    return this.#store.listUnfiltered();
  }

  /** {@inheritDoc SharedInformer.retryNow} */
  retryNow(): void {
    this.#backoff.reset();
    this.#wake?.abort();
  }

  /** Sleeps for a backoff delay; {@link InformerEngine.retryNow} or the signal ends it early. */
  async #backoffSleep(ms: number, signal: AbortSignal): Promise<void> {
    const wake = new AbortController();
    this.#wake = wake;
    this.#state = 'backoff';
    try {
      await sleep(ms, AbortSignal.any([signal, wake.signal]));
    } finally {
      if (this.#wake === wake) this.#wake = undefined;
    }
  }

  /** {@inheritDoc SharedInformer.addEventHandler} */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    // Before the initial list: receives it when it lands. Otherwise a late joiner: the current
    // state first, then live events.
    if (!this.#synced && !this.#deliveringInitial) return this.#handlers.add(handler);
    return this.#handlers.add(handler, () => this.#store.list());
  }

  /** {@inheritDoc SharedInformer.hasSynced} */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** {@inheritDoc SharedInformer.waitUntilSynced} */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (this.#state === 'stopped' || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => finish(false);
      const finish = (v: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#syncWaiters = this.#syncWaiters.filter((w) => w !== finish);
        resolve(v);
      };
      this.#syncWaiters.push(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** {@inheritDoc SharedInformer.isStarted} */
  isStarted(): boolean {
    return this.#signal !== undefined;
  }

  /** {@inheritDoc SharedInformer.run} */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    this.#signal = signal;
    if (this.#filter?.subscribe) {
      this.#unsubscribeFilter = this.#filter.subscribe(() =>
        this.#handlers.refilter(this.#store.listUnfiltered().map((o) => [cacheKey(o), o])),
      );
    }
    this.#running = this.#loop(signal);
    return this.#running;
  }

  /** {@inheritDoc SharedInformer.lastSyncResourceVersion} */
  lastSyncResourceVersion(): string | undefined {
    return this.#rv;
  }

  /** {@inheritDoc SharedInformer.health} */
  health(): InformerHealth {
    const counts = this.#counters.counts();
    return {
      state: this.#state,
      synced: this.#synced,
      resourceVersion: this.#rv,
      lastEventTime: this.#lastEventMs === undefined ? undefined : new Date(this.#lastEventMs),
      lastListTime: this.#lastListTime,
      ...counts,
      relists: Math.max(0, counts.lists - 1),
      indexErrors: this.#store.indexErrors,
      objects: this.#store.sizeUnfiltered,
    };
  }

  async #loop(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      // Productivity of the current list/watch cycle: a cycle that delivered events or stayed
      // up for a while resets the backoff, whatever ended it.
      const started = performance.now();
      const before = this.#eventsSeen;
      const productive = (): boolean => this.#eventsSeen > before || performance.now() - started > 10_000;
      try {
        if (needList) {
          this.#state = 'listing';
          await this.#list(signal);
          needList = false;
        }
        this.#state = 'watching';
        const outcome = await this.#watchOnce(signal);
        if (signal.aborted) break;
        this.#counters.restarts++;
        if (productive()) this.#backoff.reset();
        if (outcome === 'gone') {
          this.#log.info('resourceVersion expired (410 Gone): relisting', { resourceVersion: this.#rv });
          needList = true;
          // The first relist after a healthy period waits one short backoff step; a persistent
          // 410 source backs off like any other failure instead of turning into a LIST storm.
          await this.#backoffSleep(this.#backoff.next(), signal);
          continue;
        }
        if (outcome === 'restart') needList = this.#watchFailedAtSameRv();
        // A watch that ended at once, or after bad data: don't spin.
        if (outcome === 'restart' || !productive()) await this.#backoffSleep(this.#backoff.next(), signal);
      } catch (err) {
        if (signal.aborted) break;
        if (productive()) this.#backoff.reset();
        if (err instanceof WatchIdleTimeoutError) {
          // A quiet watch without bookmarks: expected, not an error. Resume at once.
          this.#counters.restarts++;
          this.#counters.idleTimeouts++;
          this.#counters.lastError = err.message;
          this.#log.info('watch idle timeout: reconnecting from the last resourceVersion', {
            resourceVersion: this.#rv,
          });
          continue;
        }
        needList = this.#onLoopError(err, needList);
        const apiErr = toApiError(err);
        const wait =
          isTooManyRequests(err) && apiErr?.retryAfterSeconds !== undefined
            ? this.#clampRetryAfter(apiErr.retryAfterSeconds)
            : this.#backoff.next();
        if (err instanceof WatchResetError) {
          this.#log.info('the watch was reset; resuming from the last resourceVersion', {
            resourceVersion: this.#rv,
            err: serializeError(err),
            retryInMs: Math.round(wait),
          });
        } else if (!isGone(err)) {
          this.#log.warn('list/watch failed; retrying', {
            err: serializeError(err),
            retryInMs: Math.round(wait),
            state: this.#state,
          });
        }
        await this.#backoffSleep(wait, signal);
      }
    }
    this.#state = 'stopped';
    this.#unsubscribeFilter?.();
    for (const w of [...this.#syncWaiters]) w(false);
  }

  /** Records a failed list or watch; returns whether the next cycle must (re)list. */
  #onLoopError(err: unknown, listing: boolean): boolean {
    this.#counters.recordError(err);
    if (listing) return true;
    this.#counters.restarts++;
    if (isGone(err)) {
      this.#log.info('resourceVersion expired (410 Gone): relisting', { resourceVersion: this.#rv });
      return true;
    }
    return isServerWatchFailure(err) && this.#watchFailedAtSameRv();
  }

  /** Counts a watch failure; true (relist) when the watch keeps failing at the same resourceVersion. */
  #watchFailedAtSameRv(): boolean {
    if (!this.#watchFailures.failedAt(this.#rv)) return false;
    this.#log.warn(
      `the watch failed ${WATCH_FAILURES_BEFORE_RELIST} times in a row at the same resourceVersion: relisting`,
      { resourceVersion: this.#rv, lastError: this.#counters.lastError },
    );
    return true;
  }

  /** A server's Retry-After, bounded to [initial backoff, max backoff] so it can neither spin nor stall. */
  #clampRetryAfter(seconds: number): number {
    const { initialBackoffMs, maxBackoffMs } = this.#tuning;
    const ms = Number.isFinite(seconds) ? seconds * 1000 : maxBackoffMs;
    return Math.min(Math.max(ms, initialBackoffMs), maxBackoffMs);
  }

  async #list(signal: AbortSignal): Promise<void> {
    const { resource, namespace, labelSelector, fieldSelector } = this.key;
    this.#counters.listAttempts++;
    const listItemType: ListItemType = { apiVersion: apiVersionOf(resource), kind: resource.kind };
    const { items, resourceVersion } = await listAll(this.#api, resource, {
      namespace,
      labelSelector,
      fieldSelector,
      pageSize: this.#tuning.pageSize,
      pageBytes: this.#tuning.pageBytes,
      signal,
      onExpiredContinue: (err) => {
        this.#counters.recordError(err);
        this.#log.info(
          'the continue token expired during a paginated list: listing everything in one unpaginated request',
        );
      },
      mapItem: (raw) => this.#ingestListItem(raw, listItemType),
    });
    this.#applyList(items);
    this.#rv = resourceVersion;
    this.#counters.lists++;
    this.#watchFailures.reset();
    this.#lastListTime = new Date();
    if (!this.#synced) {
      this.#synced = true;
      this.#handlers.markSynced();
      for (const w of [...this.#syncWaiters]) w(true);
      this.#log.debug('synced', { objects: this.#store.sizeUnfiltered, resourceVersion });
    }
  }

  /**
   * Transforms and freezes one object. An object that cannot be ingested (not an object, no
   * name, a throwing transform) is logged, counted and skipped: one bad object must never wedge
   * the informer.
   */
  #ingest(raw: KubeObject, listItemType?: ListItemType): T | undefined {
    try {
      return ingestObject<T>(raw, { transform: this.#transform, pool: this.#strings, listItemType });
    } catch (err) {
      this.#counters.objectRejected(err);
      this.#log.error('skipping an object that cannot be ingested', {
        err: serializeError(err),
        name: (raw as KubeObject | null)?.metadata?.name,
        namespace: (raw as KubeObject | null)?.metadata?.namespace,
        resourceVersion: (raw as KubeObject | null)?.metadata?.resourceVersion,
      });
      return undefined;
    }
  }

  /**
   * Ingests one list item as its page arrives: the frozen object, or, for an object that cannot be
   * ingested, its key (the cached version is kept rather than reported deleted) or undefined.
   */
  #ingestListItem(raw: KubeObject, listItemType: ListItemType): T | string | undefined {
    const obj = this.#ingest(raw, listItemType);
    if (obj !== undefined) return obj;
    return raw?.metadata?.name ? cacheKey(raw) : undefined;
  }

  #applyList(items: ReadonlyArray<T | string | undefined>): void {
    const initial = !this.#synced;
    this.#deliveringInitial = initial;
    try {
      applyListItems({ store: this.#store, handlers: this.#handlers, items, initial });
    } finally {
      this.#deliveringInitial = false;
    }
  }

  async #watchOnce(signal: AbortSignal): Promise<WatchOutcome> {
    const { resource, namespace, labelSelector, fieldSelector } = this.key;
    const [lo, hi] = this.#tuning.watchTimeoutSeconds;
    const timeoutSeconds = Math.floor(lo + this.#tuning.random() * (hi - lo));
    const opts: WatchOptions = {
      namespace,
      labelSelector,
      fieldSelector,
      resourceVersion: this.#rv,
      allowWatchBookmarks: true,
      timeoutSeconds,
      idleTimeoutMs: this.#tuning.idleTimeoutMs,
      signal,
    };
    // Pushed from the socket's data callback when the transport can: no async step per chunk.
    const push = sinkWatchOf(this.#api);
    if (push) {
      let outcome: WatchOutcome | undefined;
      // A flag, not `signal.aborted` per event: the run signal is a composite (`AbortSignal.any`),
      // whose getter walks its sources on every read.
      let aborted = signal.aborted;
      const onAbort = (): void => {
        aborted = true;
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await push<T>(resource, opts, (event) => {
          if (aborted) return true;
          this.#lastEventMs = Date.now();
          outcome = this.#handleEvent(event);
          return outcome !== undefined;
        });
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      return outcome ?? 'closed';
    }
    // An in-memory server can hand over its frozen objects when the transform leaves them alone.
    const frozen = this.#transform === stripManagedFields ? frozenWatchOf(this.#api) : undefined;
    const events = frozen ? frozen<T>(resource, opts) : this.#api.watch<T>(resource, opts);
    for await (const event of events) {
      this.#lastEventMs = Date.now();
      const outcome = this.#handleEvent(event);
      if (outcome) return outcome;
    }
    return 'closed';
  }

  #handleEvent(event: WatchEvent<T>): WatchOutcome | undefined {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        this.#eventsSeen++;
        const obj = this.#ingest(event.object);
        if (obj === undefined) {
          this.#rv = rawResourceVersion(event.object) ?? this.#rv;
          return undefined;
        }
        const key = cacheKey(obj);
        const old = this.#store.set(key, obj);
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        if (old === undefined) this.#handlers.added(key, obj, false);
        else this.#handlers.updated(key, old, obj);
        return undefined;
      }
      case 'DELETED': {
        this.#eventsSeen++;
        const obj = this.#ingest(event.object);
        if (obj === undefined) {
          this.#rv = rawResourceVersion(event.object) ?? this.#rv;
          return undefined;
        }
        const key = cacheKey(obj);
        this.#store.delete(key);
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        this.#handlers.deleted(key, obj);
        return undefined;
      }
      case 'BOOKMARK': {
        this.#eventsSeen++;
        const rv = event.object.metadata?.resourceVersion;
        if (rv) this.#rv = rv;
        return undefined;
      }
      case 'ERROR': {
        const status = event.status;
        const gone = status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone';
        this.#counters.errors++;
        this.#counters.lastError =
          `watch ERROR event: ${status.code ?? '?'} ${status.reason ?? ''} ${status.message ?? ''}`.trim();
        if (gone) return 'gone';
        this.#log.warn('watch returned an ERROR event; restarting the watch', { status });
        return 'restart';
      }
      case 'MALFORMED': {
        this.#counters.malformed++;
        this.#counters.errors++;
        this.#counters.lastError = `malformed watch data: ${event.error}`;
        this.#log.warn('malformed watch data; restarting the watch from the last resourceVersion', {
          error: event.error,
          line: event.line.slice(0, 200),
          resourceVersion: this.#rv,
        });
        return 'restart';
      }
      case 'UNKNOWN': {
        this.#counters.unknown++;
        this.#counters.errors++;
        this.#counters.lastError = `unknown watch event type ${event.eventType}`;
        this.#log.warn('ignoring a watch event of unknown type', { eventType: event.eventType });
        return undefined;
      }
    }
  }
}
