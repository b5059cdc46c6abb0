import { isConflict, type KubeObject, type ObjectKey, type ResourceDescriptor } from '@kubeloom/kube';
import { createOrUpdate } from '../create-or-update.ts';
import type { Writer } from '../interfaces.ts';
import { isLatestReader } from '../internal/latest-reader.ts';
import { describeName, describeObject, must } from '../internal/must.ts';
import { resourceOfWriter } from '../internal/resource-of-writer.ts';
import { retryOnConflict } from '../retry-on-conflict.ts';

/**
 * A writer for tests: every method resolves with the object the server returned, or rejects
 * with a {@link ClientTestError} that names the operation and the object (the original error is
 * its `cause`), so an awaited call fails the test (Istio's `clienttest.TestWriter`).
 */
export interface TestWriter<T extends KubeObject> {
  /** Creates the object. */
  create(obj: T): Promise<T>;
  /** Replaces the object. */
  update(obj: T): Promise<T>;
  /** Replaces the object's status. */
  updateStatus(obj: T): Promise<T>;
  /**
   * Creates the object, or replaces it when it exists (kclient's `createOrUpdate`: the current
   * resourceVersion is read and conflicts are retried, so it works for custom resources too).
   */
  createOrUpdate(obj: T): Promise<T>;
  /**
   * {@link TestWriter.createOrUpdate}, then writes `obj.status` through the status subresource
   * (conditional on the current resourceVersion, retried on conflicts).
   */
  createOrUpdateStatus(obj: T): Promise<T>;
  /** Deletes the object: `delete({ name, namespace })`. */
  delete(ref: ObjectKey): Promise<void>;
}

/**
 * Wraps a {@link Writer} (any client) so that write errors fail the test. Messages name the
 * object's kind, or the resource's when the object has none (`resource`, default: the writer's).
 * Internal: users call `wrap`.
 */
export function failingWriter<T extends KubeObject>(
  writer: Writer<T>,
  resource: ResourceDescriptor | undefined = resourceOfWriter(writer),
): TestWriter<T> {
  const kind = (): string | undefined => resource?.kind ?? resourceOfWriter(writer)?.kind;
  const describe = (obj: T): string => describeObject(obj, kind());
  const updateStatusFrom = async (stored: T, status: unknown): Promise<T> => {
    let base = stored;
    return await retryOnConflict(
      async (attempt) => {
        if (attempt > 1 && isLatestReader<T>(writer)) {
          const meta = stored.metadata;
          base = (await writer.readLatest(meta?.name ?? '', meta?.namespace)) ?? base;
        }
        return await writer.updateStatus({ ...base, status } as T);
      },
      { retriable: (e) => isConflict(e) && isLatestReader(writer) },
    );
  };
  return {
    create: (obj) => must(`create ${describe(obj)}`, () => writer.create(obj)),
    update: (obj) => must(`update ${describe(obj)}`, () => writer.update(obj)),
    updateStatus: (obj) => must(`updateStatus ${describe(obj)}`, () => writer.updateStatus(obj)),
    createOrUpdate: (obj) => must(`createOrUpdate ${describe(obj)}`, () => createOrUpdate(writer, obj)),
    createOrUpdateStatus: (obj) =>
      must(`createOrUpdateStatus ${describe(obj)}`, async () => {
        const stored = await createOrUpdate(writer, obj);
        return await updateStatusFrom(stored, (obj as { status?: unknown }).status);
      }),
    delete: (ref) =>
      must(`delete ${describeName(kind(), ref.name, ref.namespace)}`, () => writer.delete(ref)),
  };
}
