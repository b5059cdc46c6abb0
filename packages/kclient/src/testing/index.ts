/**
 * `@kubeloom/kclient/testing` (clienttest): writers and wrapped clients (`wrap`) that fail the
 * test on errors, an uncached direct client, `names`, an event tracker with ordered, unordered and predicate waits, and `makeCRD`
 * for the fake cluster or a real API server.
 *
 * @packageDocumentation
 */
export { ClientTestError } from './client-test-error.ts';
export { createDirectClient, type DirectClient } from './direct-client.ts';
export {
  createEventTracker,
  type EventTracker,
  type EventTrackerOptions,
  settle,
  trackerHandler,
} from './event-tracker.ts';
export { crdName, deleteCRD, type MakeCRDOptions, makeCRD, singularOf } from './make-crd.ts';
export { names } from './names.ts';
export { type TestClient, wrap } from './test-client.ts';
export type { TestWriter } from './test-writer.ts';
