import type { Collection } from '../core.ts';
import type { FilterSpec } from './filter-spec.ts';
import type { Dependency } from './source-subscription.ts';

/** What a krt handler context does with a fetch: record the dependency (before the read). */
export interface DependencyRecorder {
  /**
   * Records the fetch; returns the previous computation's dependency it matched (kept, and filed
   * in the reverse index), if any.
   */
  record(source: Collection<unknown>, spec: FilterSpec): Dependency | undefined;
}
