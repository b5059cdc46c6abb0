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
 * A filter by namespace that can change at run time (from {@link namespaceFilter}): `set`
 * replaces the allowed namespaces and notifies subscribers.
 */
export interface NamespaceFilter extends ObjectFilter {
  /** The current namespaces. */
  readonly namespaces: ReadonlySet<string>;
  /** True when the object's namespace is allowed (or it is cluster-scoped). */
  matches(obj: KubeObject): boolean;
  /** Replaces the allowed namespaces; notifies subscribers when the set changed. */
  set(namespaces: Iterable<string>): void;
  /** Subscribes to changes; returns an unsubscribe function. */
  subscribe(onChange: () => void): () => void;
}

/**
 * A {@link NamespaceFilter} with an initial namespace set. Cluster-scoped objects always pass.
 * An empty set lets everything through when `emptyMeansAll` is true (the default), nothing
 * otherwise.
 */
export function namespaceFilter(
  namespaces: Iterable<string> = [],
  options: { readonly emptyMeansAll?: boolean | undefined } = {},
): NamespaceFilter {
  const emptyMeansAll = options.emptyMeansAll ?? true;
  const subscribers = new Set<() => void>();
  let current = new Set(namespaces);
  return {
    get namespaces(): ReadonlySet<string> {
      return current;
    },
    matches(obj) {
      const ns = obj.metadata?.namespace;
      if (!ns) return true;
      if (current.size === 0) return emptyMeansAll;
      return current.has(ns);
    },
    set(next) {
      const wanted = new Set(next);
      if (wanted.size === current.size && [...wanted].every((n) => current.has(n))) return;
      current = wanted;
      for (const s of [...subscribers]) s();
    },
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
    },
  };
}
