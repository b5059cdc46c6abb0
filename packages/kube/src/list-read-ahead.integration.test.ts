import { createTestNamespace, installCRDs, sharedControlPlane, uninstallCRDs } from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListOptions, ObjectList } from './api.ts';
import { builtins } from './builtins.ts';
import { HttpApiClient } from './http-api-client.ts';
import { type ListOptionsWithPageHints, ON_CONTINUE, ON_PAGE_LENGTH } from './internal/list-continue.ts';
import { listAll, MAX_PAGE_GROWTH } from './internal/list-pager.ts';
import type { KubeObject } from './object.ts';
import { defineResource, type ResourceDescriptor } from './resource.ts';

const GROUP = 'readahead.kubeloom.dev';
const Gizmo = defineResource<KubeObject>({
  group: GROUP,
  version: 'v1',
  plural: 'gizmos',
  kind: 'Gizmo',
  namespaced: true,
});

/**
 * The real transport, counting the list requests in flight and the tokens it reported early, and
 * recording each request's limit and each page's reported length and object count.
 */
class CountingApi extends HttpApiClient {
  inFlight = 0;
  maxInFlight = 0;
  early: string[] = [];
  readonly pages: Array<{ limit: number | undefined; length?: number; objects?: number }> = [];
  override async list<T extends KubeObject = KubeObject>(
    resource: ResourceDescriptor,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const hint = (opts as ListOptionsWithPageHints)[ON_CONTINUE];
    const onLength = (opts as ListOptionsWithPageHints)[ON_PAGE_LENGTH];
    const record: (typeof this.pages)[number] = { limit: opts.limit };
    this.pages.push(record);
    const counted: ListOptionsWithPageHints = {
      ...opts,
      ...(hint
        ? {
            [ON_CONTINUE]: (token: string) => {
              this.early.push(token);
              hint(token);
            },
          }
        : {}),
      ...(onLength
        ? {
            [ON_PAGE_LENGTH]: (length: number) => {
              record.length = length;
              onLength(length);
            },
          }
        : {}),
    };
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const page = await super.list<T>(resource as never, counted);
      record.objects = page.items.length;
      return page;
    } finally {
      this.inFlight--;
    }
  }
}

async function readAll(
  api: CountingApi,
  target: { resource: ResourceDescriptor; namespace: string },
  pageBytes?: number,
) {
  const { resource, namespace } = target;
  const seen: string[] = [];
  const result = await listAll(api, resource, {
    namespace,
    pageSize: 40,
    pageBytes,
    signal: new AbortController().signal,
    onExpiredContinue: (err) => {
      throw err;
    },
    mapItem: (o) => {
      seen.push(o.metadata!.name!);
      return o;
    },
  });
  return { seen, result };
}

describe('a paginated list reads one page ahead on the real apiserver', () => {
  const { kubeConfig } = sharedControlPlane();
  afterAll(async () => {
    await uninstallCRDs(kubeConfig, [`gizmos.${GROUP}`]);
  });

  const fill = async (api: HttpApiClient, where: { resource: ResourceDescriptor; ns: string }, n: number) => {
    const { resource, ns } = where;
    const names = Array.from({ length: n }, (_, i) => `o-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < n; i += 25)
      await Promise.all(
        names.slice(i, i + 25).map((name) =>
          api.create(
            resource as never,
            {
              apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version,
              kind: resource.kind,
              metadata: { name, namespace: ns },
              data: { k: name },
            } as never,
          ),
        ),
      );
    return names;
  };

  it('ConfigMaps: the apiserver writes the list metadata first, so page N+1 is requested during page N', async () => {
    const ns = await createTestNamespace(kubeConfig, 'readahead');
    const api = new CountingApi(kubeConfig);
    try {
      const names = await fill(api, { resource: builtins.ConfigMap, ns }, 230);
      const { seen, result } = await readAll(api, { resource: builtins.ConfigMap, namespace: ns });
      expect(seen).toEqual(names); // every object once, in the server's order
      expect(result.items).toHaveLength(230);
      expect(result.resourceVersion).toMatch(/^\d+$/);
      expect(api.early).toHaveLength(5); // pages 1–5 of 6 reported their token from the head
      expect(api.maxInFlight).toBe(2);
      expect(api.inFlight).toBe(0);
    } finally {
      await api[Symbol.asyncDispose]();
    }
  });

  it('pages sized by bytes: each page after the first read whole asks for what fits, going by that page', async () => {
    const ns = await createTestNamespace(kubeConfig, 'readahead-bytes');
    const api = new CountingApi(kubeConfig);
    try {
      const names = await fill(api, { resource: builtins.ConfigMap, ns }, 230);
      // About 100 objects' worth of JSON per page: pages grow from the first 40 objects.
      const perObject = JSON.stringify(
        (await api.list(builtins.ConfigMap, { namespace: ns, limit: 1 })).items[0],
      ).length;
      api.pages.length = 0;
      const pageBytes = perObject * 100;
      const { seen, result } = await readAll(api, { resource: builtins.ConfigMap, namespace: ns }, pageBytes);
      expect(seen).toEqual(names);
      expect(result.items).toHaveLength(230);
      const pages = api.pages;
      // Page 2 was requested while page 1 arrived, before any page was read whole: 40 too.
      expect(pages.slice(0, 2).map((p) => p.limit)).toEqual([40, 40]);
      expect(pages.length).toBeGreaterThanOrEqual(3);
      // Every later page was requested once the page before it (read ahead: two before) was whole.
      for (let i = 2; i < pages.length; i++) {
        const by = pages[i - 2]!;
        expect(by.length, `page ${i - 1}'s length`).toBeGreaterThan(0);
        const want = Math.min(
          pages[i - 1]!.limit! * MAX_PAGE_GROWTH,
          Math.floor(pageBytes / (by.length! / by.objects!)),
        );
        expect(pages[i]!.limit, `page ${i + 1}'s limit`).toBe(want);
        expect(pages[i]!.limit).toBeGreaterThan(60);
        // A full page (not the last) holds about pageBytes: the objects here are all alike.
        if (pages[i]!.objects === pages[i]!.limit) {
          expect(pages[i]!.length!).toBeGreaterThan(pageBytes * 0.8);
          expect(pages[i]!.length!).toBeLessThan(pageBytes * 1.2);
        }
      }
      expect(pages.filter((p, i) => i >= 2 && p.objects === p.limit).length).toBeGreaterThan(0);
      expect(pages.reduce((n, p) => n + (p.objects ?? 0), 0)).toBe(230);
    } finally {
      await api[Symbol.asyncDispose]();
    }
  });

  it('custom resources: the token comes at the end of a page (sorted keys), so page N+1 is requested before page N is decoded', async () => {
    await installCRDs(kubeConfig, [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gizmos.${GROUP}` },
        spec: {
          group: GROUP,
          scope: 'Namespaced',
          names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    ]);
    const ns = await createTestNamespace(kubeConfig, 'readahead-cr');
    const api = new CountingApi(kubeConfig);
    try {
      const names = await fill(api, { resource: Gizmo, ns }, 130);
      const { seen } = await readAll(api, { resource: Gizmo, namespace: ns });
      expect(seen).toEqual(names);
      expect(api.early).toHaveLength(3);
      expect(api.maxInFlight).toBe(2);
    } finally {
      await api[Symbol.asyncDispose]();
    }
  });
});
