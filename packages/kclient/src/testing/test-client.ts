import type { KubeObject, ResourceDescriptor } from '@kubeloom/kube';
import type { ReadWriter, Writer } from '../interfaces.ts';
import type { LabelSelector } from '../label-selector.ts';
import { failingWriter, type TestWriter } from './test-writer.ts';

/**
 * A client for tests (Istio's `clienttest.TestClient`): the writes of {@link TestWriter}, which
 * reject with a `ClientTestError` naming the operation and object, plus the wrapped client's
 * reads, typed. Reads go through the wrapped client, so they are cached (and eventually
 * consistent) when it is; use `createDirectClient` for uncached reads.
 */
export interface TestClient<T extends KubeObject> extends TestWriter<T> {
  /** The object from the wrapped client, or `undefined` when it has none. */
  get(name: string, namespace?: string): T | undefined;
  /** The objects from the wrapped client, in one namespace (or all) matching `selector`. */
  list(namespace?: string, selector?: LabelSelector): T[];
}

/**
 * Wraps a client (or any {@link ReadWriter}) for tests: writes fail the test on error, reads are
 * passed through (Istio's `clienttest.Wrap` and `WrapReadWriter`). The object type comes from
 * the client, so no type arguments are needed.
 *
 * @example
 * {@includeCode ../doc-examples.test.ts#wrap}
 */
export function wrap<T extends KubeObject>(
  client: ReadWriter<T> & { readonly resource?: ResourceDescriptor },
): TestClient<T>;
/**
 * Wraps a write-only client (or any {@link Writer}) for tests: writes fail the test on error
 * (Istio's `clienttest.NewWriter`): `wrap(createWriteClient(kube, builtins.ConfigMap))`.
 */
export function wrap<T extends KubeObject>(
  writer: Writer<T> & { readonly resource?: ResourceDescriptor },
): TestWriter<T>;
export function wrap<T extends KubeObject>(
  client: (Writer<T> | ReadWriter<T>) & { readonly resource?: ResourceDescriptor },
): TestWriter<T> | TestClient<T> {
  const writes = failingWriter(client, client.resource);
  if (!isReader(client)) return writes;
  return {
    ...writes,
    get: (name, namespace) => client.get(name, namespace),
    list: (namespace, selector) => client.list(namespace, selector),
  };
}

function isReader<T extends KubeObject>(client: Writer<T> | ReadWriter<T>): client is ReadWriter<T> {
  return typeof (client as Partial<ReadWriter<T>>).get === 'function';
}
