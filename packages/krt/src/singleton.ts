import type {
  Collection,
  EventHandler,
  Metadata,
  Registration,
  Singleton,
  StaticSingleton,
  TransformationEmpty,
  TransformationEmptyToMulti,
} from './core.ts';
import { equal } from './equality.ts';
import { BaseCollection } from './internal/base.ts';
import { type CollectionDump, IndexStore, type IndexView } from './internal/internals.ts';
import { tryGetKey } from './keys.ts';
import { DerivedCollection } from './many-collection.ts';
import type { CollectionOptions } from './options.ts';
import { staticCollection } from './static.ts';

/** The key of a singleton's value: its own key, or a fixed one for values without a key. */
function singletonKey(name: string): (v: unknown) => string {
  return (v) => tryGetKey(v) ?? `singleton:${name}`;
}

class SingletonView<T> implements Singleton<T> {
  readonly #c: Collection<T>;
  constructor(c: Collection<T>) {
    this.#c = c;
  }
  get name(): string {
    return this.#c.name;
  }
  get(): T | undefined {
    return this.#c.list()[0];
  }
  register(handler: EventHandler<T>): Registration {
    return this.#c.register(handler);
  }
  asCollection(): Collection<T> {
    return this.#c;
  }
  metadata(): Metadata {
    return this.#c.metadata();
  }
  hasSynced(): boolean {
    return this.#c.hasSynced();
  }
  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.#c.waitUntilSynced(signal);
  }
}

/**
 * A derived single value: `transform` runs once, then again whenever what it fetched changes.
 * Its collection view keys the value by its own key, or a fixed key for values without one.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#singleton}
 */
export function singleton<O>(transform: TransformationEmpty<O>, opts: CollectionOptions): Singleton<O> {
  const name = opts.name ?? 'Singleton';
  const input = staticCollection(['singleton'], { signal: opts.signal, name: `${name}/input` });
  const c = new DerivedCollection<string, O>(input, opts, {
    transform: (ctx) => transform(ctx),
    kind: 'singleton',
    defaultName: 'Singleton',
    multi: false,
    keyOf: singletonKey(name),
  });
  return new SingletonView(c);
}

/**
 * A derived collection with no input: `transform` returns every object (use with a recompute trigger).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#manyFromNothing}
 */
export function manyFromNothing<O>(
  transform: TransformationEmptyToMulti<O>,
  opts: CollectionOptions,
): Collection<O> {
  const name = opts.name ?? 'ManyFromNothing';
  const input = staticCollection(['input'], { signal: opts.signal, name: `${name}/input` });
  return new DerivedCollection<string, O>(input, opts, {
    transform: (ctx) => transform(ctx),
    kind: 'many',
    defaultName: 'ManyFromNothing',
    multi: true,
  });
}

/** Options of {@link staticSingleton}. */
export interface StaticSingletonOptions extends CollectionOptions {
  /** Start synced (default true); otherwise call `markSynced()`. */
  readonly synced?: boolean | undefined;
}

/**
 * Creates a {@link StaticSingleton} holding `initial`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#staticSingleton}
 */
export function staticSingleton<T>(initial: T | undefined, opts: StaticSingletonOptions): StaticSingleton<T> {
  const c = new StaticSingletonCollection<T>(initial, opts);
  return c.view;
}

class StaticSingletonCollection<T> extends BaseCollection<T> {
  #value: T | undefined;
  #key: string | undefined;
  readonly #keyFn: (v: unknown) => string;
  readonly view: StaticSingleton<T>;
  #indexes: IndexStore<T>[] = [];

  constructor(initial: T | undefined, opts: StaticSingletonOptions) {
    super('static-singleton', 'StaticSingleton', opts);
    this.#keyFn = singletonKey(this.name);
    this.#value = initial;
    this.#key = initial === undefined ? undefined : this.#keyFn(initial);
    const self = this;
    const base = new SingletonView<T>(this);
    this.view = Object.assign(base, {
      set(v: T | undefined) {
        self.set(v);
      },
      markSynced() {
        self.markSyncedPublic();
      },
    });
    this.start();
    if (opts.synced ?? true) this.markSynced();
  }

  override keyOf(obj: T): string {
    return this.#keyFn(obj);
  }

  markSyncedPublic(): void {
    this.markSynced();
  }

  set(v: T | undefined): void {
    const old = this.#value;
    if (old === v) return;
    const oldKey = this.#key;
    const key = v === undefined ? undefined : this.#keyFn(v);
    this.#value = v;
    this.#key = key;
    for (const idx of this.#indexes) {
      if (oldKey !== undefined) idx.update(oldKey, old, undefined);
      if (key !== undefined) idx.update(key, undefined, v);
    }
    if (old === undefined) this.emit([{ type: 'add', new: v }]);
    else if (v === undefined) this.emit([{ type: 'delete', old }]);
    else if (oldKey !== key) {
      this.emit([
        { type: 'delete', old },
        { type: 'add', new: v },
      ]);
    } else if (!equal(old, v)) this.emit([{ type: 'update', old, new: v }]);
  }

  get(key: string): T | undefined {
    return key === this.#key ? this.#value : undefined;
  }

  list(): T[] {
    return this.#value === undefined ? [] : [this.#value];
  }

  index(name: string, extract: (obj: T) => readonly string[]): IndexView<T> {
    const existing = this.#indexes.find((i) => i.name === name);
    if (existing) return existing;
    const s = new IndexStore<T>(name, extract);
    if (this.#value !== undefined) s.update(this.#key!, undefined, this.#value);
    this.#indexes.push(s);
    return s;
  }

  dump(): CollectionDump {
    return {
      kind: this.kind,
      synced: this.hasSynced(),
      outputs: this.#key === undefined ? {} : { [this.#key]: this.#value },
    };
  }
}
