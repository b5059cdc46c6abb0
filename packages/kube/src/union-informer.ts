import type { InformerOptions, KubeClient } from './client.ts';
import type { InformerHealth, SharedInformer } from './informer.ts';
import type { KubeObject } from './object.ts';
import type { TypedResourceDescriptor } from './resource.ts';

/**
 * One list/watch scope of a {@link UnionInformer}: a namespace and server-side selectors. Each
 * member is the KubeClient's shared informer for that scope (`kube.informer(resource, scope)`),
 * so it is shared with every other user of the same scope.
 */
export interface UnionMember {
  /** One namespace, or all namespaces when omitted. */
  readonly namespace?: string | undefined;
  /** Server-side label selector. */
  readonly labelSelector?: string | undefined;
  /** Server-side field selector. */
  readonly fieldSelector?: string | undefined;
}

/** Options of {@link createUnionInformer}. */
export interface UnionInformerOptions<T extends KubeObject = KubeObject> {
  /** The client whose shared informers are the members. */
  readonly kube: KubeClient;
  /** The one resource every member lists and watches. */
  readonly resource: TypedResourceDescriptor<T>;
  /** The initial scopes (duplicates count once); change them later with {@link UnionInformer.setMembers}. */
  readonly members: readonly UnionMember[];
  /** The ingest transform of every member (part of the sharing key, as for `kube.informer`). */
  readonly transform?: InformerOptions['transform'];
}

/**
 * One cache over several list/watch scopes of one resource, whose scopes can change at run time
 * (controller-runtime's multi-namespace cache, `cache.Options.DefaultNamespaces`). It is a
 * {@link SharedInformer} with the same contract: its own store (the members' frozen objects; a
 * key is present while at least one member has it), indexes, handlers (late joiners get the
 * current state), `hasSynced`/`waitUntilSynced`.
 *
 * Rules:
 * - **Synced** once every member has synced and its objects were delivered. Once synced it stays
 *   synced: {@link UnionInformer.setMembers} never makes it unsynced again (consumers that
 *   waited must not stall, as with client-go and krt); wait for added members with
 *   {@link UnionInformer.waitForMembers}.
 * - **Overlap**: a key held by several members is one object. The union shows the object of the
 *   last add or update that arrived for the key, from any member (each member's stream is
 *   ordered, so the last arrival is the newest state this process heard of; resourceVersions are
 *   compared for equality only, as informers do): an event with the resourceVersion already shown
 *   is not delivered again, and a member's delete never changes what is shown (a watch's DELETED
 *   for an object that left its selector carries the object's previous content).
 * - **No delete while held**: a member's delete is delivered only when no member holds the key.
 *   When another member's scope could hold the object (it is not limited to other namespaces),
 *   the delete waits for one GET of the object: an object that now is in another member's scope
 *   was relabelled, and that member's add is coming (whichever watch reports first), so no delete
 *   is delivered; the key is held for that member until it reports the object, or has synced or
 *   relisted without it. A 404 (or a failed read) delivers the delete. Members that are only
 *   different namespaces never need the read.
 * - **Membership**: added members' objects arrive as adds (updates when the key was already
 *   held at another resourceVersion) as they sync; members are removed only once every staying
 *   member has synced (make before break, so an object in an old and a new scope is never
 *   reported deleted; a staying member that cannot sync, e.g. one RBAC forbids, holds removals
 *   off until it does), and then every key no other member holds is delivered as a delete with a
 *   `Tombstone` (its final state was not seen). A removed member's informer is stopped
 *   unless someone else uses it (`kube.informer` for the same scope, another union).
 * - **Health** aggregates the members (see {@link UnionInformer.health}).
 */
export interface UnionInformer<T extends KubeObject = KubeObject> extends SharedInformer<T> {
  /** The current scopes (members being removed excluded). */
  members(): UnionMember[];
  /**
   * Makes `members` the set of scopes (duplicates count once). Added members start at once when
   * the KubeClient or the union runs; removed ones leave once every staying member has synced.
   * @throws TypeError or SelectorError (as `kube.informer`) for an invalid scope; nothing changes then.
   */
  setMembers(members: readonly UnionMember[]): void;
  /** True when every current member has synced and every removed member has left. */
  membersSynced(): boolean;
  /**
   * Resolves true once {@link UnionInformer.membersSynced}, false if `signal` aborts or the
   * union stops first.
   */
  waitForMembers(signal?: AbortSignal): Promise<boolean>;
  /**
   * Current health, aggregated: `state` is the most pressing member state (`backoff`, `stopped`, `listing`,
   * `idle`, then `watching`; `stopped` once the union stopped), `synced` is the union's, the
   * counters are sums over the members (a shared member counts what it did for all its users)
   * plus the union's own handler and index failures, times are the latest, `objects` is the
   * union's, and `resourceVersion` is a member's only when there is exactly one member (several
   * watches have no single resume point).
   */
  health(): InformerHealth;
  /** The only member's resourceVersion, or undefined with several members (see {@link UnionInformer.health}). */
  lastSyncResourceVersion(): string | undefined;
  /**
   * Stops the union: its handlers on the members are removed, members nobody else uses are
   * stopped, and the promise settles once their loops have exited. `run`'s signal aborting does
   * the same.
   */
  [Symbol.asyncDispose](): Promise<void>;
}
