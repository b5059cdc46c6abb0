import { consoleLogger, type Logger } from '@kubeloom/kube';
import type { BatchHandler, Collection, Event, EventHandler, Metadata, Registration } from '../core.ts';
import type { DebugHandler } from '../debug.ts';
import { getKey } from '../keys.ts';
import type { CollectionOptions } from '../options.ts';
import { HandlerSet } from './handler-set.ts';
import type { CollectionDump, CollectionInternals, IndexView } from './internals.ts';
import { newUid } from './internals.ts';
import { INTERNAL } from './symbols.ts';
import { SyncFlag } from './sync-flag.ts';

/** Thrown when a collection is created without a stop signal. */
class MissingSignalError extends TypeError {
  constructor(what: string) {
    super(
      `${what}: options.signal is required: every krt collection takes the AbortSignal that stops it ` +
        '(collections without one leak their registrations)',
    );
    this.name = 'MissingSignalError';
  }
}

/** Validates the options every collection takes. */
function checkOptions(kind: string, opts: CollectionOptions | undefined): CollectionOptions {
  if (opts === undefined || opts === null || typeof opts !== 'object') throw new MissingSignalError(kind);
  const s = opts.signal as unknown;
  if (s === undefined || s === null || typeof (s as AbortSignal).addEventListener !== 'function') {
    throw new MissingSignalError(opts.name ? `${kind} "${opts.name}"` : kind);
  }
  return opts;
}

let defaultLogger: Logger | undefined;
function baseLogger(): Logger {
  defaultLogger ??= consoleLogger('warn');
  return defaultLogger;
}

/** Wraps a one-event handler as a batch handler, keeping promise back-pressure. */
function singleToBatch<T>(h: EventHandler<T>): BatchHandler<T> {
  return (events) => {
    for (let i = 0; i < events.length; i++) {
      const r = h(events[i]!);
      if (r !== undefined && typeof (r as PromiseLike<void>).then === 'function') {
        return (async () => {
          await r;
          for (let j = i + 1; j < events.length; j++) await h(events[j]!);
        })();
      }
    }
    return undefined;
  };
}

/**
 * What every collection shares: name, uid, options, handlers, sync flag, stop, debug
 * registration. Subclasses implement reads, the dump and indexes.
 */
export abstract class BaseCollection<T> implements Collection<T>, CollectionInternals<T> {
  readonly [INTERNAL]: CollectionInternals<T> = this;
  readonly uid = newUid();
  readonly name: string;
  readonly kind: string;
  readonly augment: ((obj: unknown) => unknown) | undefined;
  protected readonly logger: Logger;
  protected readonly handlers: HandlerSet<T>;
  protected readonly syncFlag = new SyncFlag();
  protected readonly signal: AbortSignal;
  protected readonly debugLogging: boolean;
  readonly #metadata: Metadata;
  readonly #debug: DebugHandler | undefined;
  #stopped = false;

  constructor(kind: string, defaultName: string, opts: CollectionOptions) {
    checkOptions(kind, opts);
    this.kind = kind;
    this.name = opts.name ?? `${defaultName}#${this.uid}`;
    this.signal = opts.signal;
    this.augment = opts.augment;
    this.debugLogging = opts.debugLogging ?? false;
    this.#metadata = opts.metadata ?? {};
    this.logger = (opts.logger ?? baseLogger()).child({ collection: this.name });
    this.handlers = new HandlerSet<T>(this.logger);
    this.#debug = opts.debug;
  }

  /** Call at the end of the subclass constructor: hooks the signal and the debugger. */
  protected start(): void {
    if (this.signal.aborted) {
      queueMicrotask(() => this.#stop());
    } else {
      this.signal.addEventListener('abort', () => this.#stop(), { once: true });
    }
    this.#debug?.register(this);
  }

  abstract get(key: string): T | undefined;
  abstract list(): T[];
  abstract dump(): CollectionDump;
  abstract index(name: string, extract: (obj: T) => readonly string[]): IndexView<T>;

  keyOf(obj: T): string {
    return getKey(obj, this.name);
  }

  metadata(): Metadata {
    return this.#metadata;
  }

  stopped(): boolean {
    return this.#stopped;
  }

  handlerCount(): number {
    return this.handlers.size;
  }

  register(handler: EventHandler<T>): Registration {
    return this.registerBatch(singleToBatch(handler), true);
  }

  registerBatch(handler: BatchHandler<T>, runExistingState: boolean): Registration {
    return this.handlers.insert(handler, runExistingState ? this.list() : undefined);
  }

  hasSynced(): boolean {
    return this.syncFlag.hasSynced();
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.syncFlag.wait(signal);
  }

  protected markSynced(): void {
    if (this.#stopped || this.syncFlag.hasSynced()) return;
    this.syncFlag.markSynced();
    this.handlers.markSynced();
  }

  protected emit(events: readonly Event<T>[]): void {
    if (events.length === 0) return;
    if (this.debugLogging) {
      for (const e of events) {
        const o = e.new ?? e.old;
        this.logger.debug('event', { type: e.type, key: o === undefined ? undefined : this.keyOf(o) });
      }
    }
    this.handlers.distribute(events);
  }

  /** Subclass hook: unregister from others, release state. */
  protected onStop(): void {}

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.handlers.stop();
    this.syncFlag.stop();
    this.#debug?.unregister(this);
    this.onStop();
  }
}
