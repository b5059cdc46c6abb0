import type { Collection, Event, Registration } from './core.ts';
import { BaseCollection } from './internal/base.ts';
import {
  type CollectionDump,
  type CollectionInternals,
  IndexSet,
  type IndexView,
  internalsOf,
} from './internal/internals.ts';
import { setOutput } from './internal/output-set.ts';
import { whenSynced } from './internal/sync-flag.ts';
import type { CollectionOptions } from './options.ts';

/** Merges the objects that several collections hold under one key; `undefined` drops the key. */
export type MergeFunc<T> = (objects: readonly T[]) => T | undefined;

/**
 * The union of several collections. On a key conflict the first collection (in `collections`
 * order) wins; when the winner's object is deleted, the next collection's object takes its
 * place (an `update` event), and a key disappears only when no collection has it.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#joinCollection}
 */
export function joinCollection<T>(
  collections: readonly Collection<T>[],
  opts: CollectionOptions,
): Collection<T> {
  return new JoinCollection<T>(collections, undefined, opts);
}

/**
 * The union of several collections where objects sharing a key are combined by `merge` (which
 * receives them in `collections` order).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#joinWithMerge}
 */
export function joinWithMerge<T>(
  collections: readonly Collection<T>[],
  merge: MergeFunc<T>,
  opts: CollectionOptions,
): Collection<T> {
  return new JoinCollection<T>(collections, merge, opts);
}

class JoinCollection<T> extends BaseCollection<T> {
  readonly #cs: readonly Collection<T>[];
  readonly #internals: readonly CollectionInternals<T>[];
  readonly #merge: MergeFunc<T> | undefined;
  readonly #outputs = new Map<string, T>();
  readonly #indexes = new IndexSet<T>();
  readonly #regs: Registration[] = [];
  #pending: number;

  constructor(cs: readonly Collection<T>[], merge: MergeFunc<T> | undefined, opts: CollectionOptions) {
    super(merge ? 'join-merge' : 'join', merge ? 'JoinWithMerge' : 'Join', opts);
    this.#cs = [...cs];
    this.#internals = this.#cs.map((c) => internalsOf(c, 'join'));
    this.#merge = merge;
    this.#pending = this.#cs.length;
    this.start();
    if (this.#pending === 0) this.markSynced();
    for (const c of this.#cs) {
      const i = this.#regs.length;
      const reg = c.registerBatch((events) => this.#onEvents(i, events), true);
      this.#regs.push(reg);
      whenSynced(reg, this.signal, () => {
        if (--this.#pending === 0) this.markSynced();
      });
    }
  }

  #onEvents(i: number, events: readonly Event<T>[]): void {
    if (this.stopped()) return;
    const ki = this.#internals[i]!;
    const out: Event<T>[] = [];
    if (events.length === 1) {
      const e = events[0]!;
      this.#recompute(ki.keyOf((e.new ?? e.old)!), out);
    } else {
      const keys = new Set<string>();
      for (const e of events) keys.add(ki.keyOf((e.new ?? e.old)!));
      for (const k of keys) this.#recompute(k, out);
    }
    this.emit(out);
  }

  #recompute(key: string, out: Event<T>[]): void {
    let merged: T | undefined;
    if (this.#merge === undefined) {
      for (const c of this.#cs) {
        merged = c.get(key);
        if (merged !== undefined) break;
      }
    } else {
      const vals: T[] = [];
      for (const c of this.#cs) {
        const v = c.get(key);
        if (v !== undefined) vals.push(v);
      }
      merged = vals.length === 0 ? undefined : this.#merge(vals);
    }
    setOutput({ outputs: this.#outputs, indexes: this.#indexes }, [key, merged], out);
  }

  get(key: string): T | undefined {
    return this.#outputs.get(key);
  }

  list(): T[] {
    return [...this.#outputs.values()];
  }

  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T> {
    return this.#indexes.get(name, extract, () => this.#outputs.entries());
  }

  dump(): CollectionDump {
    return {
      kind: this.kind,
      synced: this.hasSynced(),
      outputs: Object.fromEntries(this.#outputs),
      collections: this.#cs.map((c) => c.name),
    };
  }

  protected override onStop(): void {
    for (const r of this.#regs) r.remove();
    this.#regs.length = 0;
  }
}
