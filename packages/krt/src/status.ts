import type { Collection, HandlerContext } from './core.ts';
import { equal } from './equality.ts';
import { DerivedCollection } from './many-collection.ts';
import type { CollectionOptions } from './options.ts';
import { type StaticCollection, staticCollection } from './static.ts';

/** An input object and the status a status collection derived for it. */
export interface ObjectWithStatus<I, S> {
  /** The input object. */
  readonly obj: I;
  /** Its desired status. */
  readonly status: S;
  /** The key of `obj`. */
  resourceName(): string;
  /** Equal when both the object and the status are equal. */
  equals(other: ObjectWithStatus<I, S>): boolean;
}

class ObjectWithStatusImpl<I, S> implements ObjectWithStatus<I, S> {
  readonly obj: I;
  readonly status: S;
  readonly #key: string;
  constructor(obj: I, status: S, key: string) {
    this.obj = obj;
    this.status = status;
    this.#key = key;
  }
  resourceName(): string {
    return this.#key;
  }
  equals(other: ObjectWithStatus<I, S>): boolean {
    return (
      this.#key === other.resourceName() && equal(this.obj, other.obj) && equal(this.status, other.status)
    );
  }
}

/** A transformation returning a status for the input and zero or one output. */
export type StatusTransformation<I, S, O> = (
  ctx: HandlerContext,
  input: I,
) => readonly [status: S | undefined, output: O | undefined | null];

/** A transformation returning a status for the input and any number of outputs. */
export type StatusManyTransformation<I, S, O> = (
  ctx: HandlerContext,
  input: I,
) => readonly [status: S | undefined, outputs: Iterable<O>];

/** The two collections of a status collection. */
export interface StatusCollections<I, S, O> {
  /** The desired status per input (deleted with the input, or when the status is undefined). */
  readonly status: Collection<ObjectWithStatus<I, S>>;
  /** The outputs. */
  readonly outputs: Collection<O>;
}

function build<I, S, O>(
  parent: Collection<I>,
  fn: (ctx: HandlerContext, input: I) => readonly [S | undefined, unknown],
  { opts, multi }: { readonly opts: CollectionOptions; readonly multi: boolean },
): StatusCollections<I, S, O> {
  let statuses: StaticCollection<ObjectWithStatus<I, S>> | undefined;
  const outputs = new DerivedCollection<I, O>(parent, opts, {
    transform: (ctx, input) => {
      const [status, out] = fn(ctx, input);
      (ctx as unknown as { extra: unknown }).extra = { status };
      return out;
    },
    kind: multi ? 'status-many' : 'status',
    defaultName: `StatusCollection[${parent.name}]`,
    multi,
    afterInput: (key, input, extra) => {
      const s = statuses!;
      const status = (extra as { status: S | undefined } | undefined)?.status;
      if (input === undefined || status === undefined) s.delete(key);
      else s.conditionalUpdate(new ObjectWithStatusImpl(input, status, key));
    },
  });
  statuses = staticCollection<ObjectWithStatus<I, S>>([], {
    ...opts,
    name: `${outputs.name}/status`,
    synced: outputs,
  });
  return { status: statuses, outputs };
}

/**
 * A 1:1 collection that also derives a status per input (Istio's `NewStatusCollection`). The
 * status collection emits only when the object or its status changes; write it to the cluster
 * with {@link startStatusWriter}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#statusCollection}
 */
export function statusCollection<I, S, O>(
  parent: Collection<I>,
  transform: StatusTransformation<I, S, O>,
  opts: CollectionOptions,
): StatusCollections<I, S, O> {
  return build<I, S, O>(parent, transform, { opts, multi: false });
}

/**
 * The 1:N form of {@link statusCollection}.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#statusManyCollection}
 */
export function statusManyCollection<I, S, O>(
  parent: Collection<I>,
  transform: StatusManyTransformation<I, S, O>,
  opts: CollectionOptions,
): StatusCollections<I, S, O> {
  return build<I, S, O>(parent, transform, { opts, multi: true });
}
