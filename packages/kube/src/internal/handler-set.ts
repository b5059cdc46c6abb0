import type { HandlerRegistration, ResourceEventHandler, Tombstone } from '../informer.ts';
import type { KubeObject } from '../object.ts';
import type { ObjectFilter } from '../object-filter.ts';

interface Registration<T extends KubeObject> extends HandlerRegistration {
  readonly handler: ResourceEventHandler<T>;
  active: boolean;
  synced: boolean;
  removed: boolean;
}

/** Hears about a handler that threw: which callback (`onAdd`, …) and what it threw. */
export type HandlerErrorSink = (callback: string, error: unknown) => void;

/**
 * The event handlers of one informer and the synchronous, ordered fan-out of events to them,
 * through the client-wide object filter: an object entering the filtered set arrives as an add,
 * one leaving it as a delete. A handler that throws is reported; the others still run.
 */
export class HandlerSet<T extends KubeObject> {
  readonly #registrations = new Set<Registration<T>>();
  /** Keys currently visible through the filter (maintained only when there is a filter). */
  readonly #visibleKeys = new Set<string>();
  readonly #filter: ObjectFilter | undefined;
  readonly #onError: HandlerErrorSink;

  /** Creates an empty set; `onError` hears about every handler exception. */
  constructor(filter: ObjectFilter | undefined, onError: HandlerErrorSink) {
    this.#filter = filter;
    this.#onError = onError;
  }

  /**
   * Registers a handler. Without `current` it is live at once and receives the initial list as it
   * lands. With `current` it joins late: in one microtask (so no event falls between the snapshot
   * and activation) it receives every object of `current()` as an initial add, then live events.
   */
  add(handler: ResourceEventHandler<T>, current?: () => T[]): HandlerRegistration {
    const reg: Registration<T> = {
      handler,
      active: false,
      synced: false,
      removed: false,
      hasSynced: () => reg.synced,
      remove: () => {
        reg.removed = true;
        reg.active = false;
        this.#registrations.delete(reg);
      },
    };
    this.#registrations.add(reg);
    if (!current) {
      reg.active = true;
      return reg;
    }
    queueMicrotask(() => {
      if (reg.removed) return;
      for (const obj of current()) this.#call('onAdd', () => reg.handler.onAdd?.(obj, true));
      reg.active = true;
      reg.synced = true;
    });
    return reg;
  }

  /** Marks every live handler synced: the initial list was delivered to it. */
  markSynced(): void {
    for (const reg of this.#registrations) if (reg.active) reg.synced = true;
  }

  /** Delivers a new object. */
  added(key: string, obj: T, initial: boolean): void {
    if (!this.#visible(key, obj)) return;
    for (const reg of this.#registrations) {
      if (!reg.active || !reg.handler.onAdd) continue;
      try {
        reg.handler.onAdd(obj, initial);
      } catch (err) {
        this.#onError('onAdd', err);
      }
    }
  }

  /** Delivers a changed object: an update, or an add or delete when it crossed the filter. */
  updated(key: string, old: T, obj: T): void {
    const was = this.#wasVisible(key);
    const now = this.#visible(key, obj);
    if (!was && !now) return;
    if (!was || !now) {
      for (const reg of this.#registrations) {
        if (!reg.active) continue;
        if (now) this.#call('onAdd', () => reg.handler.onAdd?.(obj, false));
        else this.#call('onDelete', () => reg.handler.onDelete?.(old));
      }
      return;
    }
    // The common case, without a closure per handler and event.
    for (const reg of this.#registrations) {
      if (!reg.active || !reg.handler.onUpdate) continue;
      try {
        reg.handler.onUpdate(old, obj);
      } catch (err) {
        this.#onError('onUpdate', err);
      }
    }
  }

  /** Delivers a deleted object (or a tombstone). */
  deleted(key: string, value: T | Tombstone<T>): void {
    if (!this.#wasVisible(key)) return;
    this.#visibleKeys.delete(key);
    for (const reg of this.#registrations) {
      if (!reg.active || !reg.handler.onDelete) continue;
      try {
        reg.handler.onDelete(value);
      } catch (err) {
        this.#onError('onDelete', err);
      }
    }
  }

  /** Re-evaluates every cached object after the object filter changed. */
  refilter(objects: Iterable<[key: string, obj: T]>): void {
    if (!this.#filter) return;
    for (const [key, obj] of objects) {
      const was = this.#visibleKeys.has(key);
      const now = this.#visible(key, obj);
      if (was === now) continue;
      for (const reg of this.#registrations) {
        if (!reg.active) continue;
        if (now) this.#call('onAdd', () => reg.handler.onAdd?.(obj, false));
        else this.#call('onDelete', () => reg.handler.onDelete?.(obj));
      }
    }
  }

  #visible(key: string, obj: T): boolean {
    if (!this.#filter) return true;
    const v = this.#filter.matches(obj);
    if (v) this.#visibleKeys.add(key);
    else this.#visibleKeys.delete(key);
    return v;
  }

  #wasVisible(key: string): boolean {
    return !this.#filter || this.#visibleKeys.has(key);
  }

  #call(callback: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#onError(callback, err);
    }
  }
}
