import type { KubeClient, KubeObject, TypedResourceDescriptor } from '@kubeloom/kube';
import { createClient } from './create-client.ts';
import type { ClientOptions, ScaleClient, WithScale } from './interfaces.ts';
import { ApiWriter, servesScale } from './internal/api-writer.ts';
import { resourceOfWriter } from './internal/resource-of-writer.ts';

/**
 * Adds the scale methods ({@link Scaler}) to the type of a kclient client — any client from
 * `createClient`, `createDelayedClient`, `createUntypedClient` or `createWriteClient` — after checking
 * that its resource declares the `scale` subresource.
 *
 * @example A delayed client over a CRD with the scale subresource, on the real API server
 * {@includeCode ./scale-client.integration.test.ts#withScale}
 *
 * @throws TypeError when the resource does not declare `subresources.scale: true`, when it is not
 *   known yet (an untyped client by GVR before its first write), or when `client` is not a kclient
 *   client.
 */
export function withScale<C extends object>(client: C): WithScale<C> {
  if (!(client instanceof ApiWriter)) {
    throw new TypeError('withScale: not a kclient client (use the constructors of @kubeloom/kclient)');
  }
  const resource = resourceOfWriter(client);
  if (!resource) {
    throw new TypeError('withScale: the client does not know its resource yet (an untyped client by GVR)');
  }
  if (!servesScale(resource)) {
    throw new TypeError(
      `withScale: ${resource.kind} has no scale subresource (its descriptor does not declare subresources.scale)`,
    );
  }
  return client as unknown as WithScale<C>;
}

/**
 * {@link createClient} for a resource with a `scale` subresource: the client also has `getScale`
 * and `updateScale`.
 *
 * @example
 * {@includeCode ./scale-client.integration.test.ts#createScaleClient}
 * @throws TypeError when `resource.subresources.scale` is not true.
 */
export function createScaleClient<T extends KubeObject>(
  kube: KubeClient,
  resource: TypedResourceDescriptor<T>,
  options: ClientOptions<T> = {},
): ScaleClient<T> {
  if (!servesScale(resource)) {
    throw new TypeError(
      `createScaleClient: ${resource.kind} has no scale subresource (its descriptor does not declare subresources.scale); use createClient`,
    );
  }
  return withScale(createClient(kube, resource, options));
}
