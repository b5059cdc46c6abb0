import { setTimeout as sleep } from 'node:timers/promises';
import {
  builtins,
  defineResource,
  type GroupVersionResource,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import { ClientTestError } from './client-test-error.ts';

/** Options of {@link makeCRD}. */
export interface MakeCRDOptions {
  /** The kind. Default: the singular, capitalized (`widgets` → `Widget`). */
  readonly kind?: string | undefined;
  /** The singular resource name. Default: {@link singularOf} the plural. */
  readonly singular?: string | undefined;
  /** Namespaced (default) or cluster-scoped. */
  readonly namespaced?: boolean | undefined;
  /** Serve the status subresource. Default true. */
  readonly statusSubresource?: boolean | undefined;
  /**
   * Serve the scale subresource: `true` maps `.spec.replicas`, `.status.replicas` and
   * `.status.selector`; or give the paths. Default false.
   */
  readonly scale?:
    | boolean
    | {
        readonly specReplicasPath: string;
        readonly statusReplicasPath: string;
        readonly labelSelectorPath?: string | undefined;
      }
    | undefined;
  /** Annotations of the CRD object. */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  /** How long to wait for discovery to serve the resource, in ms. Default 15 000. */
  readonly timeoutMs?: number | undefined;
  /** Aborts the wait. */
  readonly signal?: AbortSignal | undefined;
}

/** Plurals that no suffix rule turns back into their singular. */
const IRREGULAR_PLURALS: Readonly<Record<string, string>> = {
  aliases: 'alias',
  analyses: 'analysis',
  buses: 'bus',
  children: 'child',
  criteria: 'criterion',
  data: 'data',
  indices: 'index',
  matrices: 'matrix',
  men: 'man',
  metadata: 'metadata',
  people: 'person',
  quizzes: 'quiz',
  statuses: 'status',
  vertices: 'vertex',
  women: 'woman',
};

/**
 * The singular of an English plural resource name, for CRD names that do not give one:
 * `policies` → `policy`, `classes` → `class`, `boxes` → `box`, `meshes` → `mesh`, `patches` →
 * `patch`, `caches` → `cache`, `sizes` → `size`, `horses` → `horse`, `widgets` → `widget`.
 * English is irregular: pass `MakeCRDOptions.singular` when the guess is wrong.
 */
export function singularOf(plural: string): string {
  const lower = plural.toLowerCase();
  const irregular = IRREGULAR_PLURALS[lower];
  if (irregular !== undefined) return irregular;
  // -ies → -y (policies, proxies), but not -eies/-aies (rare) handled by the plain rule
  if (/[^aeiou]ies$/.test(lower)) return `${plural.slice(0, -3)}y`;
  // -sses, -shes, -tches, -xes, -zzes: the plural added -es (classes, meshes, patches, boxes, buzzes)
  if (/(ss|sh|tch|x|zz)es$/.test(lower)) return plural.slice(0, -2);
  // -ches after a consonant (benches, churches) or a vowel pair (beaches, coaches, speeches)
  // added -es; after a single vowel the singular ends in -che (caches, niches)
  if (/([^aeiou]|[aeiou]{2})ches$/.test(lower)) return plural.slice(0, -2);
  // a consonant + -uses is Latin -us (statuses, viruses, campuses); -auses/-ouses are -use
  if (/[^aeiou]uses$/.test(lower)) return plural.slice(0, -2);
  // everything else ending in -s only added -s: caches, sizes, horses, leases, widgets
  if (lower.endsWith('s') && !lower.endsWith('ss')) return plural.slice(0, -1);
  return plural;
}

/** The name of the CRD for `gvr`: `<resource>.<group>`. */
export function crdName(gvr: GroupVersionResource): string {
  return `${gvr.resource}.${gvr.group}`;
}

async function discoveryServes(
  kube: KubeClient,
  gvr: GroupVersionResource,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const list = await kube.api.request<{ resources?: Array<{ name: string }> }>({
      method: 'GET',
      path: `/apis/${gvr.group}/${gvr.version}`,
      signal,
    });
    return (list.resources ?? []).some((r) => r.name === gvr.resource);
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

async function waitUntil(
  what: string,
  cond: () => Promise<boolean>,
  { timeoutMs, signal }: { timeoutMs: number; signal: AbortSignal | undefined },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 20;
  for (;;) {
    signal?.throwIfAborted();
    if (await cond()) return;
    if (Date.now() > deadline)
      throw new ClientTestError(`clienttest: timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(delay, undefined, signal ? { signal } : {});
    delay = Math.min(200, delay * 2);
  }
}

/**
 * Installs a minimal CustomResourceDefinition for `gvr` (any fields allowed, optional status
 * subresource) through `kube` — the fake cluster or a real API server — and resolves once
 * discovery serves it. An existing CRD of that name is left as is. Returns a descriptor for
 * clients.
 */
export async function makeCRD(
  kube: KubeClient,
  gvr: GroupVersionResource,
  options: MakeCRDOptions = {},
): Promise<TypedResourceDescriptor<KubeObject & { spec?: unknown; status?: unknown }>> {
  const singular = options.singular ?? singularOf(gvr.resource);
  const kind = options.kind ?? singular.charAt(0).toUpperCase() + singular.slice(1);
  const namespaced = options.namespaced ?? true;
  const status = options.statusSubresource ?? true;
  const scale =
    options.scale === true
      ? {
          specReplicasPath: '.spec.replicas',
          statusReplicasPath: '.status.replicas',
          labelSelectorPath: '.status.selector',
        }
      : options.scale || undefined;
  const subresources = {
    ...(status ? { status: {} } : {}),
    ...(scale ? { scale: { ...scale } } : {}),
  };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(gvr),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
    spec: {
      group: gvr.group,
      names: { plural: gvr.resource, singular, kind, listKind: `${kind}List` },
      scope: namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: gvr.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          ...(status || scale ? { subresources } : {}),
        },
      ],
    },
  };
  try {
    await kube.api.create(builtins.CustomResourceDefinition, crd, { signal: options.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) {
      throw new ClientTestError(
        `clienttest: creating CRD ${crd.metadata.name} failed: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }
  await waitUntil(
    `discovery serves ${crd.metadata.name}/${gvr.version}`,
    () => discoveryServes(kube, gvr, options.signal),
    { timeoutMs: options.timeoutMs ?? 15_000, signal: options.signal },
  );
  return defineResource({
    group: gvr.group,
    version: gvr.version,
    kind,
    plural: gvr.resource,
    singular,
    namespaced,
    listKind: `${kind}List`,
    subresources: { status, scale: scale !== undefined },
  });
}

/**
 * Deletes the CRD for `gvr` (the API server deletes its objects first) and resolves once it is
 * gone and discovery no longer serves it. A missing CRD is fine.
 */
export async function deleteCRD(
  kube: KubeClient,
  gvr: GroupVersionResource,
  options: Pick<MakeCRDOptions, 'timeoutMs' | 'signal'> = {},
): Promise<void> {
  const name = crdName(gvr);
  try {
    await kube.api.delete({ resource: builtins.CustomResourceDefinition, name }, { signal: options.signal });
  } catch (err) {
    if (!isNotFound(err)) {
      throw new ClientTestError(`clienttest: deleting CRD ${name} failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  await waitUntil(
    `CRD ${name} is deleted`,
    async () => {
      try {
        await kube.api.get({ resource: builtins.CustomResourceDefinition, name }, { signal: options.signal });
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    { timeoutMs, signal: options.signal },
  );
  await waitUntil(
    `discovery stops serving ${name}`,
    async () => !(await discoveryServes(kube, gvr, options.signal)),
    { timeoutMs, signal: options.signal },
  );
}
