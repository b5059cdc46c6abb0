import type { Logger } from '@kubeloom/kube';
import type { BatchHandler, Event } from '../core.ts';
import { Listener } from './listener.ts';

/**
 * The handlers of one collection. `distribute` hands the same (never mutated) batch to every
 * handler's queue; `markSynced` pushes the sync marker behind the initial events.
 */
export class HandlerSet<T> {
  readonly #listeners = new Set<Listener<T>>();
  readonly #logger: Logger;
  #synced = false;
  #stopped = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Adds a handler; `initial` (the current state as adds) is queued first. */
  insert(handler: BatchHandler<T>, initial: readonly T[] | undefined): Listener<T> {
    const l = new Listener<T>(handler, this.#logger, (x) => this.#listeners.delete(x));
    if (this.#stopped) {
      l.close();
      return l;
    }
    if (initial !== undefined && initial.length > 0) {
      const batch: Event<T>[] = new Array(initial.length);
      for (let i = 0; i < initial.length; i++) batch[i] = { type: 'add', new: initial[i] };
      l.push(batch);
    }
    if (this.#synced) l.pushSyncMarker();
    this.#listeners.add(l);
    return l;
  }

  distribute(events: readonly Event<T>[]): void {
    if (events.length === 0) return;
    for (const l of this.#listeners) l.push(events);
  }

  markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const l of this.#listeners) l.pushSyncMarker();
  }

  /** Closes every handler (the collection stopped). */
  stop(): void {
    this.#stopped = true;
    for (const l of this.#listeners) l.close();
    this.#listeners.clear();
  }
}
