/**
 * The contracts of krt: collections, event streams, events, registrations, singletons and the
 * handler context passed to transformations. Implementations live in their own files.
 */

/** Free-form metadata attached to a collection ({@link CollectionOptions.metadata}). */
export type Metadata = Readonly<Record<string, unknown>>;

/** The kind of an {@link Event}. */
export type EventType = 'add' | 'update' | 'delete';

/**
 * A change to one object of a collection. `old` is set for `update` and `delete`, `new` for `add`
 * and `update`. Events are level-based: a consumer must not assume one event per write (several
 * writes may surface as one event, and an update to an equal object as none).
 */
export interface Event<T> {
  /** What happened. */
  readonly type: EventType;
  /** The previous object (update, delete). */
  readonly old?: T | undefined;
  /** The new object (add, update). */
  readonly new?: T | undefined;
}

/** Something that becomes synced once: a collection, or a handler registration. */
export interface Syncer {
  /** True once synced; it never turns false again. */
  hasSynced(): boolean;
  /**
   * Resolves true once synced, or false when `signal` aborts (or the collection stops) first.
   * Never blocks the event loop.
   */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean>;
}

/**
 * A handler registered on an {@link EventStream}. It is synced once its collection has synced
 * and the handler has processed every event of the initial state.
 */
export interface Registration extends Syncer {
  /** Unregisters the handler: it receives nothing afterwards, queued events included. */
  remove(): void;
}

/**
 * Receives one event. May return a promise: the next event for this handler waits for it (each
 * handler has its own unbounded, ordered queue, so a slow handler never delays the others).
 */
export type EventHandler<T> = (event: Event<T>) => void | Promise<void>;

/** Receives a batch of events, in order. Must not mutate the batch. May return a promise. */
export type BatchHandler<T> = (events: readonly Event<T>[]) => void | Promise<void>;

/**
 * A stream of events. Every handler sees every event, in order, never dropped, never
 * deduplicated; each handler has its own queue.
 */
export interface EventStream<T> extends Syncer {
  /** Registers a handler; it first receives the current state as `add` events. */
  register(handler: EventHandler<T>): Registration;
  /**
   * Registers a batch handler. With `runExistingState` it first receives the current state as
   * one batch of `add` events; without, only later changes (use this from inside a handler).
   */
  registerBatch(handler: BatchHandler<T>, runExistingState: boolean): Registration;
}

/**
 * A set of objects with unique keys, observable through events. Keys are `namespace/name` for
 * Kubernetes objects (`name` when cluster-scoped), the result of a `resourceName()` method, or
 * the value itself for strings.
 */
export interface Collection<T> extends EventStream<T> {
  /** The collection's name, for logs and the debug dump. */
  readonly name: string;
  /** The object with this key, if any. */
  get(key: string): T | undefined;
  /** Every object, in no particular order. */
  list(): T[];
  /** The metadata given at construction. */
  metadata(): Metadata;
}

/** A single optional value, observable through events. */
export interface Singleton<T> extends Syncer {
  /** The collection's name. */
  readonly name: string;
  /** The current value, if any. */
  get(): T | undefined;
  /** Registers a handler; it first receives the current value as an `add` event. */
  register(handler: EventHandler<T>): Registration;
  /** The singleton as a collection of zero or one object. */
  asCollection(): Collection<T>;
  /** The metadata given at construction. */
  metadata(): Metadata;
}

/** A {@link Singleton} whose value is set by hand. */
export interface StaticSingleton<T> extends Singleton<T> {
  /**
   * Replaces the value (`undefined` clears it). An equal value emits nothing; a value with a
   * different key emits `delete` then `add`.
   */
  set(value: T | undefined): void;
  /** Marks the singleton synced (when it was created with `synced: false`). */
  markSynced(): void;
}

/**
 * What a transformation receives: the handle through which {@link fetch} records dependencies.
 * Only krt creates contexts (plus the dummy context of `@kubeloom/krt/testing`).
 */
export interface HandlerContext {
  /**
   * Keep the previous result of this input and ignore the one being computed (for example
   * while a dependency is not ready). The dependencies fetched so far are still recorded, so a
   * change to them recomputes the input. An input that never produced a result accepts this one.
   */
  discardResult(): void;
  /** The name of the collection running the transformation. */
  readonly collectionName: string;
}

/** A 1:1 transformation: `undefined` (or `null`) means no output for this input. */
export type TransformationSingle<I, O> = (ctx: HandlerContext, input: I) => O | undefined | null;

/** A 1:N transformation. Output keys must be unique across every input. */
export type TransformationMulti<I, O> = (ctx: HandlerContext, input: I) => Iterable<O>;

/** A transformation with no input, for singletons. */
export type TransformationEmpty<O> = (ctx: HandlerContext) => O | undefined | null;

/** A transformation with no input and many outputs. */
export type TransformationEmptyToMulti<O> = (ctx: HandlerContext) => Iterable<O>;
