import type { ApiClient } from '../../src/api.ts';
import type { KubeObject } from '../../src/object.ts';
import type { Fixtures } from './fixtures.ts';

/** What the conformance suite runs against: the fake cluster or a real apiserver. */
export interface ConformanceTarget {
  /** `fake` or `real`; tests that document a deliberate difference branch on it. */
  readonly kind: 'fake' | 'real';
  /** The client under test. */
  readonly api: ApiClient;
  /** Creates a fresh namespace for one test and returns its name. */
  newNamespace(): Promise<string>;
  /** Creates a second, independent client of the same cluster (the test closes it). */
  otherClient(): ApiClient;
  /** Creates (or replaces) a CRD and resolves once every served version can be listed. */
  installCrd(crd: KubeObject): Promise<void>;
  /** Deletes a CRD and resolves once it is gone. */
  uninstallCrd(name: string): Promise<void>;
  /**
   * Compacts the history up to the current resourceVersion and resolves once a watch or list at
   * an older resourceVersion is refused. Only targets that can (the fake; a real apiserver with
   * a short `--etcd-compaction-interval` and `--watch-cache=false`) provide it.
   */
  compact?(): Promise<void>;
  /** Releases what the target holds (clients, control planes). */
  dispose?(): Promise<void>;
}

/** Which groups of tests to run; default all but `compaction`, which needs {@link ConformanceTarget.compact}. */
export type ConformanceGroup =
  | 'crud'
  | 'admission'
  | 'list'
  | 'watch'
  | 'subresources'
  | 'patch'
  | 'apply'
  | 'discovery'
  | 'crds'
  | 'compaction'
  | 'differences';

/** Options of {@link describeApiConformance}. */
export interface ConformanceOptions {
  /** The groups to run. Default: every group the target supports. */
  readonly groups?: readonly ConformanceGroup[];
}

/** The target as the tests reach it: set by the suite's `beforeAll`. */
export interface ConformanceContext {
  /** The target; throws before `beforeAll` ran. CRDs it installs are uninstalled after the suite. */
  readonly target: ConformanceTarget;
  /** The suite's custom resources, in an API group of its own. */
  readonly fx: Fixtures;
}
