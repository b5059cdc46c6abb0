/**
 * The ApiClient conformance suite: one set of tests run against the fake cluster and a real
 * apiserver. Test-only code (it imports vitest); not part of the package's exports.
 *
 * @packageDocumentation
 */
export { describeApiConformance } from './describe-api-conformance.ts';
export { createFixtures, type Fixtures, GROUP_SUFFIX, uniqueGroup } from './fixtures.ts';
export type {
  ConformanceContext,
  ConformanceGroup,
  ConformanceOptions,
  ConformanceTarget,
} from './target.ts';
export { WatchReader } from './watch-reader.ts';
