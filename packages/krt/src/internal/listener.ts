import { type Logger, serializeError } from '@kubeloom/kube';
import type { BatchHandler, Event, Registration } from '../core.ts';
import { SyncFlag } from './sync-flag.ts';

const MARK = Symbol('synced');
const RESOLVED = Promise.resolve();
type Item<T> = readonly Event<T>[] | typeof MARK;

/**
 * One handler's own unbounded, ordered queue (Istio's processorListener). Batches are delivered
 * one at a time from a microtask; a handler that returns a promise holds back only its own queue.
 * The registration syncs when the sync marker (pushed once the parent synced, after the initial
 * events) reaches the handler.
 */
export class Listener<T> implements Registration {
  readonly #handler: BatchHandler<T>;
  readonly #logger: Logger;
  readonly #onRemove: (l: Listener<T>) => void;
  readonly #sync = new SyncFlag();
  #queue: Item<T>[] = [];
  #head = 0;
  #scheduled = false;
  #busy = false;
  #removed = false;

  constructor(handler: BatchHandler<T>, logger: Logger, onRemove: (l: Listener<T>) => void) {
    this.#handler = handler;
    this.#logger = logger;
    this.#onRemove = onRemove;
  }

  hasSynced(): boolean {
    return this.#sync.hasSynced();
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.#sync.wait(signal);
  }

  /** Internal: calls `cb` once this registration synced. */
  onSynced(cb: () => void): () => void {
    return this.#sync.onSynced(cb);
  }

  remove(): void {
    if (this.#removed) return;
    this.#close();
    this.#onRemove(this);
  }

  /** Stops delivery without notifying the owner (the owner is stopping). */
  close(): void {
    this.#close();
  }

  #close(): void {
    this.#removed = true;
    this.#queue = [];
    this.#head = 0;
    this.#sync.stop();
  }

  /** Number of batches waiting. */
  pending(): number {
    return this.#queue.length - this.#head;
  }

  push(batch: readonly Event<T>[]): void {
    if (this.#removed) return;
    this.#queue.push(batch);
    this.#schedule();
  }

  pushSyncMarker(): void {
    if (this.#removed || this.#sync.hasSynced()) return;
    if (this.pending() === 0 && !this.#busy) {
      this.#sync.markSynced();
      return;
    }
    this.#queue.push(MARK);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#busy) return;
    this.#scheduled = true;
    // A reaction of a settled promise: the same microtask queue as `queueMicrotask`, without
    // the async resource and bound function Node's `queueMicrotask` allocates per call (one per
    // event delivered).
    void RESOLVED.then(this.#run);
  }

  readonly #run = (): void => {
    this.#scheduled = false;
    try {
      this.#drain();
    } catch (err) {
      // As from queueMicrotask: an uncaught exception, not a rejected promise.
      queueMicrotask(() => {
        throw err;
      });
    }
  };

  #drain(): void {
    while (!this.#removed && this.#head < this.#queue.length) {
      const item = this.#queue[this.#head]!;
      this.#queue[this.#head] = MARK; // drop the reference
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (item === MARK) {
        this.#sync.markSynced();
        continue;
      }
      let result: unknown;
      try {
        result = this.#handler(item);
      } catch (err) {
        this.#logger.error('krt event handler threw; later events are still delivered', {
          err: serializeError(err),
        });
        continue;
      }
      if (result !== undefined && typeof (result as PromiseLike<void>).then === 'function') {
        this.#busy = true;
        (result as PromiseLike<void>).then(
          () => this.#resume(),
          (err: unknown) => {
            this.#logger.error('krt event handler rejected; later events are still delivered', {
              err: serializeError(err),
            });
            this.#resume();
          },
        );
        return;
      }
    }
    if (this.#head === this.#queue.length && this.#head > 0) {
      this.#queue = [];
      this.#head = 0;
    }
  }

  #resume(): void {
    this.#busy = false;
    this.#drain();
  }
}
