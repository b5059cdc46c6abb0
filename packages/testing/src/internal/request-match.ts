import type { ProxiedRequest, RequestMatch } from '../fault-proxy-contract.ts';

/** `value` as a list: empty when absent, itself when already one. */
export function list<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** True when `request` satisfies every field of `match`. */
export function matches(match: RequestMatch | undefined, request: ProxiedRequest): boolean {
  if (!match) return true;
  if (match.method !== undefined && !list(match.method).some((m) => m.toUpperCase() === request.method))
    return false;
  if (match.path !== undefined) {
    if (typeof match.path === 'string' ? match.path !== request.path : !match.path.test(request.path))
      return false;
  }
  if (match.verb !== undefined && !list(match.verb).includes(request.verb)) return false;
  if (match.watch !== undefined && match.watch !== request.watch) return false;
  if (match.resource !== undefined && match.resource !== request.resource) return false;
  if (match.namespace !== undefined && match.namespace !== request.namespace) return false;
  if (match.user !== undefined && match.user !== request.user) return false;
  if (match.where !== undefined && !match.where(request)) return false;
  return true;
}

/** Only the {@link RequestMatch} fields of `options` (which may carry rule or wait options too). */
export function matchOf(options: RequestMatch | undefined): RequestMatch {
  if (!options) return {};
  const { method, path, verb, watch, resource, namespace, user, where } = options;
  return { method, path, verb, watch, resource, namespace, user, where };
}
