import {
  type CrdWatcher,
  type GroupVersionResource,
  gvrOf,
  type HandlerRegistration,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
  type ResourceEventHandler,
} from '@kubeloom/kube';
import { ResourceNotServedError } from '../errors.ts';
import type { Client, InformerIndex } from '../interfaces.ts';
import type { LabelSelector } from '../label-selector.ts';
import { ApiWriter } from './api-writer.ts';
import type { InformerClient, ResolvedFilter } from './informer-client.ts';
import { pollUntil } from './poll-until.ts';

class DelayedRegistration<T extends KubeObject> implements HandlerRegistration {
  readonly handler: ResourceEventHandler<T>;
  readonly #owner: DelayedClient<T>;
  inner: HandlerRegistration | undefined;

  constructor(owner: DelayedClient<T>, handler: ResourceEventHandler<T>) {
    this.#owner = owner;
    this.handler = handler;
  }

  hasSynced(): boolean {
    return this.inner ? this.inner.hasSynced() : this.#owner.knownMissing();
  }

  remove(): void {
    this.#owner.shutdownHandler(this);
  }
}

interface DelayedIndex<T extends KubeObject> {
  readonly extract: (obj: T) => readonly string[];
  delegate: InformerIndex<T> | undefined;
}

/** Options of {@link DelayedClient}. */
export interface DelayedClientOptions<T extends KubeObject> {
  readonly kube: KubeClient;
  readonly resource: ResourceDescriptor;
  readonly fieldManager?: string | undefined;
  /** The client-side filter; before the CRD loads, `hasSynced` also waits for a dynamic one. */
  readonly filter?: ResolvedFilter<T> | undefined;
  /** Builds the real client once the CRD is served. */
  readonly load: () => InformerClient<T>;
}

/**
 * A client for a CRD that may not exist yet. While the CRD is missing, reads are empty, writes
 * fail with {@link ResourceNotServedError}, and `hasSynced` is the CRD watcher's (true once the
 * CRD is known to be missing). When the CRD becomes served, the real client is built and every
 * handler and index registered before is moved onto it.
 */
export class DelayedClient<T extends KubeObject> extends ApiWriter<T> implements Client<T> {
  readonly resource: ResourceDescriptor;
  readonly #watcher: CrdWatcher;
  readonly #load: () => InformerClient<T>;
  readonly #registrations = new Set<DelayedRegistration<T>>();
  readonly #indexes = new Map<string, DelayedIndex<T>>();
  readonly #gvr: GroupVersionResource;
  readonly #filter: ResolvedFilter<T> | undefined;
  #inner: InformerClient<T> | undefined;
  #startSignal: AbortSignal | undefined;
  /** Unsubscribes from the CRD watcher's changes; set while this loaded client listens. */
  #stopWatching: (() => void) | undefined;

  constructor(options: DelayedClientOptions<T>) {
    const watcher = options.kube.crdWatcher;
    const gvr = gvrOf(options.resource);
    super({
      kube: options.kube,
      resource: options.resource,
      fieldManager: options.fieldManager,
      guard: (verb) => {
        if (watcher.hasSynced() && !watcher.known(gvr))
          throw new ResourceNotServedError(options.resource, verb);
      },
    });
    this.resource = options.resource;
    this.#watcher = watcher;
    this.#gvr = gvr;
    this.#filter = options.filter;
    this.#load = options.load;
    const pending = watcher.onceKnown(gvr, () => {
      this.#cancelPending = undefined;
      this.#swap();
    });
    if (pending === true) this.#swap();
    else this.#cancelPending = pending;
  }

  /** Unregisters the wait for the CRD (while it is still missing). */
  #cancelPending: (() => void) | undefined;

  /**
   * Once loaded, listens to the CRD watcher so that a CRD deleted and installed again makes the
   * informer (backing off on 404s) retry at once. {@link DelayedClient.shutdownHandlers} stops
   * listening; registering a handler or an index again resumes it.
   */
  #watchReinstalls(): void {
    if (!this.#inner || this.#stopWatching) return;
    const gvr = this.#gvr;
    this.#stopWatching = this.#watcher.onChange((changed, present) => {
      if (
        present &&
        this.#inner &&
        changed.group === gvr.group &&
        changed.version === gvr.version &&
        changed.resource === gvr.resource
      ) {
        this.#inner.informer.retryNow();
      }
    });
  }

  /** True once the real informer took over. */
  get loaded(): boolean {
    return this.#inner !== undefined;
  }

  /** True when the CRD watcher has synced, so a missing CRD is known to be missing. */
  knownMissing(): boolean {
    return this.#watcher.hasSynced() && !this.#inner;
  }

  /** Before the CRD loads: the CRD watcher synced, and so did a dynamic filter. */
  #syncedWhileMissing(): boolean {
    return this.#watcher.hasSynced() && (this.#filter?.hasSynced?.() ?? true);
  }

  #swap(): void {
    if (this.#inner) return;
    const inner = this.#load();
    this.#inner = inner;
    for (const reg of this.#registrations) reg.inner = inner.addEventHandler(reg.handler);
    for (const [name, idx] of this.#indexes) idx.delegate = inner.index(name, idx.extract);
    if (this.#startSignal) void inner.run(this.#startSignal);
    this.#watchReinstalls();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#inner?.get(name, namespace);
  }

  list(namespace?: string, selector?: LabelSelector): T[] {
    return this.#inner?.list(namespace, selector) ?? [];
  }

  listUnfiltered(namespace?: string, selector?: LabelSelector): T[] {
    return this.#inner?.listUnfiltered(namespace, selector) ?? [];
  }

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    const reg = new DelayedRegistration(this, handler);
    this.#registrations.add(reg);
    if (this.#inner) reg.inner = this.#inner.addEventHandler(handler);
    this.#watchReinstalls();
    return reg;
  }

  hasSynced(): boolean {
    return this.#inner ? this.#inner.hasSynced() : this.#syncedWhileMissing();
  }

  hasSyncedIgnoringHandlers(): boolean {
    return this.#inner ? this.#inner.hasSyncedIgnoringHandlers() : this.#syncedWhileMissing();
  }

  /** Removes every handler registered through this client and stops listening to the CRD watcher. */
  shutdownHandlers(): void {
    for (const reg of [...this.#registrations]) this.shutdownHandler(reg);
    this.#stopWatching?.();
    this.#stopWatching = undefined;
    // A client whose CRD never appeared stops waiting for it too.
    if (this.#registrations.size === 0 && this.#indexes.size === 0) {
      this.#cancelPending?.();
      this.#cancelPending = undefined;
    }
  }

  shutdownHandler(registration: HandlerRegistration): void {
    const reg = registration as DelayedRegistration<T>;
    if (!this.#registrations.delete(reg)) return;
    reg.inner?.remove();
  }

  index(name: string, extract: (obj: T) => readonly string[]): InformerIndex<T> {
    let idx = this.#indexes.get(name);
    if (!idx) {
      idx = { extract, delegate: this.#inner?.index(name, extract) };
      this.#indexes.set(name, idx);
    }
    this.#watchReinstalls();
    const held = idx;
    return { name, lookup: (key) => held.delegate?.lookup(key) ?? [] };
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return pollUntil(() => this.hasSynced(), signal);
  }

  run(signal: AbortSignal): Promise<void> {
    this.#startSignal ??= signal;
    if (this.#inner) return this.#inner.run(signal);
    // Not loaded yet: the informer starts when the CRD appears. Settles once stopped.
    return new Promise<void>((resolve) => {
      const stopped = (): void => {
        if (this.#inner) void this.#inner.run(signal).then(resolve);
        else resolve();
      };
      if (signal.aborted) stopped();
      else signal.addEventListener('abort', stopped, { once: true });
    });
  }
}
