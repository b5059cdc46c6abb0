import {
  builtins,
  extractTombstone,
  type HandlerRegistration,
  type KubeClient,
  type KubeObject,
} from '@kubeloom/kube';
import { type LabelMatcher, type LabelSelector, labelMatcher } from './label-selector.ts';
import type { NamespaceSelectorFilter, NamespaceSelectorFilterOptions } from './namespace-selector-filter.ts';

/**
 * Creates a {@link NamespaceSelectorFilter} and registers its handler on the KubeClient's shared
 * Namespace informer (no I/O: the informer starts with the client).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createNamespaceSelectorFilter}
 */
export function createNamespaceSelectorFilter(
  kube: KubeClient,
  selector: LabelSelector,
  options: NamespaceSelectorFilterOptions = {},
): NamespaceSelectorFilter {
  return new SelectorFilter(kube, selector, options);
}

class SelectorFilter implements NamespaceSelectorFilter {
  readonly #labels = new Map<string, Readonly<Record<string, string>>>();
  readonly #selected = new Set<string>();
  readonly #subscribers = new Set<() => void>();
  readonly #registration: HandlerRegistration;
  #match: LabelMatcher;
  #flushQueued = false;
  #closed = false;
  #detachSignal: (() => void) | undefined;

  constructor(kube: KubeClient, selector: LabelSelector, options: NamespaceSelectorFilterOptions = {}) {
    this.#match = labelMatcher(selector);
    const informer = kube.informer(builtins.Namespace);
    this.#registration = informer.addEventHandler({
      onAdd: (ns) => this.#observe(ns),
      onUpdate: (_old, ns) => this.#observe(ns),
      onDelete: (value) => this.#forget(extractTombstone(value)),
    });
    const signal = options.signal;
    if (signal?.aborted) this.close();
    else if (signal) {
      const onAbort = (): void => this.close();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** The namespaces currently selected. */
  get selected(): ReadonlySet<string> {
    return this.#selected;
  }

  /** {@inheritDoc NamespaceSelectorFilter.matches} */
  matches(obj: KubeObject): boolean {
    const ns = obj.metadata?.namespace;
    if (ns) return this.#selected.has(ns);
    if (obj.kind === 'Namespace' && (obj.apiVersion === undefined || obj.apiVersion === 'v1')) {
      return this.#selected.has(obj.metadata?.name ?? '');
    }
    return true;
  }

  /** Replaces the selector; subscribers are notified when the selection changed. */
  setSelector(selector: LabelSelector): void {
    this.#match = labelMatcher(selector);
    let changed = false;
    for (const [name, labels] of this.#labels) changed = this.#set(name, this.#match(labels)) || changed;
    if (changed) this.#changed();
  }

  /** {@inheritDoc DynamicFilter.subscribe} */
  subscribe(onChange: () => void): () => void {
    this.#subscribers.add(onChange);
    return () => this.#subscribers.delete(onChange);
  }

  /** True once the Namespace informer delivered its initial list and every change was published. */
  hasSynced(): boolean {
    return this.#registration.hasSynced() && !this.#flushQueued;
  }

  /**
   * Unregisters from the Namespace informer, drops subscribers and stops listening to the
   * signal; the selection freezes.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#detachSignal?.();
    this.#detachSignal = undefined;
    this.#registration.remove();
    this.#subscribers.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }

  #observe(ns: KubeObject): void {
    const name = ns.metadata?.name;
    if (!name) return;
    const labels = ns.metadata?.labels ?? {};
    this.#labels.set(name, labels);
    if (this.#set(name, this.#match(labels))) this.#changed();
  }

  #forget(ns: KubeObject): void {
    const name = ns.metadata?.name;
    if (!name) return;
    this.#labels.delete(name);
    if (this.#set(name, false)) this.#changed();
  }

  #set(name: string, selected: boolean): boolean {
    if (selected === this.#selected.has(name)) return false;
    if (selected) this.#selected.add(name);
    else this.#selected.delete(name);
    return true;
  }

  #changed(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => {
      this.#flushQueued = false;
      if (this.#closed) return;
      for (const s of [...this.#subscribers]) s();
    });
  }
}
