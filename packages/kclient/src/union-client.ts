import type { KubeObject, UnionMember } from '@kubeloom/kube';
import type { Client, ClientOptions } from './interfaces.ts';

/** Options of {@link createUnionClient}: a client's options, with member scopes instead of one scope. */
export interface UnionClientOptions<T extends KubeObject = KubeObject>
  extends Omit<ClientOptions<T>, 'namespace' | 'namespaces' | 'labelSelector' | 'fieldSelector'> {
  /**
   * The initial scopes: each a namespace and server-side selectors, one shared list/watch each
   * (`UnionMember` of `@kubeloom/kube`).
   */
  readonly members: readonly UnionMember[];
}

/**
 * A {@link Client} over a union informer (`createUnionInformer` of `@kubeloom/kube`): one cache
 * over several list/watch scopes whose set changes at run time. Reads, indexes, handlers, writes
 * and `hasSynced` are a client's; the membership methods are the union's (see `UnionInformer`
 * for the rules: the client stays synced across a change, an object held by another member is
 * never reported deleted, removed members' objects leave as tombstones).
 */
export interface UnionClient<T extends KubeObject = KubeObject> extends Client<T> {
  /** The current scopes. */
  members(): UnionMember[];
  /**
   * Makes `members` the set of scopes; added members' objects arrive as adds once they sync,
   * removed members leave once every staying member synced.
   * @throws TypeError or SelectorError (`@kubeloom/kube`) for an invalid scope; nothing changes then.
   */
  setMembers(members: readonly UnionMember[]): void;
  /** True when every current member synced and every removed one left. */
  membersSynced(): boolean;
  /** Resolves true once {@link UnionClient.membersSynced}, false if `signal` aborts or the union stops. */
  waitForMembers(signal?: AbortSignal): Promise<boolean>;
}
