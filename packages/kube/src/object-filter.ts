import type { KubeObject } from './object.ts';

/**
 * A client-wide filter that informers consult before caching or delivering an object, e.g. to
 * limit a controller to selected namespaces. A filter may change at run time: it then notifies
 * its subscribers, and informers re-evaluate their cached objects (objects that start passing
 * arrive as adds, objects that stop passing leave as deletes).
 */
export interface ObjectFilter {
  /** True when the object should be seen. */
  matches(obj: KubeObject): boolean;
  /** Subscribes to filter changes; returns an unsubscribe function. */
  subscribe?(onChange: () => void): () => void;
}

/** A static filter from a predicate. */
export function objectFilter(predicate: (obj: KubeObject) => boolean): ObjectFilter {
  return { matches: predicate };
}

/**
 * A filter by namespace that can change at run time: `set` replaces the allowed namespaces and
 * notifies subscribers. Cluster-scoped objects always pass. An empty set lets everything through
 * when `emptyMeansAll` is true (the default), nothing otherwise.
 */
export class NamespaceFilter implements ObjectFilter {
  #namespaces: Set<string>;
  readonly #emptyMeansAll: boolean;
  readonly #subscribers = new Set<() => void>();

  /** Creates the filter with an initial namespace set. */
  constructor(namespaces: Iterable<string> = [], emptyMeansAll = true) {
    this.#namespaces = new Set(namespaces);
    this.#emptyMeansAll = emptyMeansAll;
  }

  /** The current namespaces. */
  get namespaces(): ReadonlySet<string> {
    return this.#namespaces;
  }

  /** True when the object's namespace is allowed (or it is cluster-scoped). */
  matches(obj: KubeObject): boolean {
    const ns = obj.metadata?.namespace;
    if (!ns) return true;
    if (this.#namespaces.size === 0) return this.#emptyMeansAll;
    return this.#namespaces.has(ns);
  }

  /** Replaces the allowed namespaces; notifies subscribers when the set changed. */
  set(namespaces: Iterable<string>): void {
    const next = new Set(namespaces);
    if (next.size === this.#namespaces.size && [...next].every((n) => this.#namespaces.has(n))) return;
    this.#namespaces = next;
    for (const s of [...this.#subscribers]) s();
  }

  /** Subscribes to changes. */
  subscribe(onChange: () => void): () => void {
    this.#subscribers.add(onChange);
    return () => this.#subscribers.delete(onChange);
  }
}
