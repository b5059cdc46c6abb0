import type { KubeClient } from './client.ts';
import { describeInformerKey } from './client.ts';
import { isNotFound } from './errors.ts';
import type {
  HandlerRegistration,
  InformerHealth,
  InformerKey,
  ResourceEventHandler,
  SharedInformer,
} from './informer.ts';
import { HandlerSet } from './internal/handler-set.ts';
import { InformerCounters } from './internal/informer-counters.ts';
import { cacheKey } from './internal/ingest.ts';
import { type MemberScope, memberScope } from './internal/member-scope.ts';
import { sleep } from './internal/sleep.ts';
import { UnionCache, type UnionSource } from './internal/union-cache.ts';
import { unionHealth } from './internal/union-health.ts';
import { type InformerLease, leaseInformer } from './kube-client.ts';
import type { Logger } from './logger.ts';
import type { KubeObject } from './object.ts';
import { ObjectStore } from './object-store.ts';
import type { TypedResourceDescriptor } from './resource.ts';
import { serializeError } from './serialize-error.ts';
import type { UnionInformer, UnionInformerOptions, UnionMember } from './union-informer.ts';

/** One member: its scope, its informer (held by a lease) and what the union knows of it. */
interface Member<T extends KubeObject> extends UnionSource {
  readonly scope: MemberScope;
  readonly lease: InformerLease<T>;
  /** Aborted when the member leaves: ends the wait for its sync. */
  readonly gone: AbortController;
  registration: HandlerRegistration | undefined;
  /** Its informer synced and its state reached the union. */
  synced: boolean;
  /** Dropped by `setMembers`; leaves once every staying member has synced. */
  leaving: boolean;
  removed: boolean;
  /** Its informer's `health().lists` when its claims were last checked (a relist re-checks them). */
  listsAtCheck: number;
}

type Waiter = (ok: boolean) => void;

class UnionInformerImpl<T extends KubeObject> implements UnionInformer<T> {
  readonly key: InformerKey;
  readonly #kube: KubeClient;
  readonly #resource: TypedResourceDescriptor<T>;
  readonly #transform: UnionInformerOptions<T>['transform'];
  readonly #store: ObjectStore<T>;
  readonly #handlers: HandlerSet<T>;
  readonly #counters: InformerCounters;
  readonly #cache: UnionCache<T, Member<T>>;
  readonly #members = new Map<string, Member<T>>();
  readonly #log: Logger;
  /** Aborted when the union stops: ends its reads. */
  readonly #gone = new AbortController();
  /** Releases of removed members' informers still settling. */
  readonly #releases = new Set<Promise<void>>();
  #synced = false;
  #syncWaiters: Waiter[] = [];
  #memberWaiters: Waiter[] = [];
  #runSignal: AbortSignal | undefined;
  #running: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  /** Settles once stopped and the released members' loops exited: what `run` returns. */
  readonly #stopped: Promise<void>;
  #markStopped: () => void = () => {};

  constructor(options: UnionInformerOptions<T>) {
    this.#kube = options.kube;
    this.#resource = options.resource;
    this.#transform = options.transform;
    this.key = { resource: options.resource, transformName: options.transform?.name ?? 'default' };
    const log = options.kube.logger.child({ informer: `union of ${describeInformerKey(this.key)}` });
    this.#log = log;
    const counters = new InformerCounters(log);
    this.#counters = counters;
    this.#store = new ObjectStore<T>(undefined, (index, key, err) => counters.indexFailed(index, key, err));
    this.#handlers = new HandlerSet<T>(undefined, (callback, err) => counters.handlerThrew(callback, err));
    this.#cache = new UnionCache<T, Member<T>>({
      store: this.#store,
      handlers: this.#handlers,
      initial: () => !this.#synced,
      deleteCheck: {
        mayMove: (obj, from) => this.#mayMove(obj, from),
        movedTo: (obj) => this.#movedTo(obj),
      },
    });
    this.#stopped = new Promise<void>((resolve) => {
      this.#markStopped = resolve;
    });
    this.setMembers(options.members);
  }

  get store(): ObjectStore<T> {
    return this.#store;
  }

  members(): UnionMember[] {
    return [...this.#members.values()].filter((m) => !m.leaving).map((m) => m.scope.member);
  }

  setMembers(members: readonly UnionMember[]): void {
    if (this.#stopping) throw new Error('the union informer was stopped');
    const scopes = new Map<string, MemberScope>();
    for (const m of members) {
      const scope = memberScope(m);
      scopes.set(scope.id, scope);
    }
    // Lease every new member first: an invalid scope throws before anything changed.
    const added: Member<T>[] = [];
    try {
      for (const [id, scope] of scopes) {
        if (this.#members.has(id)) continue;
        added.push(this.#newMember(scope));
      }
    } catch (err) {
      for (const m of added) this.#track(m.lease.release());
      throw err;
    }
    for (const [id, m] of this.#members) m.leaving = !scopes.has(id);
    for (const m of added) {
      this.#members.set(m.scope.id, m);
      this.#attach(m);
    }
    this.#settle();
  }

  #newMember(scope: MemberScope): Member<T> {
    const lease = leaseInformer(this.#kube, this.#resource, { ...scope.member, transform: this.#transform });
    return {
      scope,
      lease,
      gone: new AbortController(),
      registration: undefined,
      keys: new Set(),
      claims: new Set(),
      synced: false,
      leaving: false,
      removed: false,
      listsAtCheck: 0,
    };
  }

  #attach(m: Member<T>): void {
    m.registration = m.lease.informer.addEventHandler({
      onAdd: (obj) => this.#onEvent(m, () => this.#cache.upsert(m, obj)),
      onUpdate: (_old, obj) => this.#onEvent(m, () => this.#cache.upsert(m, obj)),
      onDelete: (value) => this.#onEvent(m, () => this.#cache.remove(m, value)),
    });
    if (this.#runSignal) m.lease.run(this.#runSignal);
    // Fire and forget: it never rejects (waitUntilSynced and sleep resolve); it ends when the
    // member syncs or leaves.
    void this.#awaitSync(m);
  }

  #onEvent(m: Member<T>, apply: () => void): void {
    if (m.removed) return;
    apply();
    // A claim the member relisted without is over (its add will not come).
    if (m.claims.size > 0 && m.synced) {
      const lists = m.lease.informer.health().lists;
      if (lists !== m.listsAtCheck) this.#checkClaims(m);
    }
  }

  #checkClaims(m: Member<T>): void {
    m.listsAtCheck = m.lease.informer.health().lists;
    const store = m.lease.informer.store;
    this.#cache.verifyClaims(m, (key) => store.get(key) !== undefined);
  }

  /** Another member could hold the object: its scope may cover the object's namespace. */
  #mayMove(obj: T, from: Member<T>): boolean {
    const namespace = obj.metadata?.namespace;
    for (const m of this.#members.values()) {
      if (m === from || m.removed) continue;
      const ns = m.scope.member.namespace;
      if (ns === undefined || ns === namespace) return true;
    }
    return false;
  }

  /** Reads the object from the API server: the member whose scope it is in now, if any. */
  async #movedTo(obj: T): Promise<Member<T> | undefined> {
    const { name, namespace } = obj.metadata ?? {};
    let now: KubeObject;
    try {
      now = await this.#kube.api.get(
        { resource: this.#resource, name: name ?? '', namespace },
        {
          signal: this.#gone.signal,
        },
      );
    } catch (err) {
      // Gone (404), or unreadable: the delete stands.
      if (!isNotFound(err))
        this.#log.debug('could not read a deleted object back; delivering the delete', {
          name,
          namespace,
          err: serializeError(err),
        });
      return undefined;
    }
    const filter = this.#kube.objectFilter;
    if (filter && !filter.matches(now)) return undefined;
    const candidates = [...this.#members.values()].filter((m) => !m.removed);
    // Staying members first: a leaving one would drop the key again soon.
    candidates.sort((a, b) => Number(a.leaving) - Number(b.leaving));
    const to = candidates.find((m) => m.scope.certainlyContains(now));
    if (to?.synced && to.claims.size === 0) to.listsAtCheck = to.lease.informer.health().lists;
    return to;
  }

  async #awaitSync(m: Member<T>): Promise<void> {
    const signal = m.gone.signal;
    if (!(await m.lease.informer.waitUntilSynced(signal))) return;
    // A handler registered on a synced informer receives its state in a microtask; otherwise
    // the registration synced with the informer. Either way it is a matter of microtasks.
    for (let i = 0; !m.registration!.hasSynced(); i++) {
      if (signal.aborted) return;
      if (i < 100) await Promise.resolve();
      else if (!(await sleep(10, signal))) return;
    }
    if (m.removed) return;
    m.synced = true;
    this.#checkClaims(m);
    this.#settle();
  }

  /** Removes leaving members and marks the union synced once every staying member synced. */
  #settle(): void {
    if (this.#stopping) return;
    const all = [...this.#members.values()];
    if (!all.every((m) => m.leaving || m.synced)) return;
    for (const m of all) if (m.leaving) this.#remove(m, true);
    if (!this.#synced) {
      this.#synced = true;
      this.#handlers.markSynced();
      this.#syncWaiters = wake(this.#syncWaiters, true);
    }
    this.#memberWaiters = wake(this.#memberWaiters, true);
  }

  #remove(m: Member<T>, dropKeys: boolean): void {
    this.#members.delete(m.scope.id);
    m.removed = true;
    m.gone.abort();
    m.registration?.remove();
    if (dropKeys) this.#cache.drop(m);
    this.#track(m.lease.release());
  }

  #track(release: Promise<void>): void {
    this.#releases.add(release);
    void release.finally(() => this.#releases.delete(release));
  }

  membersSynced(): boolean {
    return [...this.#members.values()].every((m) => !m.leaving && m.synced);
  }

  waitForMembers(signal?: AbortSignal): Promise<boolean> {
    if (this.membersSynced() && !this.#stopping) return Promise.resolve(true);
    return this.#wait(signal, (w) => {
      this.#memberWaiters.push(w);
      return () => (this.#memberWaiters = this.#memberWaiters.filter((x) => x !== w));
    });
  }

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    // Before anything arrived: live, it receives the initial state as it lands.
    if (!this.#synced && this.#store.sizeUnfiltered === 0) return this.#handlers.add(handler);
    const reg = this.#handlers.add(handler, () => this.#store.list());
    if (this.#synced) return reg;
    // Joined while members were still syncing: synced with the union, not before.
    return { hasSynced: () => reg.hasSynced() && this.#synced, remove: () => reg.remove() };
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    return this.#wait(signal, (w) => {
      this.#syncWaiters.push(w);
      return () => (this.#syncWaiters = this.#syncWaiters.filter((x) => x !== w));
    });
  }

  #wait(signal: AbortSignal | undefined, enlist: (w: Waiter) => () => void): Promise<boolean> {
    if (this.#stopping || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => finish(false);
      const finish = (ok: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        delist();
        resolve(ok);
      };
      const delist = enlist(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  run(signal: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    this.#runSignal = signal;
    this.#running = this.#stopped;
    // Fire and forget: #stop never rejects; what it settles is #stopped, which run returns.
    const stop = (): void => void this.#stop();
    if (this.#stopping || signal.aborted) stop();
    else {
      for (const m of this.#members.values()) m.lease.run(signal);
      signal.addEventListener('abort', stop, { once: true });
    }
    return this.#running;
  }

  isStarted(): boolean {
    return this.#runSignal !== undefined;
  }

  /** Stops once: handlers off the members, leases given back; settles when released members stopped. */
  #stop(): Promise<void> {
    if (this.#stopping) return this.#stopping;
    for (const m of [...this.#members.values()]) this.#remove(m, false);
    this.#cache.close();
    this.#gone.abort();
    this.#syncWaiters = wake(this.#syncWaiters, false);
    this.#memberWaiters = wake(this.#memberWaiters, false);
    // A release settles once the informer's loop exited; it never rejects.
    this.#stopping = Promise.all([...this.#releases]).then(() => this.#markStopped());
    return this.#stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#stop();
  }

  health(): InformerHealth {
    return unionHealth({
      members: [...this.#members.values()].map((m) => m.lease.informer as SharedInformer),
      started: this.isStarted(),
      stopped: this.#stopping !== undefined,
      synced: this.#synced,
      own: this.#counters.counts(),
      indexErrors: this.#store.indexErrors,
      objects: this.#store.sizeUnfiltered,
    });
  }

  lastSyncResourceVersion(): string | undefined {
    const members = [...this.#members.values()];
    return members.length === 1 ? members[0]!.lease.informer.lastSyncResourceVersion() : undefined;
  }

  listUnfiltered(): T[] {
    if (!this.#kube.objectFilter) return this.#store.listUnfiltered();
    // The members' caches also hold what the object filter hides; the union's shows the rest.
    const all = new Map<string, T>();
    for (const m of this.#members.values()) {
      for (const obj of m.lease.informer.listUnfiltered()) all.set(cacheKey(obj), obj);
    }
    for (const obj of this.#store.listUnfiltered()) all.set(cacheKey(obj), obj);
    return [...all.values()];
  }

  retryNow(): void {
    for (const m of this.#members.values()) m.lease.informer.retryNow();
  }
}

function wake(waiters: Waiter[], ok: boolean): Waiter[] {
  for (const w of [...waiters]) w(ok);
  return [];
}

/**
 * Creates a {@link UnionInformer}: one cache over several list/watch scopes of one resource, e.g.
 * the namespaces a controller's RBAC covers when it may not watch the whole cluster. Each member
 * is the KubeClient's shared informer for its scope: `kube.runAndWait(signal)` starts them (at
 * once when the client already runs), or `union.run(signal)` starts those nothing started yet.
 * Construction does no I/O.
 *
 * @example Three namespaces, one cache, against the fake cluster
 * {@includeCode ./example.test.ts#union}
 *
 * @throws TypeError or SelectorError (as `kube.informer`) for an invalid member scope.
 */
export function createUnionInformer<T extends KubeObject>(
  options: UnionInformerOptions<T>,
): UnionInformer<T> {
  return new UnionInformerImpl<T>(options);
}
