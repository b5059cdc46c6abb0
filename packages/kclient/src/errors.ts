import { gvrString, type ResourceDescriptor } from '@kubeloom/kube';

/**
 * Thrown by writes through a delayed client while its CustomResourceDefinition is not installed
 * (or not yet served by discovery). Nothing was sent to the API server.
 */
export class ResourceNotServedError extends Error {
  /** The resource that is not served. */
  readonly resource: ResourceDescriptor;

  /** Creates the error for `resource`. */
  constructor(resource: ResourceDescriptor, verb: string) {
    const crd = `${resource.plural}.${resource.group}`;
    super(
      `cannot ${verb} ${resource.kind} (${gvrString({ group: resource.group, version: resource.version, resource: resource.plural })}): ` +
        `the CustomResourceDefinition ${crd} is not installed or does not serve version ${resource.version}. ` +
        `Install the CRD (kubectl apply -f …) and retry; reads through this client stay empty until it is served.`,
    );
    this.name = 'ResourceNotServedError';
    this.resource = resource;
  }
}
