import type { Collection, HandlerContext } from '../core.ts';
import { adoptValues, type FilterSpec, sameSpec } from './filter-spec.ts';
import type { DependencyRecorder } from './recorder.ts';
import { type Dependency, newDependency, type SourceSub } from './source-subscription.ts';
import { INTERNAL } from './symbols.ts';

/** The derived collection a {@link TrackingContext} records for. */
export interface TrackingOwner {
  readonly name: string;
  /** The subscription to `source` (created on first fetch); undefined when reading oneself. */
  subscribe(source: Collection<unknown>): SourceSub | undefined;
}

/**
 * The handler context of one computation: records fetches. A recompute usually fetches exactly
 * what the previous computation did: while the fetches match the previous dependencies in order
 * (same source, same filters), nothing is allocated and the previous dependencies are kept (their
 * filters take the new values, so they do not hold on to the objects an earlier computation read);
 * from the first difference on, the rest is recorded as new dependencies.
 */
export class TrackingContext implements HandlerContext, DependencyRecorder {
  /** The recorder `fetch` finds (a getter: no symbol-keyed field to define per computation). */
  get [INTERNAL](): DependencyRecorder {
    return this;
  }
  readonly #owner: TrackingOwner;
  /** The dependencies of the input's previous computation. */
  readonly #prev: Dependency[] | undefined;
  /** How many of `#prev` the fetches so far matched, in order. */
  #matched = 0;
  /** Set at the first fetch that differs from `#prev`: the matched prefix, then new dependencies. */
  #fresh: Dependency[] | undefined;
  discarded = false;
  /** Side result of the computation (status collections). */
  extra: unknown;

  constructor(owner: TrackingOwner, prev: Dependency[] | undefined) {
    this.#owner = owner;
    this.#prev = prev;
  }

  get collectionName(): string {
    return this.#owner.name;
  }

  discardResult(): void {
    this.discarded = true;
  }

  record(source: Collection<unknown>, spec: FilterSpec): Dependency | undefined {
    const sub = this.#owner.subscribe(source);
    if (sub === undefined) return undefined;
    if (this.#fresh === undefined) {
      const prev = this.#prev;
      const i = this.#matched;
      if (prev !== undefined && i < prev.length) {
        const d = prev[i]!;
        if (d.sub === sub && sameSpec(d.spec, spec)) {
          adoptValues(d.spec, spec);
          this.#matched = i + 1;
          return d;
        }
      }
      this.#fresh = prev === undefined ? [] : prev.slice(0, i);
    }
    this.#fresh.push(newDependency(sub, spec));
    return undefined;
  }

  /**
   * The dependencies of this computation: the previous list itself when every fetch matched it
   * (no change to file), else a list that may share its first entries with the previous one.
   */
  deps(): Dependency[] | undefined {
    if (this.#fresh !== undefined) return this.#fresh;
    const prev = this.#prev;
    if (prev === undefined || this.#matched === 0) return undefined;
    return this.#matched === prev.length ? prev : prev.slice(0, this.#matched);
  }
}
