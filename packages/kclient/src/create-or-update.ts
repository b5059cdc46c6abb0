import { isAlreadyExists, type KubeObject, type WriteOptions } from '@kubeloom/kube';
import type { Writer } from './interfaces.ts';

/**
 * Creates the object, or replaces it when it already exists (Istio's `kclient.CreateOrUpdate`).
 * The update is unconditional unless `obj` carries a `metadata.resourceVersion`.
 */
export async function createOrUpdate<T extends KubeObject>(
  writer: Writer<T>,
  obj: T,
  opts?: WriteOptions,
): Promise<T> {
  try {
    return await writer.create(obj, opts);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return await writer.update(obj, opts);
  }
}
