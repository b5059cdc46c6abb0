import type { KubeObject } from './object.ts';

/** Extracts index values from an object; an object may have several (or none). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/**
 * Hears about an object an index function failed on (it threw, or returned something other than
 * an array of strings): `index` is the index name, `key` the object's key. The object is left out
 * of that index only.
 */
export type IndexErrorHandler = (index: string, key: string, error: unknown) => void;

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
  /**
   * Adds an index; existing objects are indexed at once. An index function that throws (or does
   * not return an array of strings) for an object leaves that object out of this index only; an
   * informer logs it and counts it in `health().indexErrors`.
   * @throws when the name is taken.
   */
  addIndexer(name: string, fn: IndexFunc<T>): void;
}
