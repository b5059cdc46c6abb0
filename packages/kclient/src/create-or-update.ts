import { isAlreadyExists, isConflict, type KubeObject, type WriteOptions } from '@kubeloom/kube';
import type { Writer } from './interfaces.ts';
import { isLatestReader } from './internal/latest-reader.ts';
import { type RetryOptions, retryOnConflict } from './retry-on-conflict.ts';

/** Options of {@link createOrUpdate}. */
export interface CreateOrUpdateOptions<T extends KubeObject> extends WriteOptions {
  /**
   * Reads the current object straight from the API server (`undefined` when it does not exist).
   * Default: the writer's own uncached read, which every kclient writer has; pass it for a
   * `Writer` implemented elsewhere.
   */
  readonly get?: ((name: string, namespace: string | undefined) => Promise<T | undefined>) | undefined;
  /** Backoff of the read-then-update attempts (`retryOnConflict`'s defaults otherwise). */
  readonly retry?: Omit<RetryOptions, 'retriable' | 'signal'> | undefined;
}

function withResourceVersion<T extends KubeObject>(obj: T, resourceVersion: string | undefined): T {
  const { resourceVersion: _old, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata: resourceVersion === undefined ? metadata : { ...metadata, resourceVersion } };
}

/**
 * Creates the object, or replaces it when it already exists (Istio's `kclient.CreateOrUpdate`,
 * made safe for custom resources).
 *
 * On `AlreadyExists` the current object is read from the API server (uncached) and `obj` is
 * written over it with the current `metadata.resourceVersion`, inside {@link retryOnConflict}:
 * a concurrent change is retried with a fresh read, an object deleted meanwhile is created
 * again. (An update without a resourceVersion is refused by the API server for custom resources:
 * `422 metadata.resourceVersion: must be specified for an update`.) When `obj` carries its own
 * `metadata.resourceVersion` the update is conditional on it and a conflict is thrown, not
 * retried.
 *
 * @throws TypeError when the writer cannot read (not a kclient writer) and `opts.get` is absent.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createOrUpdate}
 */
export async function createOrUpdate<T extends KubeObject>(
  writer: Writer<T>,
  obj: T,
  opts: CreateOrUpdateOptions<T> = {},
): Promise<T> {
  const { get, retry, ...write } = opts;
  const read =
    get ??
    (isLatestReader<T>(writer)
      ? (name: string, namespace: string | undefined) => writer.readLatest(name, namespace, write.signal)
      : undefined);
  if (!read) {
    throw new TypeError(
      'createOrUpdate: this writer cannot read the current object (it is not a kclient writer); pass opts.get',
    );
  }
  // the API server refuses a create that carries a resourceVersion
  const toCreate = obj.metadata?.resourceVersion ? withResourceVersion(obj, undefined) : obj;
  try {
    return await writer.create(toCreate, write);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  if (obj.metadata?.resourceVersion) return await writer.update(obj, write);
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  return await retryOnConflict(
    async () => {
      const current = await read(name, namespace);
      if (current === undefined) return await writer.create(toCreate, write);
      return await writer.update(withResourceVersion(obj, current.metadata?.resourceVersion), write);
    },
    { ...retry, signal: write.signal, retriable: (e) => isConflict(e) || isAlreadyExists(e) },
  );
}
