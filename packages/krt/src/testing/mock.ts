import type { Collection, Singleton } from '../core.ts';
import { parseYamlDocuments } from '../files.ts';
import type { CollectionOptions } from '../options.ts';
import { staticSingleton } from '../singleton.ts';
import { type StaticCollection, staticCollection } from '../static.ts';

/** Selects the inputs of a mock collection: a Kubernetes `kind`, or a predicate. */
export type MockSelector<T> = string | ((obj: unknown) => obj is T) | ((obj: unknown) => boolean);

/**
 * Inputs for unit-testing transformations (Istio's `krttest.NewMock`): objects, or YAML strings
 * (several documents separated by `---`), sorted into static collections by kind or predicate.
 */
export interface Mock {
  /** The inputs selected by `select`, as an always-synced static collection. */
  collection<T>(select: MockSelector<T>, name?: string): StaticCollection<T>;
  /** The single input selected by `select`, as a static singleton. @throws when more than one matches. */
  singleton<T>(select: MockSelector<T>, name?: string): Singleton<T>;
  /** Inputs no collection or singleton took (a test should consume all of its inputs). */
  unconsumed(): unknown[];
}

/** Creates a {@link Mock}; collections stop with `opts.signal`. */
export function mockCollections(inputs: readonly unknown[], opts: CollectionOptions): Mock {
  const objects: unknown[] = [];
  for (const i of inputs) {
    if (typeof i === 'string') objects.push(...parseYamlDocuments(i));
    else objects.push(i);
  }
  const used = new Set<number>();
  const pick = <T>(select: MockSelector<T>): T[] => {
    const pred =
      typeof select === 'string' ? (o: unknown) => (o as { kind?: unknown } | null)?.kind === select : select;
    const out: T[] = [];
    objects.forEach((o, i) => {
      if (pred(o)) {
        used.add(i);
        out.push(o as T);
      }
    });
    return out;
  };
  const nameOf = (select: MockSelector<unknown>, name?: string): string =>
    name ?? (typeof select === 'string' ? `mock/${select}` : 'mock');
  return {
    collection: (select, name) => staticCollection(pick(select), { ...opts, name: nameOf(select, name) }),
    singleton: (select, name) => {
      const found = pick(select);
      if (found.length > 1)
        throw new Error(`mock singleton: ${found.length} inputs match, expected at most one`);
      return staticSingleton(found[0], { ...opts, name: nameOf(select, name) });
    },
    unconsumed: () => objects.filter((_, i) => !used.has(i)),
  };
}

/** Re-exported for convenience: a collection type alias. */
export type MockCollection<T> = Collection<T>;
