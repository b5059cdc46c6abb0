import type { ResourceDescriptor } from '../../resource.ts';
import { SelectorError } from '../../selector-error.ts';
import type { JsonObject } from './json.ts';
import type { ResourceTable, ServedResource } from './resource-table.ts';
import { fieldSelectorOf, labelSelectorPredicate, type ObjectPredicate } from './selectors.ts';
import * as S from './status.ts';
import { objectKeyOf } from './stored-object.ts';

/** What a selection of a list or watch needs: the predicate, and the one key a `metadata.name` field selector pins. */
export interface Selection {
  /** Whether an object is selected (namespace, labels and fields). */
  readonly matches: ObjectPredicate;
  /** The only key the selection can match, when a field selector pins the name. */
  readonly singleKey: string | undefined;
}

/**
 * The served resource a request addresses; an unserved one is the apiserver's 404 (with a
 * Status when its group version is served, the mux's plain 404 otherwise).
 */
export function servedResource(table: ResourceTable, resource: ResourceDescriptor): ServedResource {
  const served = table.lookup(resource.group, resource.version, resource.plural);
  if (served) return served;
  const versionServed = table
    .all()
    .some((r) => r.descriptor.group === resource.group && r.descriptor.version === resource.version);
  throw versionServed ? S.toError(S.pathNotFound()) : S.muxNotFound();
}

/** Refuses a subresource the resource does not serve (only `status` is served) with a 404. */
export function checkSubresource(served: ServedResource, subresource: string | undefined): void {
  if (subresource === undefined || subresource === '') return;
  if (subresource === 'status' && served.descriptor.subresources?.status) return;
  throw S.toError(S.pathNotFound());
}

/**
 * The storage key of an object. Without a namespace, a namespaced resource's request goes to
 * the cluster-wide path, where the apiserver serves no single objects: 404.
 */
export function requestKey(served: ServedResource, namespace: string | undefined, name: string): string {
  if (served.descriptor.namespaced && !namespace) throw S.toError(S.pathNotFound());
  return objectKeyOf(served.descriptor.namespaced ? namespace : undefined, name);
}

/** The selection of a list or watch: namespace, label and field selectors (400 when one does not parse). */
export function selectionOf(
  served: ServedResource,
  opts: {
    namespace?: string | undefined;
    labelSelector?: string | undefined;
    fieldSelector?: string | undefined;
  },
): Selection {
  let labels: ObjectPredicate;
  let fields: ReturnType<typeof fieldSelectorOf>;
  try {
    labels = labelSelectorPredicate(opts.labelSelector);
    fields = fieldSelectorOf(opts.fieldSelector, served.descriptor.group, served.descriptor.plural);
  } catch (err) {
    if (err instanceof SelectorError) throw S.toError(S.badRequest(err.detail));
    throw err;
  }
  const namespaced = served.descriptor.namespaced;
  const ns = namespaced ? opts.namespace : undefined;
  // A pinned name reads one key: with the namespace for namespaced resources, as the apiserver's KeyFunc needs.
  const singleKey =
    fields.singleName !== undefined && (!namespaced || ns) ? objectKeyOf(ns, fields.singleName) : undefined;
  return {
    matches: (o) => (!ns || (o.metadata as JsonObject).namespace === ns) && labels(o) && fields.matches(o),
    singleKey,
  };
}
