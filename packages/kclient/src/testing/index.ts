/**
 * `@kubeloom/kclient/testing` (clienttest): writers that fail the test on errors, an uncached
 * direct client, an event tracker with ordered, unordered and predicate waits, and `makeCRD`
 * for the fake cluster or a real API server.
 *
 * @packageDocumentation
 */
export { ClientTestError } from './client-test-error.ts';
export { type DirectClient, newDirectClient } from './direct-client.ts';
export { EventTracker, type EventTrackerOptions, trackerHandler } from './event-tracker.ts';
export { crdName, deleteCRD, type MakeCRDOptions, makeCRD } from './make-crd.ts';
export { newTestWriter, type TestWriter, testWriter } from './test-writer.ts';
