import type { KubeObject } from '@kubeloom/kube';
import type { DynamicFilter } from './interfaces.ts';
import type { LabelSelector } from './label-selector.ts';

/** Options of `createNamespaceSelectorFilter`. */
export interface NamespaceSelectorFilterOptions {
  /** Closes the filter when aborted (same as {@link NamespaceSelectorFilter.close}). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * A dynamic filter that passes objects in namespaces whose labels match a selector (Istio's
 * discovery selectors), driven by the KubeClient's shared Namespace informer. Use it as a
 * client's `objectFilter`; relabeling a namespace in or out of the selector, or changing the
 * selector with {@link NamespaceSelectorFilter.setSelector}, makes the client's handlers receive
 * adds for the objects that enter and deletes for those that leave.
 *
 * Edge cases:
 * - cluster-scoped objects always pass; a Namespace object passes when it is itself selected
 *   (so a client on Namespaces sees a namespace leave as a delete, unlike Istio, which sends none);
 * - until the Namespace informer synced, no namespaced object passes and `hasSynced` is false
 *   (clients include it in their own `hasSynced`);
 * - a namespace that is deleted is deselected: its objects leave as deletes even if their own
 *   deletion was not observed yet, and each object's delete is delivered once;
 * - subscribers are notified once per burst of changes, in a microtask after the Namespace event
 *   (so an initial list of many namespaces costs one re-evaluation, not one per namespace);
 *   objects whose own event arrives first already see the new selection.
 */
export interface NamespaceSelectorFilter extends DynamicFilter {
  /** The namespaces currently selected. */
  readonly selected: ReadonlySet<string>;
  /** True when `obj` passes: see the interface comment for cluster-scoped objects and Namespaces. */
  matches(obj: KubeObject): boolean;
  /** Replaces the selector; subscribers are notified when the selection changed. */
  setSelector(selector: LabelSelector): void;
  /** Subscribes to selection changes; returns an unsubscribe function. */
  subscribe(onChange: () => void): () => void;
  /** True once the Namespace informer delivered its initial list and every change was published. */
  hasSynced(): boolean;
  /**
   * Unregisters from the Namespace informer, drops subscribers and stops listening to the
   * signal; the selection freezes.
   */
  close(): void;
  /** {@link NamespaceSelectorFilter.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
