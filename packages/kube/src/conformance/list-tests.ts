import { expect, it } from 'vitest';
import { builtins } from '../builtins.ts';
import type { KubeObject } from '../object.ts';
import { apiError, configMap, expectStatus, Gadget, GROUP, Widget, widget } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';

const names = (list: { items: KubeObject[] }) => list.items.map((o) => o.metadata?.name).sort();

/** List: kinds, scope, label and field selectors, pagination. */
export function listTests(ctx: ConformanceContext): void {
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
    expect(widgets).toMatchObject({ kind: 'WidgetList', apiVersion: `${GROUP}/v1` });
    expect(widgets.items[0]).toMatchObject({ kind: 'Widget', apiVersion: `${GROUP}/v1` });
  });

  it('lists across namespaces, and cluster-scoped resources without a namespace', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const other = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'x', {}, { 'conformance.kubeloom.dev/set': ns }));
    await api.create(builtins.ConfigMap, configMap(other, 'y', {}, { 'conformance.kubeloom.dev/set': ns }));
    const all = await api.list(builtins.ConfigMap, { labelSelector: `conformance.kubeloom.dev/set=${ns}` });
    expect(all.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort()).toEqual(
      [`${ns}/x`, `${other}/y`].sort(),
    );
    const gadget = await api.create(Gadget, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gadget',
      metadata: { name: `g-${ns}` },
    } as KubeObject);
    expect(gadget.metadata?.namespace).toBeUndefined();
    const gadgets = await api.list(Gadget);
    expect(names(gadgets)).toContain(`g-${ns}`);
    await api.delete(Gadget, `g-${ns}`);
  });

  it('label selectors: =, ==, !=, in, notin, exists, !key', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'web', {}, { app: 'web', tier: 'front' }));
    await api.create(builtins.ConfigMap, configMap(ns, 'db', {}, { app: 'db', tier: 'back' }));
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

  it('pagination with a selector returns only matching objects', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    for (const n of ['a', 'b', 'c', 'd'])
      await api.create(builtins.ConfigMap, configMap(ns, n, {}, { even: String(n === 'b' || n === 'd') }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.list(builtins.ConfigMap, {
        namespace: ns,
        limit: 1,
        labelSelector: 'even=true',
        continue: token,
      });
      seen.push(...page.items.map((o) => o.metadata!.name!));
      token = page.metadata.continue;
    } while (token);
    expect(seen).toEqual(['b', 'd']);
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
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a', { v: '1' }));
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
}
