/**
 * `@kubeloom/krt/testing`: collections from objects or YAML for unit-testing transformations, a
 * dummy context, an event tracker, and the conformance suite every collection type passes.
 *
 * @packageDocumentation
 */
export {
  type ConformanceCase,
  type ConformanceRig,
  conformanceCases,
  type RigFactory,
} from './conformance.ts';
export { dummyContext } from './dummy-context.ts';
export { type Mock, type MockCollection, type MockSelector, mockCollections } from './mock.ts';
export {
  type CollectionTracker,
  type CollectionTrackerOptions,
  createCollectionTracker,
  settle,
} from './tracker.ts';
