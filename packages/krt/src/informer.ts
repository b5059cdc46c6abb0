import { type Informer as ClientInformer, type ClientOptions, createClient } from '@kubeloom/kclient';
import {
  extractTombstone,
  type HandlerRegistration,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import type { BatchHandler, Collection, Event, Registration } from './core.ts';
import { BaseCollection } from './internal/base.ts';
import type { CollectionDump, IndexView } from './internal/internals.ts';
import { newUid } from './internal/internals.ts';
import { AUTO_INDEX_MARK } from './internal/label-index.ts';
import { pollUntil } from './internal/poll.ts';
import { TrackedIndexStore } from './internal/tracked-index-store.ts';
import type { CollectionOptions } from './options.ts';

/** Options of {@link informer} when it builds the kclient client itself. */
export interface InformerCollectionOptions<T extends KubeObject> extends CollectionOptions {
  /**
   * What the client sees: server-side `namespace`, `labelSelector` and `fieldSelector`, and a
   * client-side `objectFilter` (static or dynamic). Default: everything.
   */
  readonly filter?: ClientOptions<T> | undefined;
}

/**
 * A collection over a kclient informer (Istio's `WrapClient`): reads go to the informer's cache,
 * every informer event becomes a krt event, indexes are the informer's. Stopping the collection
 * removes only its own handler from the client.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#informer}
 */
export function informer<T extends KubeObject>(
  client: ClientInformer<T>,
  opts: CollectionOptions,
): Collection<T>;
/**
 * A collection over a new kclient client for `resource` on `kube` (Istio's `NewInformer` and
 * `NewFilteredInformer`), with optional server-side (namespace, label and field selectors) and
 * client-side (`objectFilter`) filters. Its default name is `Informer[<kind>]`.
 */
export function informer<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  opts: InformerCollectionOptions<T>,
): Collection<T>;
export function informer<T extends KubeObject>(
  source: ClientInformer<T> | KubeClient,
  resourceOrOpts: TypedResourceDescriptor<T> | CollectionOptions,
  opts?: InformerCollectionOptions<T>,
): Collection<T> {
  if (opts === undefined)
    return new InformerCollection<T>(source as ClientInformer<T>, resourceOrOpts as CollectionOptions);
  const resource = resourceOrOpts as TypedResourceDescriptor<T>;
  const { filter, ...rest } = opts;
  return new InformerCollection<T>(createClient(source as KubeClient, resource, filter ?? {}), {
    name: `Informer[${resource.kind}]`,
    ...rest,
  });
}

class InformerCollection<T extends KubeObject> extends BaseCollection<T> {
  readonly #client: ClientInformer<T>;
  readonly #reg: HandlerRegistration;
  readonly #indexes = new Map<string, IndexView<T>>();
  /**
   * krt's automatic indexes (label and selector filters), kept here rather than in the shared
   * informer: the informer's indexes can never be removed and are shared by name whatever the
   * extract function, while these depend on this collection's augmentation and die with it.
   * Updated by this collection's handler before it emits, so a recompute triggered by an event
   * always sees the index as of that event.
   */
  readonly #auto: TrackedIndexStore<T>[] = [];
  /** Initial adds received and not emitted yet (see {@link InformerCollection.#queueInitial}). */
  #initial: Event<T>[] | undefined;

  constructor(client: ClientInformer<T>, opts: CollectionOptions) {
    super('informer', `Informer[${client.resource.kind}]`, opts);
    this.#client = client;
    this.start();
    this.#reg = client.addEventHandler({
      onAdd: (obj, initial) => {
        this.#file(obj, obj);
        if (initial) this.#queueInitial(obj);
        else {
          this.#flushInitial();
          this.emit([{ type: 'add', new: obj }]);
        }
      },
      onUpdate: (old, obj) => {
        this.#flushInitial();
        this.#file(obj, obj);
        this.emit([{ type: 'update', old, new: obj }]);
      },
      onDelete: (obj) => {
        this.#flushInitial();
        const old = extractTombstone(obj);
        this.#file(old, undefined);
        this.emit([{ type: 'delete', old }]);
      },
    });
    pollUntil(
      () => this.#reg.hasSynced(),
      this.signal,
      () => this.markSynced(),
    );
  }

  /**
   * The initial list arrives as one synchronous run of adds: they are emitted as one batch (from
   * a microtask, or before anything else this collection emits or hands out), so a derived
   * collection computes its initial state in one pass rather than one event at a time.
   */
  #queueInitial(obj: T): void {
    if (this.#initial === undefined) {
      this.#initial = [];
      queueMicrotask(this.#flushInitial);
    }
    this.#initial.push({ type: 'add', new: obj });
  }

  readonly #flushInitial = (): void => {
    const batch = this.#initial;
    if (batch === undefined) return;
    this.#initial = undefined;
    this.emit(batch);
  };

  protected override markSynced(): void {
    this.#flushInitial();
    super.markSynced();
  }

  get(key: string): T | undefined {
    // parseKey without its result object (a get per recomputed input).
    const slash = key.indexOf('/');
    return slash === -1 ? this.#client.get(key) : this.#client.get(key.slice(slash + 1), key.slice(0, slash));
  }

  list(): T[] {
    return this.#client.list();
  }

  override registerBatch(handler: BatchHandler<T>, runExistingState: boolean): Registration {
    // Until our own handler has received the initial list, every object still arrives as an
    // event, so the snapshot must be empty (or it would be delivered twice).
    // Initial adds not emitted yet go to the handlers registered before this one only.
    this.#flushInitial();
    const snapshot = runExistingState && this.#reg.hasSynced() ? this.list() : undefined;
    return this.handlers.insert(handler, snapshot);
  }

  #file(obj: T, next: T | undefined): void {
    const auto = this.#auto;
    if (auto.length === 0) return;
    const key = this.keyOf(obj);
    for (let i = 0; i < auto.length; i++) auto[i]!.update(key, next);
  }

  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T> {
    let view = this.#indexes.get(name);
    if (view === undefined && name.includes(AUTO_INDEX_MARK)) {
      const store = new TrackedIndexStore<T>(name, extract);
      for (const o of this.list()) store.update(this.keyOf(o), o);
      this.#auto.push(store);
      this.#indexes.set(name, store);
      return store;
    }
    if (view === undefined) {
      const idx = this.#client.index(name, extract);
      view = { id: newUid(), name, extract, lookup: (k) => idx.lookup(k) };
      this.#indexes.set(name, view);
    }
    return view;
  }

  dump(): CollectionDump {
    const outputs: Record<string, unknown> = {};
    for (const o of this.list()) outputs[this.keyOf(o)] = o;
    return { kind: this.kind, synced: this.hasSynced(), outputs };
  }

  protected override onStop(): void {
    this.#reg.remove();
    this.#initial = undefined;
    this.#auto.length = 0;
    this.#indexes.clear();
  }
}
