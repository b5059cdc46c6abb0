import type { KubeObject } from './object.ts';

/** Extracts index values from an object; an object may have several (or none). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** The name of the built-in namespace index. */
export const NAMESPACE_INDEX = 'namespace';

/**
 * A read-only view of an informer's cache (client-go's lister + indexer). Objects are frozen;
 * copy before modifying (`structuredClone`).
 */
export interface Store<T extends KubeObject = KubeObject> {
  /** The object with this key (`namespace/name` or `name`), if cached. */
  get(key: string): T | undefined;
  /** Every cached object. */
  list(): T[];
  /** Every cached key. */
  keys(): string[];
  /** How many objects are cached. */
  readonly size: number;
  /** The objects in one namespace (the built-in namespace index). */
  byNamespace(namespace: string): T[];
  /**
   * The objects whose index `name` yields `value`.
   * @throws Error when no index `name` was added.
   */
  byIndex(name: string, value: string): T[];
  /** The keys of the objects whose index `name` yields `value`. */
  keysByIndex(name: string, value: string): string[];
  /** True when an index with this name exists. */
  hasIndex(name: string): boolean;
  /** Adds an index; existing objects are indexed at once. @throws when the name is taken. */
  addIndexer(name: string, fn: IndexFunc<T>): void;
}
