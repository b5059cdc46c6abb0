import { waitFor } from '@kubeloom/testing';
import { expect, it } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, configMap, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

const names = (list: { items: KubeObject[] }) => list.items.map((o) => o.metadata?.name).sort();

/** List: kinds, scope, label and field selectors, pagination. */
export function listTests(ctx: ConformanceContext): void {
  const { Gadget, group, Widget, widget } = ctx.fx;
  it('lists one namespace with the list kind; built-in items carry no kind, custom ones do', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const other = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(other, 'b'));
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    expect(list).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(names(list)).toEqual(['a']);
    expect(list.items[0]?.kind).toBeUndefined();
    await api.create(Widget, widget(ns, 'w'));
    const widgets = await api.list(Widget, { namespace: ns });
    expect(widgets).toMatchObject({ kind: 'WidgetList', apiVersion: `${group}/v1` });
    expect(widgets.items[0]).toMatchObject({ kind: 'Widget', apiVersion: `${group}/v1` });
  });

  it('lists across namespaces, and cluster-scoped resources without a namespace', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const other = await newNamespace();
    await api.create(
      builtins.ConfigMap,
      configMap(ns, 'x', { labels: { 'conformance.kubeloom.dev/set': ns } }),
    );
    await api.create(
      builtins.ConfigMap,
      configMap(other, 'y', { labels: { 'conformance.kubeloom.dev/set': ns } }),
    );
    const all = await api.list(builtins.ConfigMap, { labelSelector: `conformance.kubeloom.dev/set=${ns}` });
    expect(all.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort()).toEqual(
      [`${ns}/x`, `${other}/y`].sort(),
    );
    const gadget = await api.create(Gadget, {
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name: `g-${ns}` },
    } as KubeObject);
    expect(gadget.metadata?.namespace).toBeUndefined();
    const gadgets = await api.list(Gadget);
    expect(names(gadgets)).toContain(`g-${ns}`);
    await api.delete({ resource: Gadget, name: `g-${ns}` });
  });

  it('label selectors: =, ==, !=, in, notin, exists, !key, >, <', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'web', { labels: { app: 'web', tier: 'front' } }));
    await api.create(builtins.ConfigMap, configMap(ns, 'db', { labels: { app: 'db', tier: 'back' } }));
    await api.create(builtins.ConfigMap, configMap(ns, 'bare'));
    const sel = async (labelSelector: string) =>
      names(await api.list(builtins.ConfigMap, { namespace: ns, labelSelector }));
    expect(await sel('app=web')).toEqual(['web']);
    expect(await sel('app==db')).toEqual(['db']);
    expect(await sel('app!=web')).toEqual(['bare', 'db']);
    expect(await sel('app in (web,db)')).toEqual(['db', 'web']);
    expect(await sel('app notin (web)')).toEqual(['bare', 'db']);
    expect(await sel('tier')).toEqual(['db', 'web']);
    expect(await sel('!tier')).toEqual(['bare']);
    expect(await sel('app=web,tier=back')).toEqual([]);
    const bad = await apiError(api.list(builtins.ConfigMap, { namespace: ns, labelSelector: 'app in (web' }));
    expect(bad.code).toBe(400);
    expect(bad.reason).toBe('BadRequest');
    for (const [name, n] of [
      ['one', '1'],
      ['three', '3'],
      ['word', 'x'],
    ] as const)
      await api.create(builtins.ConfigMap, configMap(ns, name, { labels: { n } }));
    expect(await sel('n>1')).toEqual(['three']);
    expect(await sel('n<3')).toEqual(['one']);
    expectStatus(await apiError(api.list(builtins.ConfigMap, { namespace: ns, labelSelector: 'n>x' })), {
      code: 400,
      reason: 'BadRequest',
      message:
        "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    });
  });

  it('field selectors: metadata.name and metadata.namespace; others are 400 BadRequest', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    expect(
      names(await api.list(builtins.ConfigMap, { namespace: ns, fieldSelector: 'metadata.name=a' })),
    ).toEqual(['a']);
    expect(
      names(await api.list(builtins.ConfigMap, { namespace: ns, fieldSelector: 'metadata.name!=a' })),
    ).toEqual(['b']);
    expect(
      names(
        await api.list(builtins.ConfigMap, { fieldSelector: `metadata.namespace=${ns},metadata.name==b` }),
      ),
    ).toEqual(['b']);
    const err = await apiError(api.list(builtins.ConfigMap, { namespace: ns, fieldSelector: 'data.k=v' }));
    expectStatus(err, {
      code: 400,
      reason: 'BadRequest',
      message: '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  it('pagination: limit and continue return every object once; remainingItemCount counts the rest', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await api.create(builtins.ConfigMap, configMap(ns, n));
    const first = await api.list(builtins.ConfigMap, { namespace: ns, limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    expect(first.metadata.remainingItemCount).toBe(3);
    // A write between pages is not seen: the pages are a consistent snapshot.
    await api.create(builtins.ConfigMap, configMap(ns, 'aa'));
    const seen = [...first.items];
    let token = first.metadata.continue;
    while (token) {
      const page = await api.list(builtins.ConfigMap, { namespace: ns, limit: 2, continue: token });
      expect(page.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      seen.push(...page.items);
      token = page.metadata.continue;
    }
    expect(seen.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const bad = await apiError(
      api.list(builtins.ConfigMap, { namespace: ns, limit: 2, continue: 'not-a-token' }),
    );
    expect(bad.code).toBe(400);
    expect(bad.status?.message).toMatch(/^invalid continue token/);
  });

  it('pagination with a selector: a full page continues while keys remain, matching or not, so the last page may be empty', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    for (const n of ['a', 'b', 'c', 'd'])
      await api.create(
        builtins.ConfigMap,
        configMap(ns, n, { labels: { m: n === 'a' || n === 'c' ? 'y' : 'n' } }),
      );
    const pages = async (limit: number) => {
      const out: string[][] = [];
      let token: string | undefined;
      do {
        const page = await api.list(builtins.ConfigMap, {
          namespace: ns,
          limit,
          labelSelector: 'm=y',
          continue: token,
        });
        expect(page.metadata.remainingItemCount).toBeUndefined();
        out.push(page.items.map((o) => o.metadata!.name!));
        token = page.metadata.continue;
        expect(out.length).toBeLessThan(10);
      } while (token);
      return out;
    };
    expect(await pages(1)).toEqual([['a'], ['c'], []]);
    expect(await pages(2)).toEqual([['a', 'c'], []]);
    expect(await pages(3)).toEqual([['a', 'c']]);
    // A field selector that pins one name in a namespace reads that one key: no continue.
    const pinned = await api.list(builtins.ConfigMap, {
      namespace: ns,
      limit: 1,
      fieldSelector: 'metadata.name=a',
    });
    expect(names(pinned)).toEqual(['a']);
    expect(pinned.metadata.continue).toBeUndefined();
  });

  it('a list at resourceVersion=0 is served whole from the watch cache: limit is ignored', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    for (const n of ['a', 'b', 'c', 'd']) await api.create(builtins.ConfigMap, configMap(ns, n));
    // resourceVersion=0 means "any resourceVersion": the watch cache may answer before it has seen
    // the last writes, so what is guaranteed is that the answer is never paginated and that the
    // cache catches up. A list that honoured the limit would show a continue token (or never more
    // than two items) and fail here.
    const list = await waitFor('a list at resourceVersion=0 to show all four ConfigMaps', async () => {
      const l = await api.list(builtins.ConfigMap, { namespace: ns, resourceVersion: '0', limit: 2 });
      return l.metadata.continue !== undefined || l.items.length === 4 ? l : undefined;
    });
    expect(list.metadata.continue).toBeUndefined();
    expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('field selectors of pods: spec.nodeName and status.phase; an unsupported field is "field label not supported"', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const pod = (name: string, spec: Record<string, unknown> = {}) =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: ns },
        spec: { containers: [{ name: 'c', image: 'example/c:1' }], ...spec },
      }) as KubeObject;
    await api.create(builtins.Pod, pod('scheduled', { nodeName: 'node-a' }));
    await api.create(builtins.Pod, pod('pending'));
    await api.create(builtins.Pod, pod('running'));
    await api.patch(
      { resource: builtins.Pod, name: 'running', namespace: ns },
      { status: { phase: 'Running' } },
      { type: 'merge', subresource: 'status' },
    );
    const sel = async (fieldSelector: string) =>
      names(await api.list(builtins.Pod, { namespace: ns, fieldSelector }));
    expect(await sel('spec.nodeName=node-a')).toEqual(['scheduled']);
    expect(await sel('spec.nodeName=')).toEqual(['pending', 'running']);
    expect(await sel('status.phase=Running')).toEqual(['running']);
    expect(await sel('status.phase!=Running,spec.nodeName!=node-a')).toEqual(['pending']);
    expect(await sel('spec.hostNetwork=false')).toEqual(['pending', 'running', 'scheduled']);
    // The phase a new pod starts in.
    expect(await sel('status.phase=Pending')).toEqual(['pending', 'scheduled']);
    // The other pod fields are accepted (these values select nothing).
    for (const field of [
      'spec.restartPolicy=OnFailure',
      'spec.schedulerName=none',
      'spec.serviceAccountName=none',
      'status.podIP=192.0.2.1',
      'status.nominatedNodeName=none',
    ])
      expect(await sel(field)).toEqual([]);
    expectStatus(await apiError(api.list(builtins.Pod, { namespace: ns, fieldSelector: 'spec.foo=x' })), {
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.foo',
    });
    expectStatus(await apiError(api.list(builtins.Pod, { namespace: ns, fieldSelector: 'metadata.uid=x' })), {
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: metadata.uid',
    });
    expectStatus(
      await apiError(api.list(builtins.Pod, { namespace: ns, fieldSelector: 'spec.nodeName in (a)' })),
      {
        code: 400,
        reason: 'BadRequest',
        message: "invalid selector: 'spec.nodeName in (a)'; can't understand 'spec.nodeName in (a)'",
      },
    );
  });

  it('field selectors of secrets (type), events (involvedObject.*, reason, type, source, reportingComponent), namespaces (status.phase) and jobs (status.successful)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'custom', namespace: ns },
      type: 'example.com/custom',
    } as KubeObject);
    await api.create(builtins.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'opaque', namespace: ns },
      type: 'Opaque',
    } as KubeObject);
    const secrets = async (fieldSelector: string) =>
      names(await api.list(builtins.Secret, { namespace: ns, fieldSelector }));
    expect(await secrets('type=example.com/custom')).toEqual(['custom']);
    expect(await secrets('type!=example.com/custom')).toEqual(['opaque']);
    expectStatus(await apiError(api.list(builtins.Secret, { namespace: ns, fieldSelector: 'data.x=1' })), {
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: data.x',
    });
    await api.create(builtins.Event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: ns },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'p1', namespace: ns, uid: 'uid-1' },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
      source: { component: 'kubelet' },
      reportingComponent: 'kubelet',
    } as KubeObject);
    await api.create(builtins.Event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e2', namespace: ns },
      involvedObject: { kind: 'ConfigMap', name: 'c', namespace: ns },
      reason: 'Other',
      message: 'other',
      type: 'Warning',
    } as KubeObject);
    const events = async (fieldSelector: string) =>
      names(await api.list(builtins.Event, { namespace: ns, fieldSelector }));
    expect(await events('involvedObject.kind=Pod')).toEqual(['e1']);
    expect(await events('involvedObject.name=c')).toEqual(['e2']);
    expect(await events(`involvedObject.namespace=${ns}`)).toEqual(['e1', 'e2']);
    expect(await events('involvedObject.uid=uid-1,involvedObject.apiVersion=v1')).toEqual(['e1']);
    expect(await events('involvedObject.fieldPath=')).toEqual(['e1', 'e2']);
    expect(await events('reason=Other')).toEqual(['e2']);
    expect(await events('type=Warning')).toEqual(['e2']);
    expect(await events('source=kubelet')).toEqual(['e1']);
    expect(await events('reportingComponent=')).toEqual(['e2']);
    expectStatus(
      await apiError(api.list(builtins.Event, { namespace: ns, fieldSelector: 'involvedObject.foo=x' })),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: involvedObject.foo',
      },
    );
    expect(
      names(await api.list(builtins.Namespace, { fieldSelector: `metadata.name=${ns},status.phase=Active` })),
    ).toEqual([ns]);
    expectStatus(
      await apiError(api.list(builtins.Namespace, { fieldSelector: `metadata.namespace=${ns}` })),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: metadata.namespace',
      },
    );
    await api.create(builtins.Job, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j', namespace: ns },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'example/c:1' }] } },
      },
    } as KubeObject);
    expect(
      names(await api.list(builtins.Job, { namespace: ns, fieldSelector: 'status.successful=0' })),
    ).toEqual(['j']);
    expectStatus(await apiError(api.list(builtins.Job, { namespace: ns, fieldSelector: 'spec.foo=x' })), {
      code: 400,
      reason: 'BadRequest',
      message: 'field label "spec.foo" not supported for Job',
    });
    expectStatus(
      await apiError(api.list(builtins.Deployment, { namespace: ns, fieldSelector: 'status.replicas=1' })),
      {
        code: 400,
        reason: 'BadRequest',
        message:
          '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
      },
    );
  });

  it('a list at a resourceVersion newer than the server has is 504 Timeout (ResourceVersionTooLarge)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const err = await apiError(api.list(builtins.ConfigMap, { namespace: ns, resourceVersion: '999999999' }));
    expect(err.code).toBe(504);
    expect(err.reason).toBe('Timeout');
    expect(err.causes[0]?.reason).toBe('ResourceVersionTooLarge');
    expect(err.status?.message).toMatch(/Too large resource version: 999999999, current: \d+/);
  });

  it('a list at an exact older resourceVersion shows that state', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a', { data: { v: '1' } }));
    await api.update(builtins.ConfigMap, { ...a, data: { v: '2' } } as KubeObject);
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    const old = await api.list(builtins.ConfigMap, {
      namespace: ns,
      resourceVersion: a.metadata!.resourceVersion!,
      resourceVersionMatch: 'Exact',
    });
    expect(old.metadata.resourceVersion).toBe(a.metadata?.resourceVersion);
    expect(old.items.map((o) => [o.metadata?.name, (o as KubeObject & { data?: unknown }).data])).toEqual([
      ['a', { v: '1' }],
    ]);
  });

  it('field selectors of nodes (spec.unschedulable, no metadata.namespace) and services (spec.type)', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const node = `${ns}-node`;
    await api.create(builtins.Node, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: node },
      spec: { unschedulable: true },
    } as KubeObject);
    try {
      const nodes = async (fieldSelector: string) => names(await api.list(builtins.Node, { fieldSelector }));
      expect(await nodes(`metadata.name=${node},spec.unschedulable=true`)).toEqual([node]);
      expect(await nodes(`metadata.name=${node},spec.unschedulable=false`)).toEqual([]);
      expectStatus(await apiError(api.list(builtins.Node, { fieldSelector: 'metadata.namespace=x' })), {
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: metadata.namespace',
      });
    } finally {
      await api.delete({ resource: builtins.Node, name: node });
    }
    await api.create(builtins.Service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext', namespace: ns },
      spec: { type: 'ExternalName', externalName: 'example.com' },
    } as KubeObject);
    const services = async (fieldSelector: string) =>
      names(await api.list(builtins.Service, { namespace: ns, fieldSelector }));
    expect(await services('spec.type=ExternalName')).toEqual(['ext']);
    expect(await services('spec.type=ClusterIP')).toEqual([]);
    expect(await services('spec.clusterIP=192.0.2.1')).toEqual([]);
    expectStatus(
      await apiError(api.list(builtins.Service, { namespace: ns, fieldSelector: 'spec.ports=x' })),
      {
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: spec.ports',
      },
    );
  });
}
