import type { Collection } from '../core.ts';
import type { FilterSpec } from './filter-spec.ts';

/** What a krt handler context does with a fetch: record the dependency (before the read). */
export interface DependencyRecorder {
  record(source: Collection<unknown>, spec: FilterSpec): void;
}
