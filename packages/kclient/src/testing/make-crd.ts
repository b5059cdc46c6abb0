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
  /** The kind. Default: the singular of the resource, capitalized (`widgets` → `Widget`). */
  readonly kind?: string | undefined;
  /** Namespaced (default) or cluster-scoped. */
  readonly namespaced?: boolean | undefined;
  /** Serve the status subresource. Default true. */
  readonly statusSubresource?: boolean | undefined;
  /** Annotations of the CRD object. */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  /** How long to wait for discovery to serve the resource, in ms. Default 15 000. */
  readonly timeoutMs?: number | undefined;
  /** Aborts the wait. */
  readonly signal?: AbortSignal | undefined;
}

function singularOf(resource: string): string {
  if (resource.endsWith('ies')) return `${resource.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(resource)) return resource.slice(0, -2);
  if (resource.endsWith('s')) return resource.slice(0, -1);
  return resource;
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
  timeoutMs: number,
  signal: AbortSignal | undefined,
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
  const singular = singularOf(gvr.resource);
  const kind = options.kind ?? singular.charAt(0).toUpperCase() + singular.slice(1);
  const namespaced = options.namespaced ?? true;
  const status = options.statusSubresource ?? true;
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
          ...(status ? { subresources: { status: {} } } : {}),
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
    options.timeoutMs ?? 15_000,
    options.signal,
  );
  return defineResource({
    group: gvr.group,
    version: gvr.version,
    kind,
    plural: gvr.resource,
    singular,
    namespaced,
    listKind: `${kind}List`,
    subresources: { status },
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
    await kube.api.delete(builtins.CustomResourceDefinition, name, undefined, { signal: options.signal });
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
        await kube.api.get(builtins.CustomResourceDefinition, name, undefined, { signal: options.signal });
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    timeoutMs,
    options.signal,
  );
  await waitUntil(
    `discovery stops serving ${name}`,
    async () => !(await discoveryServes(kube, gvr, options.signal)),
    timeoutMs,
    options.signal,
  );
}
