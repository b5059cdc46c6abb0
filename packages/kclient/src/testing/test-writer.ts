import {
  isAlreadyExists,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import type { Writer } from '../interfaces.ts';
import { describeObject as describe, must } from '../internal/must.ts';
import { newWriteClient } from '../new-client.ts';

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
  /** Creates the object, or replaces it when it exists. */
  createOrUpdate(obj: T): Promise<T>;
  /** {@link TestWriter.createOrUpdate}, then writes `obj.status` through the status subresource. */
  createOrUpdateStatus(obj: T): Promise<T>;
  /** Deletes the object. */
  delete(name: string, namespace?: string): Promise<void>;
}

/** Wraps a {@link Writer} (any client) so that write errors fail the test. */
export function testWriter<T extends KubeObject>(writer: Writer<T>): TestWriter<T> {
  const createOrUpdate = async (obj: T): Promise<T> => {
    try {
      return await writer.create(obj);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return await writer.update(obj);
    }
  };
  return {
    create: (obj) => must(`create ${describe(obj)}`, () => writer.create(obj)),
    update: (obj) => must(`update ${describe(obj)}`, () => writer.update(obj)),
    updateStatus: (obj) => must(`updateStatus ${describe(obj)}`, () => writer.updateStatus(obj)),
    createOrUpdate: (obj) => must(`createOrUpdate ${describe(obj)}`, () => createOrUpdate(obj)),
    createOrUpdateStatus: (obj) =>
      must(`createOrUpdateStatus ${describe(obj)}`, async () => {
        const stored = await createOrUpdate(obj);
        const status = (obj as { status?: unknown }).status;
        return await writer.updateStatus({ ...stored, status } as T);
      }),
    delete: (name, namespace) =>
      must(`delete ${namespace ? `${namespace}/` : ''}${name}`, () => writer.delete(name, namespace)),
  };
}

/** A {@link TestWriter} straight on the API for `resource`. */
export function newTestWriter<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
): TestWriter<T> {
  return testWriter(newWriteClient(kube, resource));
}
