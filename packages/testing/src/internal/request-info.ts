import type { RequestVerb } from '../fault-proxy-contract.ts';

/**
 * What the apiserver would call a request, derived from its method and URL alone, the way
 * `k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory` does it.
 */

/** Every {@link RequestVerb}, in a stable order. */
export const REQUEST_VERBS: readonly RequestVerb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'discovery',
  'nonresource',
  'other',
];

/** The parts of a request URL that identify a resource. */
export interface RequestInfo {
  readonly verb: RequestVerb;
  /** `watch=true` (or `1`) in the query, or a legacy `/watch/` path. */
  readonly watch: boolean;
  /** The path without the query. */
  readonly path: string;
  /** Query parameters; a repeated parameter keeps its last value. */
  readonly query: Readonly<Record<string, string>>;
  /** `''` for the core group; absent for discovery and non-resource paths. */
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

// Subresources of a namespace that are addressed as /api/v1/namespaces/<name>/<subresource>.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/** Classifies a request by method and URL (`/api/v1/namespaces/ns/configmaps?watch=true`). */
export function requestInfo(method: string, url: string): RequestInfo {
  const parsed = new URL(url, 'https://proxy.invalid');
  const path = parsed.pathname;
  const query: Record<string, string> = {};
  for (const [k, v] of parsed.searchParams) query[k] = v;
  let watch = truthy(parsed.searchParams.get('watch'));
  const parts = path.split('/').filter((p) => p.length > 0);
  let apiGroup: string;
  let apiVersion: string;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length < 2) return { verb: 'discovery', watch: false, path, query };
    apiGroup = '';
    apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length < 3) return { verb: 'discovery', watch: false, path, query };
    apiGroup = parts[1]!;
    apiVersion = parts[2]!;
    rest = parts.slice(3);
  } else {
    return { verb: 'nonresource', watch: false, path, query };
  }
  if (rest.length === 0) return { verb: 'discovery', watch: false, path, query, apiGroup, apiVersion };
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  const upper = method.toUpperCase();
  let verb: RequestVerb;
  switch (upper) {
    case 'GET':
    case 'HEAD':
      verb = watch ? 'watch' : name === undefined ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      verb = 'other';
  }
  if (verb !== 'watch') watch = false;
  return {
    verb,
    watch,
    path,
    query,
    apiGroup,
    apiVersion,
    ...(resource !== undefined ? { resource } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
