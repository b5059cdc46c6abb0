import { builtinResources } from '../../builtins.ts';
import { apiVersionOf, type ResourceDescriptor } from '../../resource.ts';
import { isObject, type JsonObject } from './json.ts';

/** A served resource and where it came from. */
export interface ServedResource {
  readonly descriptor: ResourceDescriptor;
  /** The CRD that serves it, for custom resources. */
  readonly crd?: string | undefined;
  /** The version objects are stored in (all served versions share one store, without conversion). */
  readonly storageKey: string;
  /** For custom resources: the served version's `openAPIV3Schema`, when the CRD gives one. */
  readonly schema?: JsonObject | undefined;
}

/** Built-in kinds whose strategies maintain `metadata.generation`. */
const GENERATION_TRACKED = new Set([
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
  'autoscaling/horizontalpodautoscalers',
  'apiextensions.k8s.io/customresourcedefinitions',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  '/pods',
]);

/** The key objects of a resource are stored under: `group/plural`. */
export function storageKeyOf(d: { readonly group: string; readonly plural: string }): string {
  return `${d.group}/${d.plural}`;
}

/** The versions a CRD object serves: each one's descriptor and `openAPIV3Schema`. */
function servedVersionsOfCrd(
  crd: JsonObject,
): Array<{ descriptor: ResourceDescriptor; schema: JsonObject | undefined }> {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const plural = String(names.plural ?? '');
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  return versions
    .filter((v) => v.served !== false)
    .map((v) => {
      const sub = isObject(v.subresources) ? v.subresources : {};
      const schema =
        isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
      const descriptor = {
        group,
        version: String(v.name ?? ''),
        kind,
        plural,
        singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(),
        namespaced: spec.scope === 'Namespaced',
        listKind: typeof names.listKind === 'string' && names.listKind ? names.listKind : `${kind}List`,
        subresources: { status: sub.status !== undefined, scale: sub.scale !== undefined },
        ...(Array.isArray(names.shortNames) ? { shortNames: names.shortNames.map(String) } : {}),
        strategicMergePatch: false,
      } satisfies ResourceDescriptor;
      return { descriptor, schema };
    });
}

/** The served resources: built-ins, extra descriptors, and what CRDs add. */
export class ResourceTable {
  readonly #byGvr = new Map<string, ServedResource>();

  /** Creates the table with the built-ins and any extra descriptors. */
  constructor(extra: readonly ResourceDescriptor[] = []) {
    for (const d of [...builtinResources, ...extra])
      this.#add({ descriptor: d, storageKey: storageKeyOf(d) });
  }

  #add(r: ServedResource): void {
    this.#byGvr.set(`${r.descriptor.group}/${r.descriptor.version}/${r.descriptor.plural}`, r);
  }

  /** The served resource for a group, version and plural. */
  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.#byGvr.get(`${group}/${version}/${plural}`);
  }

  /** The served resource for an `apiVersion` and `kind`. */
  lookupKind(apiVersion: string, kind: string): ServedResource | undefined {
    for (const r of this.#byGvr.values()) {
      if (apiVersionOf(r.descriptor) === apiVersion && r.descriptor.kind === kind) return r;
    }
    return undefined;
  }

  /** Every served resource. */
  all(): ServedResource[] {
    return [...this.#byGvr.values()];
  }

  /** Serves (or re-serves) what a CRD defines; returns the storage key. */
  serveCrd(crd: JsonObject): void {
    const name = String((crd.metadata as JsonObject | undefined)?.name ?? '');
    this.unserveCrd(name);
    for (const { descriptor, schema } of servedVersionsOfCrd(crd))
      this.#add({ descriptor, crd: name, storageKey: storageKeyOf(descriptor), schema });
  }

  /** Stops serving a CRD's resources. */
  unserveCrd(name: string): void {
    for (const [k, r] of this.#byGvr) if (r.crd === name) this.#byGvr.delete(k);
  }

  /** True when objects of the resource carry `metadata.generation`. */
  tracksGeneration(r: ServedResource): boolean {
    return r.crd !== undefined || GENERATION_TRACKED.has(storageKeyOf(r.descriptor));
  }

  /** `/api` */
  apiVersions(): JsonObject {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: 'fake:443' }],
    };
  }

  #groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const r of this.#byGvr.values()) {
      const g = r.descriptor.group;
      if (!g) continue;
      const versions = groups.get(g) ?? [];
      if (!versions.includes(r.descriptor.version)) versions.push(r.descriptor.version);
      groups.set(g, versions);
    }
    return groups;
  }

  #group(name: string, versions: string[]): JsonObject {
    const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
    return { name, versions: list, preferredVersion: list[0] };
  }

  /** `/apis` */
  apiGroupList(): JsonObject {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...this.#groups()].map(([name, versions]) => this.#group(name, versions)),
    };
  }

  /** `/apis/<group>`, or undefined when the group is not served. */
  apiGroup(group: string): JsonObject | undefined {
    const versions = this.#groups().get(group);
    return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...this.#group(group, versions) } : undefined;
  }

  /** `/api/v1` or `/apis/<group>/<version>`, or undefined when not served. */
  apiResourceList(group: string, version: string): JsonObject | undefined {
    const served = [...this.#byGvr.values()].filter(
      (r) => r.descriptor.group === group && r.descriptor.version === version,
    );
    if (served.length === 0) return undefined;
    const resources: JsonObject[] = [];
    for (const { descriptor: d } of served) {
      resources.push({
        name: d.plural,
        singularName: d.singular ?? d.kind.toLowerCase(),
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        ...(d.shortNames?.length ? { shortNames: [...d.shortNames] } : {}),
      });
      if (d.subresources?.status) {
        resources.push({
          name: `${d.plural}/status`,
          singularName: '',
          namespaced: d.namespaced,
          kind: d.kind,
          verbs: ['get', 'patch', 'update'],
        });
      }
      if (d.subresources?.scale) {
        resources.push({
          name: `${d.plural}/scale`,
          singularName: '',
          namespaced: d.namespaced,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        });
      }
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    };
  }
}
