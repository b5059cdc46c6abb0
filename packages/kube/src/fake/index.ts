/**
 * `@kubeloom/kube/fake`: an in-memory Kubernetes API server ({@link FakeCluster}) behind the
 * `ApiClient` verbs ({@link createFakeApiClient}), with seeding, failure injection, delays,
 * request observation, forced watch expiry and compaction, checked against the real apiserver by
 * the conformance suite; and {@link recordingLogger}, a logger that keeps what it was given, for
 * tests that assert on logs.
 *
 * @packageDocumentation
 */

export { createFakeKubeClient } from './create-fake-kube-client.ts';
export { createFakeApiClient, type FakeApiClient } from './fake-api-client.ts';
export { FakeCluster } from './fake-cluster.ts';
export type {
  FailureOptions,
  FakeClusterOptions,
  FakeRequest,
  FakeVerb,
  RequestObserver,
  ResourceMatcher,
} from './fake-cluster-options.ts';
export type { FakeKubeClient, FakeKubeClientOptions } from './fake-kube-client.ts';
export { type RecordingLogger, recordingLogger } from './recording-logger.ts';
