import { type KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { ApiClient } from './api.ts';
import { builtins } from './builtins.ts';
import type { InformerOptions, InformerTuning, KubeClient, ServerVersionInfo } from './client.ts';
import type { CrdWatcher } from './crd-watcher.ts';
import { DiscoveryRegistry } from './discovery-registry.ts';
import { parseFieldSelector } from './field-selector.ts';
import type { SharedInformer } from './informer.ts';
import { InformerCrdWatcher } from './informer-crd-watcher.ts';
import { sleep } from './internal/sleep.ts';
import { parseLabelSelector } from './label-selector.ts';
import { consoleLogger, type Logger } from './logger.ts';
import type { KubeObject } from './object.ts';
import type { ObjectFilter } from './object-filter.ts';
import type { ResourceRegistry } from './registry.ts';
import type { ResourceDescriptor, TypedResourceDescriptor } from './resource.ts';
import { InformerEngine } from './shared-informer.ts';
import { stripManagedFields } from './strip-managed-fields.ts';

/** What {@link kubeClientOver} builds a client from (see `KubeClientOptions`). */
export interface KubeClientParts {
  /** The transport. */
  readonly api: ApiClient;
  /** The kubeconfig behind `api`, for client-node's typed APIs (absent for the fake). */
  readonly kubeConfig?: KubeConfig | undefined;
  /** Where every component logs. Default: JSON lines on stderr at `warn`. */
  readonly logger?: Logger | undefined;
  /** A client-wide object filter consulted by every informer. */
  readonly objectFilter?: ObjectFilter | undefined;
  /** Informer engine tuning. */
  readonly tuning?: InformerTuning | undefined;
  /** A registry to use instead of discovery over `api`. */
  readonly registry?: ResourceRegistry | undefined;
}

/** One shared informer of a client, and who holds it. */
interface InformerEntry {
  readonly engine: InformerEngine;
  /** Stops this informer alone (its run signal is the client's and this one). */
  readonly stop: AbortController;
  /** Asked for through `informer()` (or used by the client itself): never released. */
  pinned: boolean;
  /** Holders through {@link leaseInformer} (union informers); released when it drops to 0 and not pinned. */
  leases: number;
}

/**
 * A hold on a shared informer that can be given back: what a union informer keeps per member.
 * Releasing the last hold on an informer nobody asked for through `KubeClient.informer` stops it
 * and forgets it (a later request creates a new one).
 */
export interface InformerLease<T extends KubeObject = KubeObject> {
  /** The shared informer. */
  readonly informer: SharedInformer<T>;
  /**
   * Starts the informer if nothing started it yet, with `signal` (and its own stop): the
   * KubeClient starts it too once it runs; the first start wins.
   */
  run(signal: AbortSignal): void;
  /**
   * Gives the hold back (once; later calls do nothing). Settles once the informer's loop has
   * exited when this was the last hold, at once otherwise.
   */
  release(): Promise<void>;
}

function informerKeyString(resource: ResourceDescriptor, opts: InformerOptions): string {
  return JSON.stringify([
    resource.group,
    resource.version,
    resource.plural,
    opts.namespace ?? '',
    opts.labelSelector ?? '',
    opts.fieldSelector ?? '',
    opts.transform?.name ?? 'default',
  ]);
}

class KubeClientImpl implements KubeClient {
  readonly api: ApiClient;
  readonly registry: ResourceRegistry;
  readonly objectFilter: ObjectFilter | undefined;
  readonly logger: Logger;
  readonly kubeConfig: KubeConfig | undefined;
  readonly #tuning: InformerTuning | undefined;
  readonly #informers = new Map<string, InformerEntry>();
  readonly #shutdown = new AbortController();
  #runSignal: AbortSignal | undefined;
  #crdWatcher: InformerCrdWatcher | undefined;

  constructor(options: KubeClientParts) {
    this.api = options.api;
    this.kubeConfig = options.kubeConfig;
    this.logger = options.logger ?? consoleLogger('warn');
    this.objectFilter = options.objectFilter;
    this.#tuning = options.tuning;
    this.registry = options.registry ?? new DiscoveryRegistry(options.api);
  }

  get crdWatcher(): CrdWatcher {
    if (!this.#crdWatcher) {
      // CRD objects are never filtered by the object filter.
      const { engine } = this.#informerWithFilter(
        builtins.CustomResourceDefinition,
        {},
        {
          filter: undefined,
          pin: true,
        },
      );
      this.#crdWatcher = new InformerCrdWatcher({
        informer: engine as SharedInformer<KubeObject>,
        api: this.api,
        registry: this.registry,
        logger: this.logger,
        signal: () => this.#runSignal,
      });
    }
    return this.#crdWatcher;
  }

  makeApiClient<T>(ctor: new (config: never) => T): T {
    if (!this.kubeConfig) {
      throw new Error(
        'this KubeClient has no kubeconfig (it is the fake cluster): use client.api instead of client-node typed APIs',
      );
    }
    return this.kubeConfig.makeApiClient(ctor as never) as T;
  }

  objectApi(): KubernetesObjectApi {
    if (!this.kubeConfig) {
      throw new Error(
        'this KubeClient has no kubeconfig (it is the fake cluster): use client.api instead of client-node object API',
      );
    }
    return KubernetesObjectApi.makeApiClient(this.kubeConfig);
  }

  async serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    return await this.api.request<ServerVersionInfo>({ method: 'GET', path: '/version', signal });
  }

  informer<T extends KubeObject = KubeObject>(
    resource: TypedResourceDescriptor<T>,
    opts: InformerOptions = {},
  ): SharedInformer<T> {
    return this.#informerWithFilter(resource, opts, { filter: this.objectFilter, pin: true })
      .engine as unknown as SharedInformer<T>;
  }

  /** See {@link leaseInformer}. */
  lease<T extends KubeObject>(resource: TypedResourceDescriptor<T>, opts: InformerOptions): InformerLease<T> {
    const entry = this.#informerWithFilter(resource, opts, { filter: this.objectFilter, pin: false });
    entry.leases++;
    let released = false;
    return {
      informer: entry.engine as unknown as SharedInformer<T>,
      run: (signal) => {
        if (!entry.engine.isStarted()) void entry.engine.run(AbortSignal.any([signal, entry.stop.signal]));
      },
      release: async () => {
        if (released) return;
        released = true;
        entry.leases--;
        if (entry.leases > 0 || entry.pinned) return;
        for (const [key, e] of this.#informers) if (e === entry) this.#informers.delete(key);
        entry.stop.abort();
        // run() returns the loop's promise once started (its signal is ignored then).
        if (entry.engine.isStarted()) await entry.engine.run(entry.stop.signal);
      },
    };
  }

  /** The entry for a key, created if needed; `pin` marks it as asked for outside leases. */
  #informerWithFilter(
    resource: ResourceDescriptor,
    opts: InformerOptions,
    { filter, pin }: { readonly filter: ObjectFilter | undefined; readonly pin: boolean },
  ): InformerEntry {
    if (this.#shutdown.signal.aborted) throw new Error('the KubeClient was shut down');
    if (opts.namespace && !resource.namespaced) {
      throw new TypeError(
        `${resource.kind} is cluster-scoped: an informer for it cannot be limited to namespace "${opts.namespace}"`,
      );
    }
    // A selector the apiserver would refuse fails here, not as a list that keeps failing.
    if (opts.labelSelector) parseLabelSelector(opts.labelSelector);
    if (opts.fieldSelector) parseFieldSelector(opts.fieldSelector);
    const key = informerKeyString(resource, opts) + (filter === this.objectFilter ? '' : ':unfiltered');
    let entry = this.#informers.get(key);
    if (!entry) {
      const engine = new InformerEngine({
        api: this.api,
        key: {
          resource,
          namespace: opts.namespace,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          transformName: opts.transform?.name ?? 'default',
        },
        transform: opts.transform?.fn ?? stripManagedFields,
        filter,
        logger: this.logger,
        tuning: this.#tuning,
      });
      entry = { engine, stop: new AbortController(), pinned: false, leases: 0 };
      this.#informers.set(key, entry);
      // Ended by the client's signal, or by the last release of an informer only leases held.
      if (this.#runSignal) void engine.run(AbortSignal.any([this.#runSignal, entry.stop.signal]));
    }
    if (pin) entry.pinned = true;
    return entry;
  }

  informers(): ReadonlyArray<SharedInformer> {
    return [...this.#informers.values()].map((e) => e.engine);
  }

  async runAndWait(signal: AbortSignal): Promise<boolean> {
    if (this.#shutdown.signal.aborted) throw new Error('the KubeClient was shut down');
    if (!this.#runSignal) {
      this.#runSignal = AbortSignal.any([signal, this.#shutdown.signal]);
      this.#runSignal.addEventListener('abort', () => this.api.close(), { once: true });
    }
    const run = this.#runSignal;
    const entries = [...this.#informers.values()];
    // Fire and forget: run() never rejects; the loops end with `run` (or a last release).
    for (const e of entries)
      if (!e.engine.isStarted()) void e.engine.run(AbortSignal.any([run, e.stop.signal]));
    const results = await Promise.all(entries.map((e) => e.engine.waitUntilSynced(signal)));
    return results.every(Boolean) && !signal.aborted;
  }

  isRunning(): boolean {
    return this.#runSignal !== undefined && !this.#runSignal.aborted;
  }

  async waitForCacheSync(
    name: string,
    signal: AbortSignal,
    ...hasSynced: Array<() => boolean>
  ): Promise<boolean> {
    const started = Date.now();
    let lastLog = started;
    let delay = 5;
    for (;;) {
      if (hasSynced.every((f) => f())) return true;
      if (signal.aborted) return false;
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        this.logger.info('still waiting for caches to sync', { name, waitedMs: lastLog - started });
      }
      if (!(await sleep(delay, signal))) return hasSynced.every((f) => f());
      delay = Math.min(100, delay * 2);
    }
  }

  shutdown(): void {
    this.#shutdown.abort();
    this.api.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.shutdown();
    // Informers that ran stop with the shutdown signal; wait until their loops have exited.
    await Promise.all(
      [...this.#informers.values()]
        .map((e) => e.engine)
        .filter((i) => i.isStarted())
        .map((i) => i.run(this.#shutdown.signal)),
    );
    await this.api[Symbol.asyncDispose]();
  }
}

/**
 * Builds a {@link KubeClient} over an {@link ApiClient}. Internal: users call `createKubeClient`
 * (with `{ api }` for any transport) or `createFakeKubeClient` (`@kubeloom/kube/fake`).
 */
export function kubeClientOver(parts: KubeClientParts): KubeClient {
  return new KubeClientImpl(parts);
}

/**
 * A releasable hold on the shared informer `kube.informer(resource, opts)` would return (see
 * {@link InformerLease}). On a KubeClient not made by this package (a wrapper of your own) the
 * informer comes from `kube.informer` and release does nothing: it cannot be stopped alone.
 */
export function leaseInformer<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  opts: InformerOptions,
): InformerLease<T> {
  if (kube instanceof KubeClientImpl) return kube.lease(resource, opts);
  const informer = kube.informer(resource, opts);
  return {
    informer,
    run: (signal) => {
      if (!informer.isStarted()) void informer.run(signal);
    },
    release: () => Promise.resolve(),
  };
}
