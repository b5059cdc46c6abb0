import {
  builtinResources,
  createUnionInformer,
  type GroupVersionResource,
  gvrString,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
  type SharedInformer,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import type {
  Client,
  ClientOptions,
  Filter,
  Informer,
  PartialObjectMetadata,
  Untyped,
  Writer,
} from './interfaces.ts';
import { ApiWriter, type ResourceSource } from './internal/api-writer.ts';
import { DelayedClient } from './internal/delayed-client.ts';
import { InformerClient, resolveFilter } from './internal/informer-client.ts';
import { labelSelectorString } from './label-selector.ts';
import { METADATA_TRANSFORM_NAME, toPartialObjectMetadata } from './partial-object-metadata.ts';

/** `writeResource` resolves the resource writes go to when it differs from the one read (a GVR not yet discovered). */
function buildInformerClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: ClientOptions<T> & { readonly writeResource?: ResourceSource },
): InformerClient<T> {
  const { writeResource = resource } = options;
  const labelSelector = labelSelectorString(options.labelSelector);
  const fieldSelector = options.fieldSelector || undefined;
  let informer: SharedInformer<T>;
  if (options.namespaces === undefined) {
    informer = kube.informer(resource, {
      namespace: options.namespace || undefined,
      labelSelector,
      fieldSelector,
      transform: options.transform,
    });
  } else {
    if (options.namespace) throw new TypeError('pass either namespace or namespaces, not both');
    informer = createUnionInformer({
      kube,
      resource,
      members: options.namespaces.map((namespace) => ({ namespace, labelSelector, fieldSelector })),
      transform: options.transform,
    });
  }
  return new InformerClient<T>({
    kube,
    resource,
    informer,
    filter: resolveFilter(options.objectFilter),
    fieldManager: options.fieldManager,
    writeResource,
  });
}

/**
 * The typed client of a resource: cached reads and event handlers over the KubeClient's shared
 * informer, writes straight to the API server (Istio's `kclient.New` and `NewFiltered`). A client
 * may see a subset: `namespace`, `labelSelector` and `fieldSelector` are server-side (a separate
 * shared list/watch per combination); `namespaces` makes one cache of one such list/watch per
 * namespace (a union informer, see {@link Filter.namespaces}); `objectFilter` is client-side and may change at run time
 * (see {@link DynamicFilter} and `createNamespaceSelectorFilter`).
 *
 * Construction does no I/O: the informer starts with `kube.runAndWait(signal)` (or at once when
 * the KubeClient already runs).
 *
 * @example
 * {@includeCode ./example.test.ts#client}
 */
export function createClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: ClientOptions<T> = {},
): Client<T> {
  return buildInformerClient<T>(kube, resource, options);
}

/**
 * A write-only client: no informer, no cache, no watch (Istio's `NewWriteClient`).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createWriteClient}
 */
export function createWriteClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: { readonly fieldManager?: string | undefined } = {},
): Writer<T> {
  return new ApiWriter<T>({ kube, resource, fieldManager: options.fieldManager });
}

function isDescriptor(r: GroupVersionResource | ResourceDescriptor): r is ResourceDescriptor {
  return 'plural' in r && 'kind' in r;
}

/**
 * A client over any resource with plain JSON objects, by descriptor or by GVR. A GVR the
 * registry does not know yet (a CRD not yet discovered) is watched by its path alone; writes
 * resolve its descriptor through discovery at the first write (and fail with
 * `UnknownResourceError` when the API server does not serve it). In TypeScript every object is
 * JSON already, so this is also Istio's dynamic client (`NewUntypedInformer`, `NewDynamic`).
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createUntypedClient}
 */
export function createUntypedClient(
  kube: KubeClient,
  resource: GroupVersionResource | ResourceDescriptor,
  options: ClientOptions<KubeObject> = {},
): Untyped {
  if (isDescriptor(resource)) return buildInformerClient<KubeObject>(kube, resource, options);
  const gvr = resource;
  const known = kube.registry.lookupResource(gvr);
  if (known) return buildInformerClient<KubeObject>(kube, known, options);
  const provisional: ResourceDescriptor = {
    group: gvr.group,
    version: gvr.version,
    plural: gvr.resource,
    kind: '',
    // Only matters for paths: a namespace-scoped watch needs it, an all-namespaces one does not.
    namespaced: options.namespace !== undefined || options.namespaces !== undefined,
  };
  return buildInformerClient<KubeObject>(kube, provisional, {
    ...options,
    writeResource: async () => await kube.registry.forResource(gvr),
  });
}

/**
 * A metadata-only informer: the cache keeps `apiVersion`, `kind` and `metadata` of each object
 * (see {@link toPartialObjectMetadata}). Its shared informer is separate from a full one on the
 * same resource (the transform is part of the sharing key).
 *
 * This is kubeloom's memory-light equivalent of client-go's metadata informer: client-node has
 * no `PartialObjectMetadata` watch, so the full objects are still transferred and decoded, then
 * trimmed before caching. Istio's `NewMetadata`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createMetadataClient}
 */
export function createMetadataClient(
  kube: KubeClient,
  resource: ResourceDescriptor,
  filter: Filter<PartialObjectMetadata> = {},
): Informer<PartialObjectMetadata> {
  return buildInformerClient<PartialObjectMetadata>(kube, resource, {
    ...filter,
    transform: { name: METADATA_TRANSFORM_NAME, fn: toPartialObjectMetadata },
  });
}

const builtinKeys = new Set(
  builtinResources.map((r) => gvrString({ group: r.group, version: r.version, resource: r.plural })),
);

/**
 * A client for a CRD that may not be installed yet (watched through `kube.crdWatcher`):
 *
 * - while the CRD is missing, `get` is undefined, `list` and index lookups are empty, writes
 *   fail with {@link ResourceNotServedError} (nothing is sent), and `hasSynced` is true once
 *   the CRD watcher (and a dynamic `objectFilter`) synced, i.e. once the CRD is known to be
 *   missing;
 * - when the CRD is established and discovery serves it, the real shared informer takes over;
 *   every handler and index registered before moves onto it, and `hasSynced` then waits for it;
 * - once loaded the client stays loaded. Deleting the CRD makes the API server delete every
 *   object (handlers see deletes); the informer retries with backoff, and a reinstalled CRD
 *   makes it retry at once. Writes fail with {@link ResourceNotServedError} meanwhile.
 *   `shutdownHandlers()` also stops the client's CRD watcher listener.
 *
 * Built-in kinds are always served: for them this is {@link createClient}. Istio's
 * `NewDelayedInformer` and `NewFilteredDelayed`.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createDelayedClient}
 */
export function createDelayedClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: ClientOptions<T> = {},
): Client<T> {
  if (
    builtinKeys.has(
      gvrString({ group: resource.group, version: resource.version, resource: resource.plural }),
    )
  ) {
    return createClient(kube, resource, options);
  }
  return new DelayedClient<T>({
    kube,
    resource,
    fieldManager: options.fieldManager,
    filter: resolveFilter(options.objectFilter),
    load: () => buildInformerClient<T>(kube, resource, options),
  });
}
