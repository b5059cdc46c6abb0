import type { PatchOptions, PatchType, WriteOptions } from '../api.ts';
import type { ResourceDescriptor } from '../resource.ts';

/** Query parameters of one request; undefined and empty values are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** Sets the query parameters on `url`. */
export function buildQuery(url: URL, query: Query | undefined): void {
  if (!query) return;
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  }
}

/** What a request targets: the resource, and the object's name and namespace when known. */
export interface RequestTarget {
  /** The resource. */
  readonly resource: ResourceDescriptor;
  /** The object's name (or generateName), when the request names one. */
  readonly name?: string | undefined;
  /** The namespace, when the request has one. */
  readonly namespace?: string | undefined;
}

/** Refuses a by-name request on a namespaced resource without a namespace (it would silently hit the wrong URL). */
export function requireNamespace(verb: string, target: RequestTarget): void {
  const { resource, name, namespace } = target;
  if (resource.namespaced && !namespace) {
    throw new TypeError(
      `${verb} ${resource.plural}${name ? `/${name}` : ''}: ${resource.kind} is namespaced, so a namespace is required (set metadata.namespace or pass one)`,
    );
  }
}

/** The query parameters every write takes. */
export function writeQuery(opts: WriteOptions): Query {
  return { fieldManager: opts.fieldManager, dryRun: opts.dryRun, fieldValidation: opts.fieldValidation };
}

/** Names a request's target for error messages, e.g. `deployments.apps ns/web (status)`. */
export function describe(target: RequestTarget, subresource?: string): string {
  const { resource: r, name, namespace } = target;
  const res = r.group ? `${r.plural}.${r.group}` : r.plural;
  const obj = name
    ? namespace && r.namespaced
      ? `${namespace}/${name}`
      : name
    : namespace && r.namespaced
      ? `in ${namespace}`
      : '';
  return `${res}${obj ? ` ${obj}` : ''}${subresource ? ` (${subresource})` : ''}`;
}

const PATCH_TYPES: readonly PatchType[] = ['merge', 'json', 'strategic', 'apply'];

/**
 * The patch type of a patch request's options, checked: a missing or unknown `type` (a caller
 * without types, or the old positional form) fails with a TypeError naming the valid ones.
 */
export function checkPatchType(
  r: ResourceDescriptor,
  name: string,
  opts: PatchOptions | undefined,
): PatchType {
  const type = opts?.type;
  if (!PATCH_TYPES.includes(type as PatchType)) {
    throw new TypeError(
      `patch ${r.plural}/${name}: unknown patch type ${JSON.stringify(type)}; pass options with a type, e.g. patch({ resource, name, namespace }, data, { type: 'merge' }) (one of ${PATCH_TYPES.join(', ')})`,
    );
  }
  return type as PatchType;
}
