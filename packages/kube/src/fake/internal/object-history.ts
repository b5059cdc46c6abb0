import {
  type ListOptions,
  type ObjectList,
  type WatchEvent,
  WatchIdleTimeoutError,
  type WatchOptions,
} from '../../api.ts';
import { deepFreeze, type KubeObject } from '../../object.ts';
import { apiVersionOf } from '../../resource.ts';
import type { ResourceMatcher } from '../fake-cluster-options.ts';
import { isObject, type JsonObject } from './json.ts';
import type { Selection } from './request-target.ts';
import { type ServedResource, storageKeyOf } from './resource-table.ts';
import type { ObjectPredicate } from './selectors.ts';
import * as S from './status.ts';
import { frozenOutputOf, meta, outputOf } from './stored-object.ts';
import { WatchChannel } from './watch-channel.ts';

/** The types of stored events. */
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface StoredEvent {
  readonly rv: number;
  readonly storageKey: string;
  readonly type: EventType;
  readonly key: string;
  /** The new state; for DELETED the last state, stamped with the delete's resourceVersion. */
  readonly object: JsonObject;
  /** The state before, absent for ADDED. */
  readonly prev: JsonObject | undefined;
}

interface Watcher {
  readonly storageKey: string;
  readonly served: ServedResource;
  readonly matches: ObjectPredicate;
  readonly bookmarks: boolean;
  readonly channel: WatchChannel;
  readonly owner: object | undefined;
  /** Events carry the stored (frozen) objects, not copies (see `WATCH_FROZEN`). */
  readonly frozen: boolean;
  /** Events at or below this resourceVersion are not delivered (a watch from a future resourceVersion). */
  readonly since: number;
  touch(): void;
}

/** Called after every commit, for the follow-ups of a write (CRDs served, namespaces cascading). */
export type CommitHook = (served: ServedResource, type: EventType, stored: JsonObject) => void;

/** Options of an {@link ObjectHistory}. */
export interface ObjectHistoryOptions {
  /** How many events the history keeps before compacting the oldest. */
  readonly historyLimit: number;
  /** Interval of periodic BOOKMARK events; 0 disables them. */
  readonly bookmarkIntervalMs: number;
  /** Runs after every commit. */
  readonly onCommit: CommitHook;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch (err) {
    throw S.toError(
      S.badRequest(`invalid continue token: continue key is not valid: ${(err as Error).message}`),
    );
  }
  if (
    !isObject(parsed) ||
    parsed.v !== 'meta.k8s.io/v1' ||
    typeof parsed.rv !== 'number' ||
    typeof parsed.start !== 'string'
  ) {
    throw S.toError(
      S.badRequest(
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      ),
    );
  }
  return { rv: parsed.rv, start: parsed.start };
}

/**
 * The storage of a fake cluster and its history: the objects of every resource, one global
 * resourceVersion, the event log (compacted past a limit), reads at an older resourceVersion,
 * and the watches that events are delivered to.
 */
export class ObjectHistory {
  readonly #objects = new Map<string, Map<string, JsonObject>>();
  #events: StoredEvent[] = [];
  #rv = 0;
  #compacted = 0;
  readonly #watchers = new Set<Watcher>();
  readonly #historyLimit: number;
  readonly #bookmarkIntervalMs: number;
  readonly #onCommit: CommitHook;
  #closed = false;

  /** An empty history at resourceVersion 0. */
  constructor(options: ObjectHistoryOptions) {
    this.#historyLimit = options.historyLimit;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs;
    this.#onCommit = options.onCommit;
  }

  /** The current (latest) resourceVersion. */
  get rv(): number {
    return this.#rv;
  }

  /** The resourceVersion at or below which history was compacted. */
  get compacted(): number {
    return this.#compacted;
  }

  /** The objects of one resource by key (created empty when absent); live, not copies. */
  bucket(storageKey: string): Map<string, JsonObject> {
    let b = this.#objects.get(storageKey);
    if (!b) {
      b = new Map();
      this.#objects.set(storageKey, b);
    }
    return b;
  }

  /** Stores a new state (or removes it for DELETED), records the event and delivers it. */
  commit(
    served: ServedResource,
    {
      type,
      key,
      next,
      prev,
    }: { type: EventType; key: string; next: JsonObject; prev?: JsonObject | undefined },
  ): JsonObject {
    this.#rv++;
    // `next` is the pipeline's own: its top level and metadata are copied (a DELETED event's
    // `next` is the stored object), everything below is frozen in place, not copied.
    const stamped: JsonObject = { ...next, metadata: { ...meta(next), resourceVersion: String(this.#rv) } };
    deepFreeze(stamped);
    const bucket = this.bucket(served.storageKey);
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, stamped);
    const event: StoredEvent = {
      rv: this.#rv,
      storageKey: served.storageKey,
      type,
      key,
      object: stamped,
      prev,
    };
    this.#events.push(event);
    if (this.#events.length > this.#historyLimit) {
      const dropped = this.#events.splice(0, this.#events.length - this.#historyLimit);
      this.#compacted = dropped[dropped.length - 1]!.rv;
    }
    for (const w of [...this.#watchers]) if (w.storageKey === served.storageKey) this.#deliver(w, event);
    this.#onCommit(served, type, stamped);
    return stamped;
  }

  /** The objects of a resource as they were at `rv` (undoing later events). */
  snapshot(storageKey: string, rv: number): Map<string, JsonObject> {
    const state = new Map(this.bucket(storageKey));
    for (let i = this.#events.length - 1; i >= 0; i--) {
      const e = this.#events[i]!;
      if (e.rv <= rv) break;
      if (e.storageKey !== storageKey) continue;
      if (e.prev) state.set(e.key, e.prev);
      else state.delete(e.key);
    }
    return state;
  }

  /**
   * A LIST of `served` at the resourceVersion `opts` asks for, with the selection applied and
   * paginated by `limit` and `continue`.
   */
  list(served: ServedResource, opts: ListOptions, selection: Selection): ObjectList {
    const { matches, singleKey } = selection;
    let atRv = this.#rv;
    let after: string | undefined;
    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      if (token.rv !== -1 && token.rv < this.#compacted) {
        throw S.toError(
          S.expired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
            { continue: encodeContinue(-1, token.start) },
          ),
        );
      }
      atRv = token.rv === -1 ? this.#rv : token.rv;
      after = token.start;
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = Number(opts.resourceVersion);
      if (!/^\d+$/.test(opts.resourceVersion)) {
        throw S.toError(
          S.badRequest(`Invalid value: "${opts.resourceVersion}": resourceVersion must be an integer`),
        );
      }
      if (rv > this.#rv) {
        throw S.toError(
          S.failure(504, 'Timeout', {
            message: `Timeout: Too large resource version: ${rv}, current: ${this.#rv}`,
            details: {
              causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
              retryAfterSeconds: 1,
            },
          }),
        );
      }
      if (opts.resourceVersionMatch === 'Exact') {
        if (rv < this.#compacted)
          throw S.toError(S.expired('The resourceVersion for the provided list is too old.'));
        atRv = rv;
      }
    }
    const snapshot = this.snapshot(served.storageKey, atRv);
    // The key range the apiserver reads: the namespace's (or all), or the one key a name pins.
    const ns = served.descriptor.namespaced ? opts.namespace : undefined;
    const inRange = (k: string, o: JsonObject) =>
      (after === undefined || k > after) &&
      (singleKey !== undefined ? k === singleKey : !ns || (o.metadata as JsonObject).namespace === ns);
    const range = [...snapshot.entries()]
      .filter(([k, o]) => inRange(k, o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // resourceVersion=0 is served from the watch cache, which does not paginate.
    const cached = !opts.continue && opts.resourceVersion === '0';
    const limit = opts.limit && opts.limit > 0 && !cached ? opts.limit : undefined;
    const page: Array<[string, JsonObject]> = [];
    let scanned = 0;
    for (const entry of range) {
      if (limit !== undefined && page.length >= limit) break;
      scanned++;
      if (matches(entry[1])) page.push(entry);
    }
    // Like the apiserver, a full page continues whenever keys remain, matching or not.
    const more = limit !== undefined && page.length >= limit && scanned < range.length;
    const selectors = Boolean(opts.labelSelector || opts.fieldSelector);
    const listMeta: JsonObject = { resourceVersion: String(atRv) };
    if (more) {
      listMeta.continue = encodeContinue(atRv, page[page.length - 1]![0]);
      if (!selectors) listMeta.remainingItemCount = range.length - scanned;
    }
    const custom = served.crd !== undefined;
    return {
      kind: served.descriptor.listKind ?? `${served.descriptor.kind}List`,
      apiVersion: apiVersionOf(served.descriptor),
      metadata: listMeta,
      items: page.map(([, o]) => {
        const item = outputOf(served, o) as JsonObject;
        if (!custom) {
          delete item.apiVersion;
          delete item.kind;
        }
        return item as KubeObject;
      }),
    };
  }

  /**
   * Opens a watch of `served`: replays the current state (no resourceVersion, or `0`) or the
   * events after the given resourceVersion (410 when compacted), then delivers new events.
   */
  openWatch(
    served: ServedResource,
    opts: WatchOptions,
    {
      matches,
      owner,
      frozen,
    }: { readonly matches: ObjectPredicate; readonly owner: object | undefined; readonly frozen: boolean },
  ): WatchChannel {
    const rvText = opts.resourceVersion;
    if (rvText && !/^\d+$/.test(rvText))
      throw S.toError(S.badRequest(`Invalid value: "${rvText}": resourceVersion must be an integer`));
    const from = rvText ? Number(rvText) : 0;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    let idle: ReturnType<typeof setTimeout> | undefined;
    let interval: ReturnType<typeof setInterval> | undefined;
    const abort = () => channel.end();
    const watcher: Watcher = {
      storageKey: served.storageKey,
      served,
      matches,
      bookmarks: opts.allowWatchBookmarks === true,
      owner,
      frozen,
      since: from > this.#rv ? from : 0,
      channel: new WatchChannel(() => {
        this.#watchers.delete(watcher);
        for (const t of timers) clearTimeout(t);
        if (idle) clearTimeout(idle);
        if (interval) clearInterval(interval);
        opts.signal?.removeEventListener('abort', abort);
      }),
      touch: () => {
        if (opts.idleTimeoutMs === undefined || channel.ended) return;
        if (idle) clearTimeout(idle);
        idle = setTimeout(
          () => channel.fail(new WatchIdleTimeoutError(opts.idleTimeoutMs!)),
          opts.idleTimeoutMs,
        );
      },
    };
    const channel = watcher.channel;
    if (this.#closed || opts.signal?.aborted) {
      channel.end();
      return channel;
    }
    opts.signal?.addEventListener('abort', abort, { once: true });
    if (!rvText || rvText === '0') {
      const current = [...this.bucket(served.storageKey).entries()].sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      );
      for (const [, o] of current)
        if (matches(o)) channel.push({ type: 'ADDED', object: this.#output(watcher, o) });
      if (watcher.bookmarks) channel.push(this.#bookmark(served, true));
    } else if (from < this.#compacted) {
      channel.push({
        type: 'ERROR',
        status: S.expired(`too old resource version: ${from} (${this.#compacted + 1})`),
      });
      channel.end();
      return channel;
    } else {
      for (const e of this.#events)
        if (e.rv > from && e.storageKey === served.storageKey) this.#deliver(watcher, e);
    }
    this.#watchers.add(watcher);
    watcher.touch();
    if (opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0) {
      timers.push(setTimeout(() => channel.end(), opts.timeoutSeconds * 1000));
    }
    if (watcher.bookmarks && this.#bookmarkIntervalMs > 0) {
      interval = setInterval(() => {
        channel.push(this.#bookmark(served));
        watcher.touch();
      }, this.#bookmarkIntervalMs);
    }
    return channel;
  }

  /** Delivers an event to a watch, as the change it is for the watch's selection. */
  #deliver(w: Watcher, e: StoredEvent): void {
    if (e.rv <= w.since) return;
    const now = e.type !== 'DELETED' && w.matches(e.object);
    const before = e.prev !== undefined && w.matches(e.prev);
    let type: EventType | undefined;
    if (e.type === 'DELETED') type = w.matches(e.object) ? 'DELETED' : undefined;
    else if (e.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (now) type = before ? 'MODIFIED' : 'ADDED';
    else if (before) type = 'DELETED';
    if (!type) return;
    let object = e.object;
    if (e.type === 'MODIFIED' && type === 'DELETED') {
      // Leaving the selection: the apiserver sends the last state that matched, at the new resourceVersion.
      const prev = e.prev!;
      object = deepFreeze({ ...prev, metadata: { ...meta(prev), resourceVersion: String(e.rv) } });
    }
    w.channel.push({ type, object: this.#output(w, object) });
    w.touch();
  }

  /** What a watch gets of a stored object: a copy, or the frozen object itself. */
  #output(w: Watcher, obj: JsonObject): KubeObject {
    return w.frozen ? frozenOutputOf(w.served, obj) : outputOf(w.served, obj);
  }

  /** A BOOKMARK at the current resourceVersion (marking the end of the initial events when asked). */
  #bookmark(served: ServedResource, initialEventsEnd = false): WatchEvent {
    return {
      type: 'BOOKMARK',
      object: {
        kind: served.descriptor.kind,
        apiVersion: apiVersionOf(served.descriptor),
        metadata: {
          resourceVersion: String(this.#rv),
          ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
        },
      },
    };
  }

  /** How many watches are open (optionally for one resource). */
  watcherCount(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of this.#watchers) if (!resource || w.storageKey === storageKeyOf(resource)) n++;
    return n;
  }

  /**
   * Drops the event history up to `resourceVersion` (default: everything up to now), as etcd
   * compaction does: watches and continue tokens from before it get `410 Expired`.
   */
  compact(resourceVersion?: string): void {
    const target = resourceVersion === undefined ? this.#rv : Number(resourceVersion);
    if (!Number.isFinite(target) || target <= this.#compacted) return;
    this.#compacted = Math.min(target, this.#rv);
    this.#events = this.#events.filter((e) => e.rv > this.#compacted);
  }

  /**
   * Ends live watches (optionally of one resource) with an `ERROR` event carrying `410 Expired`,
   * the way the apiserver ends a watch that fell out of its window. With `compact` (default true)
   * the history is compacted first, so resuming from the watcher's last resourceVersion fails
   * with 410 too and the client must relist.
   */
  expireWatches(options: { resource?: ResourceMatcher; compact?: boolean } = {}): number {
    if (options.compact ?? true) this.compact();
    let n = 0;
    for (const w of [...this.#watchers]) {
      if (options.resource && w.storageKey !== storageKeyOf(options.resource)) continue;
      w.channel.push({
        type: 'ERROR',
        status: S.expired(`too old resource version: ${this.#compacted} (${this.#compacted + 1})`),
      });
      w.channel.end();
      n++;
    }
    return n;
  }

  /** Ends live watches (optionally of one resource) normally, as a server-side timeout or a dropped connection does. Returns how many. */
  disconnectWatches(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of [...this.#watchers]) {
      if (resource && w.storageKey !== storageKeyOf(resource)) continue;
      w.channel.end();
      n++;
    }
    return n;
  }

  /** Sends a BOOKMARK at the current resourceVersion to every watch that allows bookmarks. Returns how many. */
  sendBookmarks(resource?: ResourceMatcher): number {
    let n = 0;
    for (const w of this.#watchers) {
      if (!w.bookmarks || (resource && w.storageKey !== storageKeyOf(resource))) continue;
      w.channel.push(this.#bookmark(w.served));
      w.touch();
      n++;
    }
    return n;
  }

  /** Ends every watch; later watches end at once. Stored objects stay readable. */
  close(): void {
    this.#closed = true;
    for (const w of [...this.#watchers]) w.channel.end();
  }

  /** Ends the watches opened by one client (see {@link createFakeApiClient}). */
  closeWatchesOf(owner: object): void {
    for (const w of [...this.#watchers]) if (w.owner === owner) w.channel.end();
  }

  /** Ends the watches of one resource (whose CRD is gone). */
  endWatchesOf(storageKey: string): void {
    for (const w of [...this.#watchers]) if (w.storageKey === storageKey) w.channel.end();
  }
}
