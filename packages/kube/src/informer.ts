import type { KubeObject } from './object.ts';
import type { ResourceDescriptor } from './resource.ts';
import type { Store } from './store.ts';

/**
 * What a delete handler receives when the informer did not see the object's final state (it
 * vanished during a disconnect and was found missing on relist): the last known object.
 * client-go calls this `DeletedFinalStateUnknown`.
 */
export interface Tombstone<T extends KubeObject = KubeObject> {
  /** Marks the value as a tombstone. */
  readonly tombstone: true;
  /** The object's key. */
  readonly key: string;
  /** The last state the informer knew. */
  readonly obj: T;
}

/** True when a delete handler's argument is a {@link Tombstone}. */
export function isTombstone<T extends KubeObject>(value: T | Tombstone<T>): value is Tombstone<T> {
  return (value as Tombstone<T>).tombstone === true;
}

/** The object inside a delete handler's argument, unwrapping a {@link Tombstone}. */
export function extractTombstone<T extends KubeObject>(value: T | Tombstone<T>): T {
  return isTombstone(value) ? value.obj : value;
}

/**
 * Callbacks for informer events. Handlers run synchronously, in event order, on the informer's
 * delivery loop; a handler that throws is logged and counted, and the others still run.
 */
export interface ResourceEventHandler<T extends KubeObject = KubeObject> {
  /** A new object; `isInInitialList` is true for objects of the initial list (or, for a late handler, the current state). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** An object changed (or a relist found a newer version). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** An object was deleted; a {@link Tombstone} when its final state is unknown. */
  onDelete?(obj: T | Tombstone<T>): void;
}

/** A registered handler. */
export interface HandlerRegistration {
  /** True once this handler has received every object of the initial list (or of the state when it registered). */
  hasSynced(): boolean;
  /** Unregisters the handler; it receives nothing afterwards. */
  remove(): void;
}

/** The informer's lifecycle state. */
export type InformerState = 'idle' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** Observable health of an informer: read it, log it, alert on it. */
export interface InformerHealth {
  /** Current state. */
  readonly state: InformerState;
  /** True once the initial list has been stored and delivered. */
  readonly synced: boolean;
  /** The resourceVersion the informer would resume from. */
  readonly resourceVersion: string | undefined;
  /** When the last event (bookmarks included) arrived. */
  readonly lastEventTime: Date | undefined;
  /** When the last list completed. */
  readonly lastListTime: Date | undefined;
  /** How many times the watch was restarted (any cause). */
  readonly restarts: number;
  /** How many lists completed (the initial one included); a list that needed retries counts once. */
  readonly lists: number;
  /**
   * How many lists completed after the initial one: after a 410 Gone, or after the watch failed
   * repeatedly at the same resourceVersion. A relist that needed retries counts once.
   */
  readonly relists: number;
  /** How many lists were attempted, failed ones included (each retry counts). */
  readonly listAttempts: number;
  /** Errors of any kind: transport, API, ERROR events, decode errors, handler and index exceptions. */
  readonly errors: number;
  /** Lines that could not be decoded. */
  readonly malformedLines: number;
  /** Events of an unknown type. */
  readonly unknownEvents: number;
  /** Exceptions thrown by handlers. */
  readonly handlerErrors: number;
  /**
   * Objects an index function failed on (it threw, or returned something other than an array of
   * strings); each such object is left out of that index only and still cached and delivered.
   */
  readonly indexErrors: number;
  /** Watches reconnected because nothing arrived for the idle timeout (not counted as errors). */
  readonly idleTimeouts: number;
  /** Objects that could not be ingested (a throwing transform, a non-object) and were skipped. */
  readonly rejectedObjects: number;
  /** The last error, for display. */
  readonly lastError: string | undefined;
  /** Objects in the cache. */
  readonly objects: number;
}

/** Identifies one shared list/watch. */
export interface InformerKey {
  /** The resource watched. */
  readonly resource: ResourceDescriptor;
  /** One namespace, or all. */
  readonly namespace?: string | undefined;
  /** Server-side label selector. */
  readonly labelSelector?: string | undefined;
  /** Server-side field selector. */
  readonly fieldSelector?: string | undefined;
  /** The name of the ingest transform; informers with different transforms are not shared. */
  readonly transformName?: string | undefined;
}

/**
 * A transform applied to every object as it enters the cache (before freezing). Return the
 * object to keep. The default drops `metadata.managedFields`.
 */
export type TransformFunc = (obj: KubeObject) => KubeObject;

/**
 * A shared informer: one list/watch of one resource (with one scope and selectors), a cache of
 * frozen objects, and any number of event handlers.
 *
 * Guarantees: it lists with pagination (when a continue token expires, it lists everything in one
 * unpaginated request, like client-go's pager), then watches from the list's resourceVersion with
 * bookmarks; it resumes from the last seen resourceVersion after a disconnect or a reset; on
 * `410 Gone` it relists and emits the difference, and so it does after 5 watches in a row failed
 * at the same resourceVersion (server errors, `ERROR` events, undecodable data); it reconnects
 * with jittered exponential backoff; a throwing handler or index function is logged and counted,
 * never fatal; it never stops while its signal is live. Its health is readable at any time.
 */
export interface SharedInformer<T extends KubeObject = KubeObject> {
  /** What this informer lists and watches. */
  readonly key: InformerKey;
  /**
   * Registers a handler. A handler registered after the informer synced first receives an add
   * for every cached object (`isInInitialList = true`), then live events.
   */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration;
  /** The cache. */
  readonly store: Store<T>;
  /** True once the initial list has been stored and delivered to the handlers. */
  hasSynced(): boolean;
  /** Resolves true once synced, false if `signal` aborts (or the informer stops) first. */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean>;
  /**
   * Starts the list/watch loop; it runs until `signal` aborts. The promise settles once the loop
   * stopped (it never rejects). Idempotent: a second call returns the first call's promise and
   * ignores its signal.
   */
  run(signal: AbortSignal): Promise<void>;
  /** True once `run` was called. */
  isStarted(): boolean;
  /** Current health. */
  health(): InformerHealth;
  /** The resourceVersion of the last list or event. */
  lastSyncResourceVersion(): string | undefined;
  /** Every cached object, including those the client-wide object filter hides. */
  listUnfiltered(): T[];
  /**
   * Ends a backoff wait at once and resets the backoff: use it when you know the cause of the
   * failures is gone (e.g. a deleted CRD was installed again). No effect while healthy.
   */
  retryNow(): void;
}
