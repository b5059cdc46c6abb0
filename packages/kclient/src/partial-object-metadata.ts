import type { KubeObject, TransformFunc } from '@kubeloom/kube';
import type { PartialObjectMetadata } from './interfaces.ts';

/**
 * The ingest transform of metadata-only clients: keeps `apiVersion`, `kind` and `metadata`
 * (without `managedFields`) and drops everything else before the object is cached.
 *
 * client-node cannot ask the API server for `PartialObjectMetadata` (the `as=PartialObjectMetadata`
 * content negotiation of client-go's metadata informers), so the full objects still cross the
 * wire: this saves cache memory, not bandwidth.
 */
export const toPartialObjectMetadata: TransformFunc = (obj: KubeObject): PartialObjectMetadata => {
  const { managedFields: _dropped, ...metadata } = obj.metadata ?? {};
  const out: PartialObjectMetadata = { metadata };
  if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) out.kind = obj.kind;
  return out;
};

/** The name of {@link toPartialObjectMetadata} in informer sharing keys. */
export const METADATA_TRANSFORM_NAME = 'metadata-only';
