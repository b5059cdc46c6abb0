import type { GroupVersionResource } from './resource.ts';

/**
 * Which CustomResourceDefinitions exist, from a shared informer on CRDs.
 */
export interface CrdWatcher {
  /**
   * True when the CRD for `gvr` exists and serves its version. Otherwise registers `callback`,
   * which runs once, when the CRD appears and discovery serves it, and returns false.
   * Always false before the watcher's own informer has synced (the callback then fires once the
   * CRD is seen).
   */
  knownOrCallback(gvr: GroupVersionResource, callback: () => void): boolean;
  /**
   * Like {@link CrdWatcher.knownOrCallback}, but returns a function that unregisters the
   * callback (a no-op once it ran). Use it when the caller may give up waiting.
   * @returns `true` when the CRD is already known (the callback is not registered), else the unregister function.
   */
  onceKnown(gvr: GroupVersionResource, callback: () => void): true | (() => void);
  /** Resolves true once the CRD exists and is served, false if `signal` aborts first. */
  waitForCRD(gvr: GroupVersionResource, signal: AbortSignal): Promise<boolean>;
  /** True when the CRD exists and serves `gvr.version` (from the informer cache). */
  known(gvr: GroupVersionResource): boolean;
  /** True once the watcher's informer has synced: `known` answers are then authoritative. */
  hasSynced(): boolean;
  /** Resolves once synced (or false on abort). */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean>;
  /** Registers a callback for every change (CRD added, changed or deleted); returns an unsubscribe function. */
  onChange(callback: (gvr: GroupVersionResource, present: boolean) => void): () => void;
}
