import {
  createUnionInformer,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
  type UnionInformer,
  type UnionMember,
} from '@kubeloom/kube';
import { InformerClient, resolveFilter } from './internal/informer-client.ts';
import type { UnionClient, UnionClientOptions } from './union-client.ts';

/** The cached client over a union informer, with its membership methods. */
class UnionInformerClient<T extends KubeObject> extends InformerClient<T> implements UnionClient<T> {
  readonly #union: UnionInformer<T>;

  constructor(kube: KubeClient, union: UnionInformer<T>, options: UnionClientOptions<T>) {
    super({
      kube,
      resource: union.key.resource,
      informer: union,
      filter: resolveFilter(options.objectFilter),
      fieldManager: options.fieldManager,
    });
    this.#union = union;
  }

  members(): UnionMember[] {
    return this.#union.members();
  }

  setMembers(members: readonly UnionMember[]): void {
    this.#union.setMembers(members);
  }

  membersSynced(): boolean {
    return this.#union.membersSynced();
  }

  waitForMembers(signal?: AbortSignal): Promise<boolean> {
    return this.#union.waitForMembers(signal);
  }
}

/**
 * A client over several list/watch scopes of one resource, changeable at run time: e.g. a
 * replica's share of a sharded resource plus a dead shard's objects it took over (two label
 * selectors cannot be ORed in one), or a set of namespaces that grows. For a fixed set of
 * namespaces, `createClient(kube, resource, { namespaces })` is enough. Construction does no
 * I/O; the members start with `kube.runAndWait(signal)` (at once when the KubeClient runs).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createUnionClient}
 *
 * @throws TypeError or SelectorError (`@kubeloom/kube`) for an invalid member scope.
 */
export function createUnionClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: UnionClientOptions<T>,
): UnionClient<T> {
  const union = createUnionInformer({
    kube,
    resource,
    members: options.members,
    transform: options.transform,
  });
  return new UnionInformerClient<T>(kube, union, options);
}
