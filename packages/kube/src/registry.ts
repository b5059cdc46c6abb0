import type { GroupVersionKind, GroupVersionResource, ResourceDescriptor } from './resource.ts';

/**
 * Maps kinds to resources and back, with scope and subresources: the built-in kinds from a static
 * table, everything else (CRDs, aggregated APIs) from discovery.
 */
export interface ResourceRegistry {
  /**
   * The descriptor for a kind, from the built-in table, from what was registered, or (async)
   * from discovery.
   * @throws UnknownResourceError naming the kind and saying what to check.
   */
  forKind(gvk: GroupVersionKind): Promise<ResourceDescriptor>;
  /** The descriptor for a resource. @throws UnknownResourceError */
  forResource(gvr: GroupVersionResource): Promise<ResourceDescriptor>;
  /** The descriptor for an object's `apiVersion` and `kind`. @throws UnknownResourceError */
  forObject(obj: { apiVersion?: string; kind?: string }): Promise<ResourceDescriptor>;
  /** Synchronous lookup in what is already known (built-ins, registered, discovered). */
  lookupKind(gvk: GroupVersionKind): ResourceDescriptor | undefined;
  /** Synchronous lookup by resource. */
  lookupResource(gvr: GroupVersionResource): ResourceDescriptor | undefined;
  /** Adds a descriptor (e.g. one that codegen emitted). */
  register(descriptor: ResourceDescriptor): void;
  /** Forgets what discovery found, so the next lookup asks again (after a CRD changed). */
  invalidate(): void;
}

/** Thrown when a kind or resource is neither built in, registered nor served. */
export class UnknownResourceError extends Error {
  /** Creates the error. */
  constructor(what: string, hint = '') {
    super(
      `unknown resource ${what}: it is not a built-in kind and the API server does not serve it` +
        (hint ? ` (${hint})` : '') +
        '. If it is a CRD, check that the CRD is installed (kubectl get crd) and that its version is served.',
    );
    this.name = 'UnknownResourceError';
  }
}
