import type { Collection, TransformationSingle } from './core.ts';
import { DerivedCollection } from './many-collection.ts';
import type { CollectionOptions } from './options.ts';

/**
 * A 1:1 derived collection: `transform` maps each input to zero or one output. It may read other
 * collections only through {@link fetch}; when what it fetched changes, only the inputs that
 * fetched it are recomputed, and only outputs that changed (by `equals`, else structurally)
 * produce events. From `src/example.test.ts`, run against the fake cluster:
 *
 * {@includeCode ./example.test.ts#collections}
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#collection}
 */
export function collection<I, O>(
  parent: Collection<I>,
  transform: TransformationSingle<I, O>,
  opts: CollectionOptions,
): Collection<O> {
  return new DerivedCollection<I, O>(parent, opts, {
    transform,
    kind: 'collection',
    defaultName: `Collection[${parent.name}]`,
    multi: false,
  });
}
