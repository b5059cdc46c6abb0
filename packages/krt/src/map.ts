import type { BatchHandler, Collection, Event, Registration } from './core.ts';
import { BaseCollection } from './internal/base.ts';
import {
  type CollectionDump,
  type CollectionInternals,
  type IndexView,
  internalsOf,
} from './internal/internals.ts';
import { whenSynced } from './internal/sync-flag.ts';
import type { CollectionOptions } from './options.ts';

/**
 * A lazy, key-preserving view of `parent`: `map` runs on every read and event and nothing is
 * stored. `map` must keep the key (`getKey(map(x)) === getKey(x)`) and be cheap and pure.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#mapCollection}
 */
export function mapCollection<T, U>(
  parent: Collection<T>,
  map: (obj: T) => U,
  opts: CollectionOptions,
): Collection<U> {
  return new MapCollection<T, U>(parent, map, opts);
}

class MapCollection<T, U> extends BaseCollection<U> {
  readonly #parent: Collection<T>;
  readonly #pi: CollectionInternals<T>;
  readonly #map: (obj: T) => U;
  readonly #regs = new Set<Registration>();

  constructor(parent: Collection<T>, map: (obj: T) => U, opts: CollectionOptions) {
    super('map', `Map[${parent.name}]`, { ...opts, metadata: opts.metadata ?? parent.metadata() });
    this.#parent = parent;
    this.#pi = internalsOf(parent, 'mapCollection');
    this.#map = map;
    this.start();
    whenSynced(parent, this.signal, () => this.markSynced());
  }

  get(key: string): U | undefined {
    const v = this.#parent.get(key);
    return v === undefined ? undefined : this.#map(v);
  }

  list(): U[] {
    return this.#parent.list().map(this.#map);
  }

  override registerBatch(handler: BatchHandler<U>, runExistingState: boolean): Registration {
    if (this.stopped()) return super.registerBatch(handler, false);
    const map = this.#map;
    const inner = this.#parent.registerBatch((events: readonly Event<T>[]) => {
      const mapped: Event<U>[] = new Array(events.length);
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        mapped[i] = {
          type: e.type,
          old: e.old === undefined ? undefined : map(e.old),
          new: e.new === undefined ? undefined : map(e.new),
        };
      }
      return handler(mapped);
    }, runExistingState);
    const regs = this.#regs;
    regs.add(inner);
    const reg: Registration = {
      hasSynced: () => inner.hasSynced(),
      waitUntilSynced: (s) => inner.waitUntilSynced(s),
      remove: () => {
        regs.delete(inner);
        inner.remove();
      },
    };
    const onSynced = (inner as { onSynced?: (cb: () => void) => () => void }).onSynced;
    if (onSynced) Object.assign(reg, { onSynced: onSynced.bind(inner) });
    return reg;
  }

  override handlerCount(): number {
    return this.#regs.size;
  }

  index(name: string, extract: (obj: U) => readonly string[]): IndexView<U> {
    const map = this.#map;
    const inner = this.#pi.index(`map:${this.uid}:${name}`, (o) => extract(map(o)));
    return {
      id: inner.id,
      name,
      extract: (o: U) => extract(o),
      lookup: (k) => inner.lookup(k).map(map),
    };
  }

  dump(): CollectionDump {
    const outputs: Record<string, unknown> = {};
    for (const o of this.list()) outputs[this.keyOf(o)] = o;
    return { kind: this.kind, synced: this.hasSynced(), inputCollection: this.#parent.name, outputs };
  }

  protected override onStop(): void {
    for (const r of this.#regs) r.remove();
    this.#regs.clear();
  }
}
