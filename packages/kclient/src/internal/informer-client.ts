import type {
  HandlerRegistration,
  KubeClient,
  KubeObject,
  Logger,
  ResourceDescriptor,
  ResourceEventHandler,
  SharedInformer,
} from '@kubeloom/kube';
import type { Client, DynamicFilter, Filter, InformerIndex } from '../interfaces.ts';
import { type LabelSelector, labelMatcher } from '../label-selector.ts';
import { ApiWriter, type ResourceSource } from './api-writer.ts';
import { FilteringHandler } from './filtering-handler.ts';
import { pollUntil } from './poll-until.ts';

/** A client-side filter in one shape. */
export interface ResolvedFilter<T> {
  matches(obj: T): boolean;
  subscribe?(onChange: () => void): () => void;
  hasSynced?(): boolean;
}

/** Normalizes `Filter.objectFilter`. */
export function resolveFilter<T extends KubeObject>(
  f: Filter<T>['objectFilter'],
): ResolvedFilter<T> | undefined {
  if (f === undefined) return undefined;
  if (typeof f === 'function') return { matches: f };
  const d: DynamicFilter = f;
  return {
    matches: (obj) => d.matches(obj),
    ...(d.subscribe ? { subscribe: (cb: () => void) => d.subscribe!(cb) } : {}),
    ...(d.hasSynced ? { hasSynced: () => d.hasSynced!() } : {}),
  };
}

/** A registration that never syncs (handler added to a stopped informer). */
function deadRegistration(): HandlerRegistration {
  return { hasSynced: () => false, remove: () => {} };
}

/** The prefix of kclient index names in the shared store, apart from indexes of other layers. */
const INDEX_PREFIX = 'kclient/';

function hasIndex(informer: SharedInformer, name: string): boolean {
  return informer.store.hasIndex(name);
}

interface ClientRegistration<T extends KubeObject> extends HandlerRegistration {
  readonly filtering: FilteringHandler<T> | undefined;
  readonly inner: HandlerRegistration;
}

/** Options of {@link InformerClient}. */
export interface InformerClientOptions<T extends KubeObject> {
  readonly kube: KubeClient;
  /** The resource the informer watches. */
  readonly resource: ResourceDescriptor;
  /** Where writes get the resource from; default `resource`. */
  readonly writeResource?: ResourceSource | undefined;
  readonly fieldManager?: string | undefined;
  readonly informer: SharedInformer<T>;
  readonly filter: ResolvedFilter<T> | undefined;
}

/**
 * The cached client: reads and handlers over one shared informer, a client-side filter applied
 * per client, writes through the API.
 */
export class InformerClient<T extends KubeObject> extends ApiWriter<T> implements Client<T> {
  readonly resource: ResourceDescriptor;
  readonly #informer: SharedInformer<T>;
  readonly #filter: ResolvedFilter<T> | undefined;
  readonly #log: Logger;
  readonly #registrations = new Set<ClientRegistration<T>>();
  #unsubscribe: (() => void) | undefined;

  constructor(options: InformerClientOptions<T>) {
    super({
      kube: options.kube,
      resource: options.writeResource ?? options.resource,
      fieldManager: options.fieldManager,
    });
    this.resource = options.resource;
    this.#informer = options.informer;
    this.#filter = options.filter;
    this.#log = options.kube.logger.child({ component: 'kclient', resource: options.resource.plural });
  }

  /** The shared informer underneath (for tests and the delayed client). */
  get informer(): SharedInformer<T> {
    return this.#informer;
  }

  #visible(obj: T): boolean {
    return this.#filter === undefined || this.#filter.matches(obj);
  }

  get(name: string, namespace?: string): T | undefined {
    const obj = this.#informer.store.get(namespace ? `${namespace}/${name}` : name);
    return obj !== undefined && this.#visible(obj) ? obj : undefined;
  }

  list(namespace?: string, selector?: LabelSelector): T[] {
    const match = labelMatcher(selector);
    const store = this.#informer.store;
    const all = namespace ? store.byNamespace(namespace) : store.list();
    return all.filter((o) => this.#visible(o) && match(o.metadata?.labels));
  }

  listUnfiltered(namespace?: string, selector?: LabelSelector): T[] {
    const match = labelMatcher(selector);
    const all = this.#informer.listUnfiltered();
    return all.filter(
      (o) => (namespace === undefined || o.metadata?.namespace === namespace) && match(o.metadata?.labels),
    );
  }

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    if (this.#informer.health().state === 'stopped') {
      this.#log.warn('addEventHandler on a stopped informer: the registration will never sync');
      return deadRegistration();
    }
    const filtering = this.#filter
      ? new FilteringHandler(handler, this.#filter.matches, this.#log)
      : undefined;
    const inner = this.#informer.addEventHandler(filtering ?? handler);
    const reg: ClientRegistration<T> = {
      filtering,
      inner,
      hasSynced: () => inner.hasSynced(),
      remove: () => this.#remove(reg),
    };
    this.#registrations.add(reg);
    if (filtering && this.#filter?.subscribe && !this.#unsubscribe) {
      this.#unsubscribe = this.#filter.subscribe(() => this.#onFilterChange());
    }
    return reg;
  }

  #remove(reg: ClientRegistration<T>): void {
    if (!this.#registrations.delete(reg)) return;
    if (reg.filtering) reg.filtering.removed = true;
    reg.inner.remove();
    if (this.#registrations.size === 0 && this.#unsubscribe) {
      this.#unsubscribe();
      this.#unsubscribe = undefined;
    }
  }

  #onFilterChange(): void {
    const current = this.#informer.store.list();
    for (const reg of [...this.#registrations]) {
      // A handler that has not received its initial state yet gets it, filtered, when it does.
      if (reg.filtering && reg.inner.hasSynced()) reg.filtering.refilter(current);
    }
  }

  hasSynced(): boolean {
    if (!this.hasSyncedIgnoringHandlers()) return false;
    for (const reg of this.#registrations) if (!reg.hasSynced()) return false;
    return true;
  }

  hasSyncedIgnoringHandlers(): boolean {
    return this.#informer.hasSynced() && (this.#filter?.hasSynced?.() ?? true);
  }

  shutdownHandlers(): void {
    for (const reg of [...this.#registrations]) this.#remove(reg);
  }

  shutdownHandler(registration: HandlerRegistration): void {
    for (const reg of this.#registrations) {
      if (reg === registration) {
        this.#remove(reg);
        return;
      }
    }
  }

  index(name: string, extract: (obj: T) => readonly string[]): InformerIndex<T> {
    const full = INDEX_PREFIX + name;
    if (!hasIndex(this.#informer as SharedInformer, full)) this.#informer.store.addIndexer(full, extract);
    return {
      name,
      lookup: (key) => this.#informer.store.byIndex(full, key).filter((o) => this.#visible(o)),
    };
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return pollUntil(
      () => this.hasSynced(),
      signal,
      () => this.#informer.health().state === 'stopped',
    );
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#informer.run(signal);
  }
}
