import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchOptions,
  PatchType,
  RawRequest,
  WriteOptions,
} from '../../api.ts';
import type { ServerVersionInfo } from '../../client.ts';
import type { Status } from '../../errors.ts';
import type { KubeObject } from '../../object.ts';
import type { ResourceDescriptor } from '../../resource.ts';
import { clone, type JsonObject, toJson } from './json.ts';
import { servedResource } from './request-target.ts';
import type { ResourceTable } from './resource-table.ts';
import * as S from './status.ts';
import { meta } from './stored-object.ts';

/** The typed verbs a resource path is routed to (a fake cluster's). */
export interface RouteTarget {
  /** GET one object. */
  get(ref: ObjectRef, opts: GetOptions): Promise<KubeObject>;
  /** LIST. */
  list(resource: ResourceDescriptor, opts: ListOptions): Promise<ObjectList>;
  /** POST. */
  create(resource: ResourceDescriptor, input: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  /** PUT. */
  update(
    resource: ResourceDescriptor,
    input: KubeObject,
    opts: WriteOptions & { readonly subresource?: string | undefined },
  ): Promise<KubeObject>;
  /** PATCH as the apiserver sees it (no client-side checks). */
  patch(ref: ObjectRef, data: unknown, opts: PatchOptions): Promise<KubeObject>;
  /** DELETE. */
  delete(ref: ObjectRef, opts: DeleteOptions): Promise<KubeObject | Status>;
}

function discovered(doc: JsonObject | undefined): JsonObject {
  if (!doc) throw S.muxNotFound();
  return doc;
}

/** What a raw request is answered from. */
export interface RouteContext {
  /** The typed verbs resource paths go to. */
  readonly target: RouteTarget;
  /** The served resources (discovery). */
  readonly table: ResourceTable;
  /** What `/version` answers. */
  readonly version: ServerVersionInfo;
}

/**
 * Answers a raw request as the apiserver would: `/version`, health endpoints and discovery
 * from `ctx.table`, resource paths routed to the typed verbs of `ctx.target`.
 */
export async function routeRequest(ctx: RouteContext, req: RawRequest): Promise<unknown> {
  const { table, version } = ctx;
  const path = req.path.replace(/\/+$/, '') || '/';
  if (req.method === 'GET') {
    if (path === '/version') return clone(version);
    if (path === '/healthz' || path === '/readyz' || path === '/livez') return 'ok';
    if (path === '/api') return table.apiVersions();
    if (path === '/apis') return table.apiGroupList();
    const core = /^\/api\/([^/]+)$/.exec(path);
    if (core) return discovered(table.apiResourceList('', core[1]!));
    const group = /^\/apis\/([^/]+)$/.exec(path);
    if (group) return discovered(table.apiGroup(group[1]!));
    const gv = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
    if (gv) return discovered(table.apiResourceList(gv[1]!, gv[2]!));
  }
  return route(ctx, req, path);
}

/** Routes a resource path (`/api/v1/namespaces/ns/configmaps/name`, …) to the typed verbs. */
async function route(ctx: RouteContext, req: RawRequest, path: string): Promise<unknown> {
  const { target, table } = ctx;
  const m = /^\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(path);
  if (!m) throw S.toError(S.pathNotFound());
  const group = m[1] !== undefined ? '' : m[2]!;
  const version = m[1] ?? m[3]!;
  let rest = m[4]!.split('/').map(decodeURIComponent);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const inner = table.lookup(group, version, rest[2]!);
    if (inner?.descriptor.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const [plural, name, subresource] = rest;
  if (!plural || rest.length > 3) throw S.muxNotFound();
  const d = servedResource(table, { group, version, plural, kind: '', namespaced: false }).descriptor;
  if (d.namespaced && !namespace) {
    // The cluster-wide path of a namespaced resource lists and watches; it holds no single objects.
    if (name) throw S.toError(S.pathNotFound());
    if (req.method === 'POST') throw S.toError(S.methodNotAllowed());
  }
  const q = req.query ?? {};
  const s = (k: string) => (q[k] === undefined ? undefined : String(q[k]));
  const body = typeof req.body === 'string' ? (JSON.parse(req.body) as unknown) : req.body;
  const withNs = (o: unknown) => {
    const obj = toJson(o) as JsonObject;
    if (namespace) meta(obj).namespace = namespace;
    return obj as KubeObject;
  };
  const write = {
    fieldManager: s('fieldManager'),
    dryRun: s('dryRun') === 'All' ? ('All' as const) : undefined,
    signal: req.signal,
  };
  switch (req.method) {
    case 'GET':
      if (name) return target.get({ resource: d, name, namespace }, { signal: req.signal, subresource });
      return target.list(d, {
        namespace,
        labelSelector: s('labelSelector'),
        fieldSelector: s('fieldSelector'),
        limit: q.limit === undefined ? undefined : Number(q.limit),
        continue: s('continue'),
        resourceVersion: s('resourceVersion'),
        signal: req.signal,
      });
    case 'POST':
      if (name) throw S.toError(S.methodNotAllowed());
      return target.create(d, withNs(body), write);
    case 'PUT':
      if (!name) throw S.toError(S.methodNotAllowed());
      return target.update(d, withNs(body), { ...write, subresource });
    case 'PATCH': {
      if (!name) throw S.toError(S.methodNotAllowed());
      const ct = req.contentType ?? 'application/merge-patch+json';
      const type: PatchType = ct.includes('json-patch')
        ? 'json'
        : ct.includes('strategic')
          ? 'strategic'
          : ct.includes('apply-patch')
            ? 'apply'
            : 'merge';
      return target.patch({ resource: d, name, namespace }, req.body, {
        ...write,
        type,
        force: s('force') === 'true',
        subresource,
      });
    }
    case 'DELETE':
      if (!name) throw S.toError(S.methodNotAllowed());
      return target.delete({ resource: d, name, namespace }, (body ?? {}) as DeleteOptions);
  }
  throw S.toError(S.methodNotAllowed());
}
