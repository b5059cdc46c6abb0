import type { KubeObject } from './object.ts';

/** An API group, version and resource (the URL path segment, plural lower-case). */
export interface GroupVersionResource {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The version, e.g. `v1`. */
  readonly version: string;
  /** The resource, e.g. `configmaps`. */
  readonly resource: string;
}

/** An API group, version and kind. */
export interface GroupVersionKind {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The version, e.g. `v1`. */
  readonly version: string;
  /** The kind, e.g. `ConfigMap`. */
  readonly kind: string;
}

/**
 * Everything needed to talk to one resource: what `@kubeloom/codegen` emits for a CRD and what
 * the built-in table holds for the built-in kinds.
 */
export interface ResourceDescriptor {
  /** The API group; `''` for the core group. */
  readonly group: string;
  /** The version served and used, e.g. `v1`. */
  readonly version: string;
  /** The kind, e.g. `Deployment`. */
  readonly kind: string;
  /** The plural resource name in URLs, e.g. `deployments`. */
  readonly plural: string;
  /** The singular name, lower-case. */
  readonly singular?: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  readonly namespaced: boolean;
  /** The kind of the list, e.g. `DeploymentList`; defaults to `<kind>List`. */
  readonly listKind?: string;
  /** Which subresources the resource serves. */
  readonly subresources?: { readonly status?: boolean; readonly scale?: boolean };
  /** Short names, e.g. `deploy`. */
  readonly shortNames?: readonly string[];
  /** True when strategic merge patch applies (built-in kinds only; never for CRDs). */
  readonly strategicMergePatch?: boolean;
}

/** `group/version`, or just `version` for the core group, as in `apiVersion`. */
export function apiVersionOf(r: { readonly group: string; readonly version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** Splits an `apiVersion` into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The GVR of a descriptor. */
export function gvrOf(d: ResourceDescriptor): GroupVersionResource {
  return { group: d.group, version: d.version, resource: d.plural };
}

/** The GVK of a descriptor. */
export function gvkOf(d: ResourceDescriptor): GroupVersionKind {
  return { group: d.group, version: d.version, kind: d.kind };
}

/** `resource.version.group` (kubectl's fully qualified form), e.g. `deployments.v1.apps`. */
export function gvrString(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

/** The URL path of a collection or object of a resource, e.g. `/apis/apps/v1/namespaces/ns/deployments/name/status`. */
export function resourcePath(
  r: ResourceDescriptor,
  opts: {
    readonly namespace?: string | undefined;
    readonly name?: string | undefined;
    readonly subresource?: string | undefined;
  } = {},
): string {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced && opts.namespace ? `/namespaces/${encodeURIComponent(opts.namespace)}` : '';
  const name = opts.name ? `/${encodeURIComponent(opts.name)}` : '';
  const sub = opts.name && opts.subresource ? `/${opts.subresource}` : '';
  return `${prefix}${ns}/${r.plural}${name}${sub}`;
}

/**
 * A resource descriptor that also carries the object type, so typed clients infer it:
 * `createClient(kube, builtins.ConfigMap)` is a `Client<V1ConfigMap>`. The `__object` field exists
 * only in the type system.
 */
export interface TypedResourceDescriptor<T> extends ResourceDescriptor {
  /** Phantom field carrying the object type; never set at run time. */
  readonly __object?: T;
}

/**
 * The object type a resource descriptor carries: `ObjectOf<typeof builtins.ConfigMap>` is
 * `V1ConfigMap`. An untyped {@link ResourceDescriptor} (one built at run time, e.g. from
 * discovery) carries none and falls back to a plain {@link KubeObject}, as the typed verbs do.
 */
export type ObjectOf<R extends ResourceDescriptor> =
  R extends TypedResourceDescriptor<infer T> ? (unknown extends T ? KubeObject : T) : KubeObject;

/** Declares a typed resource descriptor (what codegen emits for each CRD). */
export function defineResource<T>(descriptor: ResourceDescriptor): TypedResourceDescriptor<T> {
  return Object.freeze({ ...descriptor });
}
