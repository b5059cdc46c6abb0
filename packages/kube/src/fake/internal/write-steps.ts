import type { ObjectKey } from '../../object.ts';
import type { JsonObject } from './json.ts';
import type { ManagedEntry } from './managed-fields.ts';
import type { ObjectHistory } from './object-history.ts';
import type { ResourceTable, ServedResource } from './resource-table.ts';

/** Who writes: the field manager and whether to persist. */
export interface WriteContext {
  /** The field manager. */
  readonly manager: string;
  /** `dryRun=All`: everything but the commit. */
  readonly dryRun: boolean;
}

/** Options of a {@link WritePipeline}. */
export interface WritePipelineOptions {
  /** The served resources; CRD writes change them. */
  readonly table: ResourceTable;
  /** Where writes are committed. */
  readonly history: ObjectHistory;
  /** NamespaceLifecycle admission for namespaced creates. */
  readonly strictNamespaces: boolean;
  /** The field manager of writes that name none. */
  readonly defaultManager: string;
  /** The clock for timestamps. */
  readonly now: () => Date;
}

/** How a create runs: the namespace it writes to, its context, and the managed fields apply computed. */
export interface CreateStep {
  /** The request's namespace (ignored for cluster-scoped resources). */
  readonly namespace: string | undefined;
  /** The request's write context. */
  readonly ctx: WriteContext;
  /** The managedFields entries server-side apply computed; omitted for a plain create. */
  readonly managed?: ManagedEntry[] | undefined;
}

/** The stored object an update replaces and what replaces it. */
export interface UpdateChange {
  /** The stored object. */
  readonly existing: JsonObject;
  /** The object as written. */
  readonly incoming: JsonObject;
}

/** How an update runs: the subresource written, its context, and the managed fields apply computed. */
export interface UpdateStep {
  /** `status` or `scale` for a subresource write. */
  readonly subresource?: string | undefined;
  /** The request's write context. */
  readonly ctx: WriteContext;
  /** The managedFields entries server-side apply computed; omitted for a plain update or patch. */
  readonly managed?: ManagedEntry[] | undefined;
}

/** A stored object and its storage key. */
export interface StoredEntry {
  /** The storage key. */
  readonly key: string;
  /** The stored object. */
  readonly object: JsonObject;
}

/** The object a patch writes: its served resource, name and namespace. */
export interface PatchTarget extends ObjectKey {
  /** The served resource. */
  readonly served: ServedResource;
}
