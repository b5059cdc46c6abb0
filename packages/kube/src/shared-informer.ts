import { type ApiClient, type WatchEvent, WatchIdleTimeoutError } from './api.ts';
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
  Tombstone,
  TransformFunc,
} from './informer.ts';
import { Backoff } from './internal/backoff.ts';
import { sleep } from './internal/sleep.ts';
import type { Logger } from './logger.ts';
import { deepFreeze, type KubeObject } from './object.ts';
import type { ObjectFilter } from './object-filter.ts';
import { ObjectStore } from './object-store.ts';
import { apiVersionOf } from './resource.ts';

/** The default ingest transform: drops `metadata.managedFields`, which is large and rarely read. */
export const stripManagedFields: TransformFunc = (obj) => {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
};

/** Options of {@link Informer}. */
export interface InformerConstructorOptions {
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

interface Registration<T extends KubeObject> extends HandlerRegistration {
  readonly handler: ResourceEventHandler<T>;
  active: boolean;
  synced: boolean;
  removed: boolean;
}

type WatchOutcome = 'closed' | 'gone' | 'restart';

const DEFAULTS = {
  pageSize: 500,
  idleTimeoutMs: 120_000,
  initialBackoffMs: 800,
  maxBackoffMs: 30_000,
  watchTimeoutSeconds: [300, 600] as const,
};

/**
 * The informer engine: a reflector (paginated list, then watch with bookmarks and resume), an
 * indexed cache of frozen objects, and synchronous, ordered delivery to handlers.
 * See {@link SharedInformer} for the guarantees.
 */
export class Informer<T extends KubeObject = KubeObject> implements SharedInformer<T> {
  readonly key: InformerKey;
  readonly #api: ApiClient;
  readonly #transform: TransformFunc;
  readonly #filter: ObjectFilter | undefined;
  readonly #log: Logger;
  readonly #pageSize: number;
  readonly #idleTimeoutMs: number;
  readonly #watchTimeout: readonly [number, number];
  readonly #random: () => number;
  readonly #backoff: Backoff;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #store: ObjectStore<T>;
  readonly #registrations = new Set<Registration<T>>();
  /** Keys currently visible through the filter (maintained only when there is a filter). */
  readonly #visibleKeys = new Set<string>();
  #syncWaiters: Array<(synced: boolean) => void> = [];
  #signal: AbortSignal | undefined;
  #unsubscribeFilter: (() => void) | undefined;
  #rv: string | undefined;
  #state: InformerState = 'idle';
  #synced = false;
  #lastEventMs: number | undefined;
  #lastListTime: Date | undefined;
  #restarts = 0;
  #lists = 0;
  #errors = 0;
  #malformed = 0;
  #unknown = 0;
  #handlerErrors = 0;
  #idleTimeouts = 0;
  #rejected = 0;
  /** True while the initial list is being delivered; handlers added meanwhile join late. */
  #deliveringInitial = false;
  #lastError: string | undefined;

  /** Creates an informer; nothing happens until {@link Informer.run}. */
  constructor(options: InformerConstructorOptions) {
    this.key = options.key;
    this.#api = options.api;
    this.#transform = options.transform ?? stripManagedFields;
    this.#filter = options.filter;
    this.#log = options.logger.child({ informer: describeInformerKey(options.key) });
    const t = options.tuning ?? {};
    this.#pageSize = t.pageSize ?? DEFAULTS.pageSize;
    this.#idleTimeoutMs = t.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
    this.#watchTimeout = t.watchTimeoutSeconds ?? DEFAULTS.watchTimeoutSeconds;
    this.#random = t.random ?? Math.random;
    this.#initialBackoffMs = t.initialBackoffMs ?? DEFAULTS.initialBackoffMs;
    this.#maxBackoffMs = t.maxBackoffMs ?? DEFAULTS.maxBackoffMs;
    this.#backoff = new Backoff(this.#initialBackoffMs, this.#maxBackoffMs, this.#random);
    if (!(Number.isInteger(this.#pageSize) && this.#pageSize > 0)) {
      throw new RangeError(`tuning.pageSize must be a positive integer, got ${this.#pageSize}`);
    }
    if (!(this.#idleTimeoutMs > 0) || this.#idleTimeoutMs >= 2 ** 31) {
      throw new RangeError(
        `tuning.idleTimeoutMs must be between 1 and 2^31-1 ms, got ${this.#idleTimeoutMs}`,
      );
    }
    const [lo, hi] = this.#watchTimeout;
    if (!(lo > 0 && hi >= lo)) {
      throw new RangeError(
        `tuning.watchTimeoutSeconds must be [min, max] with 0 < min <= max, got [${lo}, ${hi}]`,
      );
    }
    const filter = this.#filter;
    this.#store = new ObjectStore<T>(filter ? (obj) => filter.matches(obj) : undefined);
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

  #wake: AbortController | undefined;

  /** Sleeps for a backoff delay; {@link Informer.retryNow} or the signal ends it early. */
  async #backoffSleep(ms: number, signal: AbortSignal): Promise<void> {
    const wake = new AbortController();
    this.#wake = wake;
    try {
      await sleep(ms, AbortSignal.any([signal, wake.signal]));
    } finally {
      if (this.#wake === wake) this.#wake = undefined;
    }
  }

  /** {@inheritDoc SharedInformer.addEventHandler} */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    const reg: Registration<T> = {
      handler,
      active: false,
      synced: false,
      removed: false,
      hasSynced: () => reg.synced,
      remove: () => {
        reg.removed = true;
        reg.active = false;
        this.#registrations.delete(reg);
      },
    };
    this.#registrations.add(reg);
    if (!this.#synced && !this.#deliveringInitial) {
      // Receives the initial list when it lands, then live events.
      reg.active = true;
    } else {
      // Late joiner: deliver the current state, then go live, atomically in one microtask so no
      // event falls between the snapshot and activation.
      queueMicrotask(() => {
        if (reg.removed) return;
        for (const obj of this.#store.list()) this.#call(reg, 'onAdd', () => reg.handler.onAdd?.(obj, true));
        reg.active = true;
        reg.synced = true;
      });
    }
    return reg;
  }

  /** {@inheritDoc SharedInformer.hasSynced} */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** {@inheritDoc SharedInformer.waitForSync} */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
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
  run(signal: AbortSignal): void {
    if (this.#signal) return;
    this.#signal = signal;
    if (this.#filter?.subscribe) this.#unsubscribeFilter = this.#filter.subscribe(() => this.#refilter());
    void this.#loop(signal);
  }

  /** {@inheritDoc SharedInformer.lastSyncResourceVersion} */
  lastSyncResourceVersion(): string | undefined {
    return this.#rv;
  }

  /** {@inheritDoc SharedInformer.health} */
  health(): InformerHealth {
    return {
      state: this.#state,
      synced: this.#synced,
      resourceVersion: this.#rv,
      lastEventTime: this.#lastEventMs === undefined ? undefined : new Date(this.#lastEventMs),
      lastListTime: this.#lastListTime,
      restarts: this.#restarts,
      lists: this.#lists,
      relists: Math.max(0, this.#lists - 1),
      errors: this.#errors,
      malformedLines: this.#malformed,
      unknownEvents: this.#unknown,
      handlerErrors: this.#handlerErrors,
      idleTimeouts: this.#idleTimeouts,
      rejectedObjects: this.#rejected,
      lastError: this.#lastError,
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
        this.#restarts++;
        if (productive()) this.#backoff.reset();
        if (outcome === 'gone') {
          this.#log.info('resourceVersion expired (410 Gone): relisting', { resourceVersion: this.#rv });
          needList = true;
          // The first relist after a healthy period waits one short backoff step; a persistent
          // 410 source backs off like any other failure instead of turning into a LIST storm.
          this.#state = 'backoff';
          await this.#backoffSleep(this.#backoff.next(), signal);
          continue;
        }
        if (outcome === 'restart' || !productive()) {
          // A watch that ended at once, or after bad data: don't spin.
          this.#state = 'backoff';
          await this.#backoffSleep(this.#backoff.next(), signal);
        }
      } catch (err) {
        if (signal.aborted) break;
        if (productive()) this.#backoff.reset();
        if (err instanceof WatchIdleTimeoutError) {
          // A quiet watch without bookmarks: expected, not an error. Resume at once.
          this.#restarts++;
          this.#idleTimeouts++;
          this.#lastError = err.message;
          this.#log.info('watch idle timeout: reconnecting from the last resourceVersion', {
            resourceVersion: this.#rv,
          });
          continue;
        }
        this.#recordError(err);
        if (!needList) this.#restarts++;
        if (isGone(err)) {
          needList = true;
          this.#log.info('resourceVersion expired (410 Gone): relisting', { resourceVersion: this.#rv });
        }
        const apiErr = toApiError(err);
        const wait =
          isTooManyRequests(err) && apiErr?.retryAfterSeconds !== undefined
            ? this.#clampRetryAfter(apiErr.retryAfterSeconds)
            : this.#backoff.next();
        if (!isGone(err)) {
          this.#log.warn('list/watch failed; retrying', {
            error: err,
            retryInMs: Math.round(wait),
            state: this.#state,
          });
        }
        this.#state = 'backoff';
        await this.#backoffSleep(wait, signal);
      }
    }
    this.#state = 'stopped';
    this.#unsubscribeFilter?.();
    for (const w of [...this.#syncWaiters]) w(false);
  }

  /** A server's Retry-After, bounded to [initial backoff, max backoff] so it can neither spin nor stall. */
  #clampRetryAfter(seconds: number): number {
    const ms = Number.isFinite(seconds) ? seconds * 1000 : this.#maxBackoffMs;
    return Math.min(Math.max(ms, this.#initialBackoffMs), this.#maxBackoffMs);
  }

  #eventsSeen = 0;

  #recordError(err: unknown): void {
    this.#errors++;
    this.#lastError = err instanceof Error ? err.message : String(err);
  }

  async #list(signal: AbortSignal): Promise<void> {
    const { resource, namespace, labelSelector, fieldSelector } = this.key;
    this.#lists++;
    let items: KubeObject[] = [];
    let cont: string | undefined;
    let rv: string | undefined;
    let expiredRestarts = 0;
    for (;;) {
      let page: Awaited<ReturnType<ApiClient['list']>>;
      try {
        page = await this.#api.list(resource, {
          namespace,
          labelSelector,
          fieldSelector,
          limit: this.#pageSize,
          continue: cont,
          signal,
        });
      } catch (err) {
        if (cont !== undefined && isGone(err) && expiredRestarts < 5) {
          // The continue token expired mid-list: start over with a fresh, consistent list.
          expiredRestarts++;
          this.#recordError(err);
          this.#log.info('continue token expired during a paginated list: listing again from the start');
          items = [];
          cont = undefined;
          continue;
        }
        throw err;
      }
      for (const item of page.items) items.push(item);
      rv = page.metadata.resourceVersion;
      cont = page.metadata.continue || undefined;
      if (!cont) break;
    }
    const apiVersion = apiVersionOf(resource);
    this.#applyList(items, apiVersion);
    this.#rv = rv;
    this.#lastListTime = new Date();
    if (!this.#synced) {
      this.#synced = true;
      for (const reg of this.#registrations) if (reg.active) reg.synced = true;
      for (const w of [...this.#syncWaiters]) w(true);
      this.#log.debug('synced', { objects: this.#store.sizeUnfiltered, resourceVersion: rv });
    }
  }

  /**
   * Transforms and freezes one object. An object that cannot be ingested (not an object, no
   * name, a throwing transform) is logged, counted and skipped: one bad object must never wedge
   * the informer.
   */
  #ingest(raw: KubeObject, apiVersion?: string): T | undefined {
    try {
      if (typeof raw !== 'object' || raw === null || !raw.metadata?.name) {
        throw new TypeError('not a Kubernetes object with metadata.name');
      }
      if (apiVersion && raw.apiVersion === undefined) {
        raw.apiVersion = apiVersion;
        raw.kind = this.key.resource.kind;
      }
      const out = this.#transform(raw);
      if (typeof out !== 'object' || out === null || !out.metadata?.name) {
        throw new TypeError('the transform did not return a Kubernetes object with metadata.name');
      }
      return deepFreeze(out) as T;
    } catch (err) {
      this.#rejected++;
      this.#errors++;
      this.#lastError = `object skipped: ${err instanceof Error ? err.message : String(err)}`;
      this.#log.error('skipping an object that cannot be ingested', {
        error: err,
        name: (raw as KubeObject | null)?.metadata?.name,
        namespace: (raw as KubeObject | null)?.metadata?.namespace,
        resourceVersion: (raw as KubeObject | null)?.metadata?.resourceVersion,
      });
      return undefined;
    }
  }

  #applyList(rawItems: KubeObject[], apiVersion: string): void {
    const initial = !this.#synced;
    this.#deliveringInitial = initial;
    try {
      this.#applyListItems(rawItems, apiVersion, initial);
    } finally {
      this.#deliveringInitial = false;
    }
  }

  #applyListItems(rawItems: KubeObject[], apiVersion: string, initial: boolean): void {
    const seen = new Set<string>();
    for (const raw of rawItems) {
      const obj = this.#ingest(raw, apiVersion);
      if (obj === undefined) {
        // Keep the cached version, if any, rather than reporting a delete for a bad object.
        if (raw?.metadata?.name) seen.add(keyOf(raw));
        continue;
      }
      const key = keyOf(obj);
      seen.add(key);
      const old = this.#store.getUnfiltered(key);
      if (old === undefined) {
        this.#store.set(key, obj);
        this.#deliverAdd(key, obj, initial);
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        this.#store.set(key, obj);
        this.#deliverUpdate(key, old, obj);
      }
    }
    if (this.#store.sizeUnfiltered > seen.size) {
      for (const old of this.#store.listUnfiltered()) {
        const key = keyOf(old);
        if (seen.has(key)) continue;
        this.#store.delete(key);
        this.#deliverDelete(key, { tombstone: true, key, obj: old });
      }
    }
  }

  async #watchOnce(signal: AbortSignal): Promise<WatchOutcome> {
    const { resource, namespace, labelSelector, fieldSelector } = this.key;
    const [lo, hi] = this.#watchTimeout;
    const timeoutSeconds = Math.floor(lo + this.#random() * (hi - lo));
    const stream = this.#api.watch<T>(resource, {
      namespace,
      labelSelector,
      fieldSelector,
      resourceVersion: this.#rv,
      allowWatchBookmarks: true,
      timeoutSeconds,
      idleTimeoutMs: this.#idleTimeoutMs,
      signal,
    });
    for await (const event of stream) {
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
        const key = keyOf(obj);
        const old = this.#store.set(key, obj);
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        if (old === undefined) this.#deliverAdd(key, obj, false);
        else this.#deliverUpdate(key, old, obj);
        return undefined;
      }
      case 'DELETED': {
        this.#eventsSeen++;
        const obj = this.#ingest(event.object);
        if (obj === undefined) {
          this.#rv = rawResourceVersion(event.object) ?? this.#rv;
          return undefined;
        }
        const key = keyOf(obj);
        this.#store.delete(key);
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        this.#deliverDelete(key, obj);
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
        this.#errors++;
        this.#lastError =
          `watch ERROR event: ${status.code ?? '?'} ${status.reason ?? ''} ${status.message ?? ''}`.trim();
        if (gone) return 'gone';
        this.#log.warn('watch returned an ERROR event; restarting the watch', { status });
        return 'restart';
      }
      case 'MALFORMED': {
        this.#malformed++;
        this.#errors++;
        this.#lastError = `malformed watch data: ${event.error}`;
        this.#log.warn('malformed watch data; restarting the watch from the last resourceVersion', {
          error: event.error,
          line: event.line.slice(0, 200),
          resourceVersion: this.#rv,
        });
        return 'restart';
      }
      case 'UNKNOWN': {
        this.#unknown++;
        this.#errors++;
        this.#lastError = `unknown watch event type ${event.eventType}`;
        this.#log.warn('ignoring a watch event of unknown type', { eventType: event.eventType });
        return undefined;
      }
    }
  }

  #visible(key: string, obj: T): boolean {
    if (!this.#filter) return true;
    const v = this.#filter.matches(obj);
    if (v) this.#visibleKeys.add(key);
    else this.#visibleKeys.delete(key);
    return v;
  }

  #wasVisible(key: string): boolean {
    return !this.#filter || this.#visibleKeys.has(key);
  }

  #deliverAdd(key: string, obj: T, initial: boolean): void {
    if (!this.#visible(key, obj)) return;
    for (const reg of this.#registrations) {
      if (reg.active) this.#call(reg, 'onAdd', () => reg.handler.onAdd?.(obj, initial));
    }
  }

  #deliverUpdate(key: string, old: T, obj: T): void {
    const was = this.#wasVisible(key);
    const now = this.#visible(key, obj);
    if (!was && !now) return;
    for (const reg of this.#registrations) {
      if (!reg.active) continue;
      if (was && now) this.#call(reg, 'onUpdate', () => reg.handler.onUpdate?.(old, obj));
      else if (now) this.#call(reg, 'onAdd', () => reg.handler.onAdd?.(obj, false));
      else this.#call(reg, 'onDelete', () => reg.handler.onDelete?.(old));
    }
  }

  #deliverDelete(key: string, value: T | Tombstone<T>): void {
    if (!this.#wasVisible(key)) return;
    this.#visibleKeys.delete(key);
    for (const reg of this.#registrations) {
      if (reg.active) this.#call(reg, 'onDelete', () => reg.handler.onDelete?.(value));
    }
  }

  /** Re-evaluates every cached object after the object filter changed. */
  #refilter(): void {
    if (!this.#filter) return;
    for (const obj of this.#store.listUnfiltered()) {
      const key = keyOf(obj);
      const was = this.#visibleKeys.has(key);
      const now = this.#visible(key, obj);
      if (was === now) continue;
      for (const reg of this.#registrations) {
        if (!reg.active) continue;
        if (now) this.#call(reg, 'onAdd', () => reg.handler.onAdd?.(obj, false));
        else this.#call(reg, 'onDelete', () => reg.handler.onDelete?.(obj));
      }
    }
  }

  #call(reg: Registration<T>, what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#handlerErrors++;
      this.#errors++;
      this.#lastError = `${what} handler threw: ${err instanceof Error ? err.message : String(err)}`;
      this.#log.error('event handler threw; other handlers still run', { handler: what, error: err });
      void reg;
    }
  }
}

function rawResourceVersion(raw: unknown): string | undefined {
  const rv = (raw as KubeObject | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

function keyOf(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}
