import type { ApiClient } from './api.ts';
import { builtinResources } from './builtins.ts';
import { isNotFound } from './errors.ts';
import { type ResourceRegistry, UnknownResourceError } from './registry.ts';
import {
  type GroupVersionKind,
  type GroupVersionResource,
  parseApiVersion,
  type ResourceDescriptor,
} from './resource.ts';

interface ApiResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

interface ApiResourceList {
  groupVersion?: string;
  resources?: ApiResource[];
}

const gvKey = (group: string, version: string): string => `${group}/${version}`;
const kindKey = (g: GroupVersionKind): string => `${g.group}/${g.version}/${g.kind}`;
const resKey = (g: GroupVersionResource): string => `${g.group}/${g.version}/${g.resource}`;

/**
 * A {@link ResourceRegistry} seeded with the built-in table and completed from discovery
 * (`/api/v1`, `/apis/<group>/<version>`), one request per group/version, cached until
 * {@link DiscoveryRegistry.invalidate}.
 */
export class DiscoveryRegistry implements ResourceRegistry {
  readonly #api: ApiClient;
  readonly #byKind = new Map<string, ResourceDescriptor>();
  readonly #byResource = new Map<string, ResourceDescriptor>();
  readonly #static = new Set<string>();
  readonly #discovered = new Map<string, Promise<boolean>>();

  /** Creates a registry that discovers through `api`. */
  constructor(api: ApiClient) {
    this.#api = api;
    for (const d of builtinResources) this.#add(d, true);
  }

  #add(d: ResourceDescriptor, isStatic: boolean): void {
    this.#byKind.set(kindKey(d), d);
    this.#byResource.set(resKey({ group: d.group, version: d.version, resource: d.plural }), d);
    if (isStatic) this.#static.add(kindKey(d));
  }

  /** {@inheritDoc ResourceRegistry.register} */
  register(descriptor: ResourceDescriptor): void {
    this.#add(descriptor, true);
  }

  /** {@inheritDoc ResourceRegistry.lookupKind} */
  lookupKind(gvk: GroupVersionKind): ResourceDescriptor | undefined {
    return this.#byKind.get(kindKey(gvk));
  }

  /** {@inheritDoc ResourceRegistry.lookupResource} */
  lookupResource(gvr: GroupVersionResource): ResourceDescriptor | undefined {
    return this.#byResource.get(resKey(gvr));
  }

  /** {@inheritDoc ResourceRegistry.forKind} */
  async forKind(gvk: GroupVersionKind): Promise<ResourceDescriptor> {
    const known = this.lookupKind(gvk);
    if (known) return known;
    const found = await this.#lookupWithDiscovery(gvk.group, gvk.version, () => this.lookupKind(gvk));
    if (!found)
      throw new UnknownResourceError(`kind ${gvk.kind} in ${gvk.group ? `${gvk.group}/` : ''}${gvk.version}`);
    return found;
  }

  /** {@inheritDoc ResourceRegistry.forResource} */
  async forResource(gvr: GroupVersionResource): Promise<ResourceDescriptor> {
    const known = this.lookupResource(gvr);
    if (known) return known;
    const found = await this.#lookupWithDiscovery(gvr.group, gvr.version, () => this.lookupResource(gvr));
    if (!found)
      throw new UnknownResourceError(
        `resource ${gvr.resource} in ${gvr.group ? `${gvr.group}/` : ''}${gvr.version}`,
      );
    return found;
  }

  /** {@inheritDoc ResourceRegistry.forObject} */
  async forObject(obj: { apiVersion?: string; kind?: string }): Promise<ResourceDescriptor> {
    if (!obj.apiVersion || !obj.kind) {
      throw new UnknownResourceError(
        'of an object without apiVersion/kind',
        'set apiVersion and kind on the object',
      );
    }
    const { group, version } = parseApiVersion(obj.apiVersion);
    return await this.forKind({ group, version, kind: obj.kind });
  }

  /** {@inheritDoc ResourceRegistry.invalidate} */
  invalidate(): void {
    this.#discovered.clear();
    for (const [k, d] of [...this.#byKind]) {
      if (!this.#static.has(k)) {
        this.#byKind.delete(k);
        this.#byResource.delete(resKey({ group: d.group, version: d.version, resource: d.plural }));
      }
    }
  }

  /**
   * Discovers a group/version (once; concurrent callers share the request), and asks again once
   * when a cached answer does not have what is looked for (a CRD installed since).
   */
  async #lookupWithDiscovery(
    group: string,
    version: string,
    lookup: () => ResourceDescriptor | undefined,
  ): Promise<ResourceDescriptor | undefined> {
    const cached = this.#discovered.has(gvKey(group, version));
    await this.#discover(group, version, false);
    const found = lookup();
    if (found || !cached) return found;
    await this.#discover(group, version, true);
    return lookup();
  }

  /** Asks discovery for one group/version; true when the server serves it. Cached; `refresh` forces a new request when the cache answered no. */
  async #discover(group: string, version: string, refresh: boolean): Promise<boolean> {
    const key = gvKey(group, version);
    const cached = this.#discovered.get(key);
    if (cached && !refresh) return await cached;
    const pending = (async () => {
      let list: ApiResourceList;
      try {
        list = await this.#api.request<ApiResourceList>({
          method: 'GET',
          path: group ? `/apis/${group}/${version}` : `/api/${version}`,
        });
      } catch (err) {
        if (isNotFound(err)) return false;
        this.#discovered.delete(key);
        throw err;
      }
      const resources = list.resources ?? [];
      const subresources = new Map<string, Set<string>>();
      for (const r of resources) {
        const slash = r.name.indexOf('/');
        if (slash === -1) continue;
        const parent = r.name.slice(0, slash);
        if (!subresources.has(parent)) subresources.set(parent, new Set());
        subresources.get(parent)!.add(r.name.slice(slash + 1));
      }
      for (const r of resources) {
        if (r.name.includes('/')) continue;
        const subs = subresources.get(r.name);
        const existing = this.lookupKind({ group, version, kind: r.kind });
        if (existing && this.#static.has(kindKey(existing))) continue;
        this.#add(
          {
            group,
            version,
            kind: r.kind,
            plural: r.name,
            singular: r.singularName || r.kind.toLowerCase(),
            namespaced: r.namespaced,
            listKind: `${r.kind}List`,
            subresources: { status: subs?.has('status') ?? false, scale: subs?.has('scale') ?? false },
            ...(r.shortNames ? { shortNames: r.shortNames } : {}),
            strategicMergePatch: !isCustom(group),
          },
          false,
        );
      }
      return true;
    })();
    this.#discovered.set(key, pending);
    return await pending;
  }
}

const BUILTIN_GROUPS = new Set([
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'certificates.k8s.io',
  'admissionregistration.k8s.io',
  'scheduling.k8s.io',
  'node.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
  'apiregistration.k8s.io',
]);

/** Strategic merge patch works only for built-in types (it needs Go struct tags); custom resources reject it. */
function isCustom(group: string): boolean {
  return group !== '' && !BUILTIN_GROUPS.has(group);
}
