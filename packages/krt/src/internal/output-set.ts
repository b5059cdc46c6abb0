import type { Event } from '../core.ts';
import { equal } from '../equality.ts';
import type { IndexSet } from './internals.ts';

/** The outputs of a collection by key, and the indexes over them. */
export interface OutputStore<T> {
  readonly outputs: Map<string, T>;
  readonly indexes: IndexSet<T>;
}

/**
 * Stores the new output for `key` (or removes it when `next` is undefined), keeps the indexes in
 * step, and appends the event it amounts to: nothing when the output is unchanged (`equal`).
 * Shared by the collections that keep outputs keyed like this (joins, nested joins).
 */
export function setOutput<T>(
  { outputs, indexes }: OutputStore<T>,
  [key, next]: readonly [key: string, next: T | undefined],
  out: Event<T>[],
): void {
  const old = outputs.get(key);
  if (next === undefined) {
    if (old === undefined) return;
    outputs.delete(key);
    indexes.update(key, old, undefined);
    out.push({ type: 'delete', old });
    return;
  }
  if (old !== undefined && equal(old, next)) return;
  outputs.set(key, next);
  indexes.update(key, old, next);
  out.push(old === undefined ? { type: 'add', new: next } : { type: 'update', old, new: next });
}
