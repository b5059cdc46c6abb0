import type { ApiClient } from './api.ts';
import type { CrdWatcher } from './crd-watcher.ts';
import { isNotFound } from './errors.ts';
import { extractTombstone, type SharedInformer } from './informer.ts';
import { Backoff } from './internal/backoff.ts';
import { sleep } from './internal/sleep.ts';
import type { Logger } from './logger.ts';
import type { KubeObject } from './object.ts';
import type { ResourceRegistry } from './registry.ts';
import type { GroupVersionResource } from './resource.ts';
import { serializeError } from './serialize-error.ts';

/** The CRD fields the watcher reads. */
interface CrdLike extends KubeObject {
  spec?: {
    group?: string;
    names?: { plural?: string };
    versions?: Array<{ name?: string; served?: boolean }>;
  };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

const keyOf = (g: GroupVersionResource): string => `${g.resource}.${g.version}.${g.group}`;

function servedVersions(crd: CrdLike): GroupVersionResource[] {
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  if (!group || !plural) return [];
  const established = (crd.status?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
  if (!established) return [];
  return (crd.spec?.versions ?? [])
    .filter((v) => v.served && v.name)
    .map((v) => ({ group, version: v.name!, resource: plural }));
}

/**
 * A {@link CrdWatcher} on a shared informer over CustomResourceDefinitions. A CRD counts as known
 * once it is Established and discovery lists its resource for that version (discovery lags the
 * CRD object by up to a few seconds; the watcher polls it with backoff).
 */
/** What {@link InformerCrdWatcher} watches with. */
export interface InformerCrdWatcherOptions {
  /** The CustomResourceDefinition informer (the client starts it). */
  readonly informer: SharedInformer<KubeObject>;
  /** For the discovery polls. */
  readonly api: ApiClient;
  /** Told about each served resource. */
  readonly registry: ResourceRegistry;
  /** Where the watcher logs (as component `crd-watcher`). */
  readonly logger: Logger;
  /** The signal of the client's run, once it runs: bounds the discovery polls. */
  readonly signal: () => AbortSignal | undefined;
}

export class InformerCrdWatcher implements CrdWatcher {
  readonly #informer: SharedInformer<CrdLike>;
  readonly #api: ApiClient;
  readonly #registry: ResourceRegistry;
  readonly #log: Logger;
  readonly #signal: () => AbortSignal | undefined;
  readonly #served = new Set<string>();
  readonly #pending = new Set<string>();
  readonly #callbacks = new Map<string, Array<() => void>>();
  readonly #subscribers = new Set<(gvr: GroupVersionResource, present: boolean) => void>();
  /** CRD name → the gvr keys it provides. */
  readonly #byCrd = new Map<string, GroupVersionResource[]>();

  /** Creates the watcher over `informer` (which the client starts). */
  constructor({ informer, api, registry, logger, signal }: InformerCrdWatcherOptions) {
    this.#informer = informer as SharedInformer<CrdLike>;
    this.#api = api;
    this.#registry = registry;
    this.#log = logger.child({ component: 'crd-watcher' });
    this.#signal = signal;
    this.#informer.addEventHandler({
      onAdd: (crd) => this.#reconcile(crd),
      onUpdate: (_old, crd) => this.#reconcile(crd),
      onDelete: (value) => this.#remove(extractTombstone(value)),
    });
  }

  /** {@inheritDoc CrdWatcher.known} */
  known(gvr: GroupVersionResource): boolean {
    return this.#served.has(keyOf(gvr));
  }

  /** {@inheritDoc CrdWatcher.hasSynced} */
  hasSynced(): boolean {
    return this.#informer.hasSynced() && this.#pending.size === 0;
  }

  /** {@inheritDoc CrdWatcher.waitUntilSynced} */
  async waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    if (!(await this.#informer.waitUntilSynced(signal))) return false;
    while (this.#pending.size > 0) {
      if (!(await sleep(50, signal))) return false;
    }
    return true;
  }

  /** {@inheritDoc CrdWatcher.knownOrCallback} */
  knownOrCallback(gvr: GroupVersionResource, callback: () => void): boolean {
    return this.onceKnown(gvr, callback) === true;
  }

  /** {@inheritDoc CrdWatcher.onceKnown} */
  onceKnown(gvr: GroupVersionResource, callback: () => void): true | (() => void) {
    if (this.hasSynced() && this.known(gvr)) return true;
    const key = keyOf(gvr);
    if (this.known(gvr)) {
      // Known but our own sync is not complete: answer false and call back at once.
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled) callback();
      });
      return () => {
        cancelled = true;
      };
    }
    const list = this.#callbacks.get(key) ?? [];
    list.push(callback);
    this.#callbacks.set(key, list);
    return () => {
      const current = this.#callbacks.get(key);
      if (!current) return;
      const i = current.indexOf(callback);
      if (i !== -1) current.splice(i, 1);
      if (current.length === 0) this.#callbacks.delete(key);
    };
  }

  /** How many callbacks wait for CRDs that are not known yet (for leak checks). */
  pendingCallbacks(): number {
    let n = 0;
    for (const list of this.#callbacks.values()) n += list.length;
    return n;
  }

  /** {@inheritDoc CrdWatcher.waitForCRD} */
  waitForCRD(gvr: GroupVersionResource, signal: AbortSignal): Promise<boolean> {
    if (this.known(gvr)) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let done = false;
      let unregister: (() => void) | undefined;
      const finish = (v: boolean): void => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        unregister?.();
        resolve(v);
      };
      const onAbort = (): void => finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
      const result = this.onceKnown(gvr, () => finish(true));
      if (result === true) finish(true);
      else unregister = result;
    });
  }

  /** {@inheritDoc CrdWatcher.onChange} */
  onChange(callback: (gvr: GroupVersionResource, present: boolean) => void): () => void {
    this.#subscribers.add(callback);
    return () => this.#subscribers.delete(callback);
  }

  #reconcile(crd: CrdLike): void {
    const name = crd.metadata?.name ?? '';
    const now = servedVersions(crd);
    const before = this.#byCrd.get(name) ?? [];
    this.#byCrd.set(name, now);
    const nowKeys = new Set(now.map(keyOf));
    for (const gone of before) {
      if (!nowKeys.has(keyOf(gone))) this.#markGone(gone);
    }
    for (const gvr of now) {
      const key = keyOf(gvr);
      if (this.#served.has(key) || this.#pending.has(key)) continue;
      this.#pending.add(key);
      void this.#confirm(gvr);
    }
  }

  #remove(crd: CrdLike): void {
    const name = crd.metadata?.name ?? '';
    for (const gvr of this.#byCrd.get(name) ?? []) this.#markGone(gvr);
    this.#byCrd.delete(name);
  }

  #markGone(gvr: GroupVersionResource): void {
    const key = keyOf(gvr);
    this.#pending.delete(key);
    if (!this.#served.delete(key)) return;
    this.#registry.invalidate();
    this.#log.info('CRD no longer served', { resource: key });
    this.#notify(gvr, false);
  }

  /** Polls discovery until it lists the resource, then marks it served and runs callbacks. */
  async #confirm(gvr: GroupVersionResource): Promise<void> {
    const key = keyOf(gvr);
    const backoff = new Backoff(100, 2000);
    for (;;) {
      const signal = this.#signal();
      if (!this.#pending.has(key) || signal?.aborted) return;
      try {
        const list = await this.#api.request<{ resources?: Array<{ name: string }> }>({
          method: 'GET',
          path: `/apis/${gvr.group}/${gvr.version}`,
          signal,
        });
        if ((list.resources ?? []).some((r) => r.name === gvr.resource)) break;
      } catch (err) {
        if (signal?.aborted) return;
        if (!isNotFound(err))
          this.#log.debug('discovery check failed; retrying', { resource: key, err: serializeError(err) });
      }
      if (!(await sleep(backoff.next(), signal))) return;
    }
    if (!this.#pending.delete(key)) return;
    this.#served.add(key);
    this.#registry.invalidate();
    this.#log.info('CRD served', { resource: key });
    const callbacks = this.#callbacks.get(key) ?? [];
    this.#callbacks.delete(key);
    for (const cb of callbacks) {
      try {
        cb();
      } catch (err) {
        this.#log.error('CRD callback threw', { resource: key, err: serializeError(err) });
      }
    }
    this.#notify(gvr, true);
  }

  #notify(gvr: GroupVersionResource, present: boolean): void {
    for (const s of [...this.#subscribers]) {
      try {
        s(gvr, present);
      } catch (err) {
        this.#log.error('CRD change subscriber threw', { err: serializeError(err) });
      }
    }
  }
}
