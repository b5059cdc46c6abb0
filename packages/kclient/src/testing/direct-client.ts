import {
  apiVersionOf,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import { createWriteClient } from '../create-client.ts';
import { must } from '../internal/must.ts';
import { type LabelSelector, labelSelectorString } from '../label-selector.ts';
import { failingWriter, type TestWriter } from './test-writer.ts';

/**
 * An uncached client for tests: reads go straight to the API server (no informer, no lag), and
 * every failure other than a missing object fails the test (Istio's `clienttest.NewDirectClient`).
 */
export interface DirectClient<T extends KubeObject> extends TestWriter<T> {
  /** The object from the API server, or `undefined` when it does not exist. */
  get(name: string, namespace?: string): Promise<T | undefined>;
  /** The objects from the API server, in one namespace (or all) matching `selector`. */
  list(namespace?: string, selector?: LabelSelector): Promise<T[]>;
}

/**
 * Creates a {@link DirectClient} for `resource`.
 *
 * @example
 * {@includeCode ../doc-examples.test.ts#createDirectClient}
 */
export function createDirectClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
): DirectClient<T> {
  return {
    ...failingWriter(createWriteClient(kube, resource), resource),
    get: (name, namespace) =>
      must(`get ${resource.kind} ${namespace ? `${namespace}/` : ''}${name}`, async () => {
        try {
          return await kube.api.get({ resource, name, namespace });
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }),
    list: (namespace, selector) =>
      must(`list ${resource.kind}${namespace ? ` in ${namespace}` : ''}`, async () => {
        const items: T[] = [];
        let cont: string | undefined;
        do {
          const page = await kube.api.list(resource, {
            namespace,
            labelSelector: labelSelectorString(selector),
            limit: 500,
            continue: cont,
          });
          for (const item of page.items) {
            items.push(
              item.apiVersion ? item : { ...item, apiVersion: apiVersionOf(resource), kind: resource.kind },
            );
          }
          cont = page.metadata.continue || undefined;
        } while (cont);
        return items;
      }),
  };
}
