import type { HandlerContext } from './core.ts';
import { fetch } from './fetch.ts';
import type { CollectionOptions } from './options.ts';
import { staticSingleton } from './singleton.ts';

/**
 * The escape hatch for state outside krt: transformations that call `markDependant(ctx)` are
 * recomputed whenever `trigger()` is called. Until `markSynced()` (when created unsynced),
 * dependants do not report synced.
 */
export interface RecomputeTrigger {
  /** Records that the running transformation depends on this trigger. */
  markDependant(ctx: HandlerContext): void;
  /** Recomputes every dependant. */
  trigger(): void;
  /** Marks the trigger synced. */
  markSynced(): void;
  /** True once synced. */
  hasSynced(): boolean;
}

/**
 * Creates a {@link RecomputeTrigger}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#recomputeTrigger}
 */
export function recomputeTrigger(
  opts: CollectionOptions & { readonly synced?: boolean | undefined },
): RecomputeTrigger {
  let n = 0;
  const s = staticSingleton<string>('0', {
    ...opts,
    name: opts.name ?? 'RecomputeTrigger',
    synced: opts.synced ?? true,
  });
  const c = s.asCollection();
  return {
    markDependant: (ctx) => {
      fetch(ctx, c);
    },
    trigger: () => {
      n++;
      s.set(String(n));
    },
    markSynced: () => s.markSynced(),
    hasSynced: () => s.hasSynced(),
  };
}

/**
 * Data guarded by a {@link RecomputeTrigger}: `get(ctx)` records the dependency, `modify`
 * changes the data and recomputes the dependants.
 */
export interface RecomputeProtected<T> {
  /** The data, recording the dependency. */
  get(ctx: HandlerContext): T;
  /** Changes the data (in place or by returning a new value) and recomputes the dependants. */
  // biome-ignore lint/suspicious/noConfusingVoidType: in-place modifiers return nothing
  modify(fn: (data: T) => T | void): void;
  /** Marks synced. */
  markSynced(): void;
  /** The data without a dependency; unsafe inside transformations. */
  accessUnprotected(): T;
}

/**
 * Creates a {@link RecomputeProtected}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#recomputeProtected}
 */
export function recomputeProtected<T>(
  data: T,
  opts: CollectionOptions & { readonly synced?: boolean | undefined },
): RecomputeProtected<T> {
  const t = recomputeTrigger(opts);
  let value = data;
  return {
    get: (ctx) => {
      t.markDependant(ctx);
      return value;
    },
    modify: (fn) => {
      const r = fn(value);
      if (r !== undefined) value = r as T;
      t.trigger();
    },
    markSynced: () => t.markSynced(),
    accessUnprotected: () => value,
  };
}
