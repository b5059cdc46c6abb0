import { expect, it } from 'vitest';
import type { WatchEvent } from '../../src/api.ts';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import { apiError, expectStatus } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';
import { WatchReader } from './watch-reader.ts';

type Lister = KubeObject & {
  spec: {
    ports?: Array<{ name: string; port?: number }>;
    tags?: string[];
    args?: string[];
    selector?: unknown;
  };
};

const summary = (e: WatchEvent) =>
  e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED'
    ? `${e.type} ${e.object.metadata?.name}`
    : e.type;

/** CRDs: deleting one takes its objects and watches with it; apply honours the list and map types of its schema. */
export function crdTests(ctx: ConformanceContext): void {
  const { Ephemeral, ephemeralCrd, group, Lister, listerCrd } = ctx.fx;

  it('deleting a CRD deletes its objects (DELETED events), ends its watches and stops serving them', async () => {
    const { api, newNamespace, installCrd, uninstallCrd } = ctx.target;
    const ns = await newNamespace();
    await installCrd(ephemeralCrd);
    const eph = (name: string) =>
      ({ apiVersion: `${group}/v1`, kind: 'Ephemeral', metadata: { name, namespace: ns } }) as KubeObject;
    await api.create(Ephemeral, eph('e1'));
    await api.create(Ephemeral, eph('e2'));
    const list = await api.list(Ephemeral, { namespace: ns });
    const controller = new AbortController();
    const w = new WatchReader(
      api.watch(Ephemeral, {
        namespace: ns,
        resourceVersion: list.metadata.resourceVersion,
        signal: controller.signal,
      }),
      controller,
    );
    try {
      // The watch is live once it has delivered a write.
      const live = w.take(1);
      await api.create(Ephemeral, eph('e3'));
      expect((await live).map(summary)).toEqual(['ADDED e3']);
      await uninstallCrd(`ephemerals.${group}`);
      const rest = await w.rest(20_000);
      expect(rest.map(summary).sort()).toEqual(['DELETED e1', 'DELETED e2', 'DELETED e3']);
    } finally {
      w.close();
    }
    expect((await apiError(api.get({ resource: Ephemeral, name: 'e1', namespace: ns }))).code).toBe(404);
    expect((await apiError(api.list(Ephemeral, { namespace: ns }))).code).toBe(404);
    expect(
      (await apiError(api.get({ resource: builtins.CustomResourceDefinition, name: `ephemerals.${group}` })))
        .code,
    ).toBe(404);
  });

  it('apply honours x-kubernetes-list-type map and set and x-kubernetes-map-type atomic; other lists are atomic', async () => {
    const { api, newNamespace, installCrd, uninstallCrd } = ctx.target;
    const ns = await newNamespace();
    await installCrd(listerCrd);
    const config = (spec: Lister['spec']) =>
      ({
        apiVersion: `${group}/v1`,
        kind: 'Lister',
        metadata: { name: 'l', namespace: ns },
        spec,
      }) as KubeObject;
    const apply = (manager: string, spec: Lister['spec']) =>
      api.patch({ resource: Lister, name: 'l', namespace: ns }, config(spec), {
        type: 'apply',
        fieldManager: manager,
      });
    await apply('one', { ports: [{ name: 'a', port: 1 }], tags: ['x'], args: ['p'], selector: { k: 'v' } });
    const merged = await apply('two', { ports: [{ name: 'b', port: 2 }], tags: ['y'] });
    expect(merged.spec).toEqual({
      ports: [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
      ],
      tags: ['x', 'y'],
      args: ['p'],
      selector: { k: 'v' },
    });
    const fields = Object.fromEntries(
      (merged.metadata?.managedFields ?? []).map((m) => [m.manager, m.fieldsV1]),
    );
    expect(fields.two).toEqual({
      'f:spec': {
        'f:ports': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:tags': { 'v:"y"': {} },
      },
    });
    expectStatus(await apiError(apply('two', { args: ['q'] })), {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "one": .spec.args',
    });
    expectStatus(await apiError(apply('two', { selector: { k: 'v', other: 'w' } })), {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "one": .spec.selector',
    });
    expectStatus(await apiError(apply('two', { ports: [{ name: 'a', port: 9 }] })), {
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "one": .spec.ports[name="a"].port',
    });
    // One stops applying its port and tag: only those go.
    const dropped = await apply('one', { args: ['p'], selector: { k: 'v' } });
    expect(dropped.spec).toEqual({
      ports: [{ name: 'b', port: 2 }],
      tags: ['y'],
      args: ['p'],
      selector: { k: 'v' },
    });
    await uninstallCrd(listerCrd.metadata!.name!);
  });
}
