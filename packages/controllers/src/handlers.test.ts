import type { KubeObject, ObjectKey, Tombstone } from '@kubeloom/kube';
import { builtins } from '@kubeloom/kube';
import { describe, expect, it } from 'vitest';
import {
  enqueueForParentHandler,
  extract,
  filteredObjectHandler,
  filteredObjectSpecHandler,
  objectHandler,
  typedObjectHandler,
} from './handlers.ts';

interface Obj extends KubeObject {
  spec?: { v?: number };
}

const obj = (
  name: string,
  extra: { rv?: string; gen?: number; labels?: Record<string, string>; kind?: string } = {},
): Obj => ({
  kind: extra.kind ?? 'Thing',
  metadata: {
    name,
    namespace: 'ns',
    ...(extra.rv ? { resourceVersion: extra.rv } : {}),
    ...(extra.gen !== undefined ? { generation: extra.gen } : {}),
    ...(extra.labels ? { labels: extra.labels } : {}),
  },
});
const tombstone = <T extends KubeObject>(o: T): Tombstone<T> => ({
  tombstone: true,
  key: `ns/${o.metadata?.name}`,
  obj: o,
});
const names = (seen: KubeObject[]) => seen.map((o) => o.metadata?.name);

describe('objectHandler', () => {
  it('calls back with the latest object for add, update, delete and tombstones', () => {
    const seen: Obj[] = [];
    const h = objectHandler<Obj>((o) => seen.push(o));
    h.onAdd?.(obj('a'), true);
    h.onUpdate?.(obj('old'), obj('new'));
    h.onDelete?.(obj('gone'));
    h.onDelete?.(tombstone(obj('lost')));
    expect(names(seen)).toEqual(['a', 'new', 'gone', 'lost']);
  });
});

describe('typedObjectHandler', () => {
  it('skips objects that fail the guard', () => {
    const isPod = (o: KubeObject): o is Obj => o.kind === 'Pod';
    const seen: Obj[] = [];
    const h = typedObjectHandler(isPod, (o) => seen.push(o));
    h.onAdd?.(obj('pod', { kind: 'Pod' }), false);
    h.onAdd?.(obj('cm', { kind: 'ConfigMap' }), false);
    h.onDelete?.(tombstone(obj('pod2', { kind: 'Pod' })));
    expect(names(seen)).toEqual(['pod', 'pod2']);
  });
});

describe('filteredObjectHandler', () => {
  const selected = (o: Obj) => o.metadata?.labels?.sel === 'yes';
  it('filters adds and deletes, and fires an update when old or new passes', () => {
    const seen: Obj[] = [];
    const h = filteredObjectHandler<Obj>((o) => seen.push(o), selected);
    h.onAdd?.(obj('in', { labels: { sel: 'yes' } }), false);
    h.onAdd?.(obj('out'), false);
    h.onUpdate?.(obj('leaving', { labels: { sel: 'yes' } }), obj('leaving'));
    h.onUpdate?.(obj('entering'), obj('entering', { labels: { sel: 'yes' } }));
    h.onUpdate?.(obj('never'), obj('never'));
    h.onDelete?.(tombstone(obj('del-in', { labels: { sel: 'yes' } })));
    h.onDelete?.(obj('del-out'));
    expect(names(seen)).toEqual(['in', 'leaving', 'entering', 'del-in']);
    // The update carries the new object.
    expect(seen[1]?.metadata?.labels).toBeUndefined();
  });
});

describe('filteredObjectSpecHandler', () => {
  it('skips updates with an unchanged resourceVersion (resync)', () => {
    const seen: Obj[] = [];
    const h = filteredObjectSpecHandler<Obj>((o) => seen.push(o));
    h.onUpdate?.(obj('same', { rv: '5' }), obj('same', { rv: '5' }));
    h.onUpdate?.(obj('changed', { rv: '5' }), obj('changed', { rv: '6' }));
    expect(names(seen)).toEqual(['changed']);
  });

  it('skips status-only writes (same generation) unless the object enters or leaves the filter', () => {
    const sel = (o: Obj) => o.metadata?.labels?.sel === 'yes';
    const seen: Obj[] = [];
    const h = filteredObjectSpecHandler<Obj>((o) => seen.push(o), sel);
    const L = { sel: 'yes' };
    h.onUpdate?.(
      obj('status', { rv: '1', gen: 3, labels: L }),
      obj('status', { rv: '2', gen: 3, labels: L }),
    );
    h.onUpdate?.(obj('spec', { rv: '1', gen: 3, labels: L }), obj('spec', { rv: '2', gen: 4, labels: L }));
    h.onUpdate?.(obj('leaves', { rv: '1', gen: 3, labels: L }), obj('leaves', { rv: '2', gen: 3 }));
    h.onUpdate?.(obj('outside', { rv: '1', gen: 3 }), obj('outside', { rv: '2', gen: 4 }));
    // Objects without generation: every new resourceVersion counts.
    h.onUpdate?.(obj('cm', { rv: '1', labels: L }), obj('cm', { rv: '2', labels: L }));
    h.onAdd?.(obj('added', { labels: L }), true);
    h.onDelete?.(obj('deleted', { labels: L }));
    expect(names(seen)).toEqual(['spec', 'leaves', 'cm', 'added', 'deleted']);
  });
});

describe('enqueueForParentHandler', () => {
  it('enqueues owners of the given group and kind, in the child namespace', () => {
    const keys: ObjectKey[] = [];
    const enqueue = enqueueForParentHandler({ add: (k) => keys.push(k) }, builtins.Deployment);
    enqueue({
      metadata: {
        name: 'rs',
        namespace: 'team',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '1' },
          { apiVersion: 'apps/v1beta2', kind: 'Deployment', name: 'old-version', uid: '2' },
          { apiVersion: 'example.com/v1', kind: 'Deployment', name: 'other-group', uid: '3' },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: '4' },
        ],
      },
    });
    enqueue({ metadata: { name: 'orphan', namespace: 'team' } });
    expect(keys).toEqual([
      { namespace: 'team', name: 'web' },
      { namespace: 'team', name: 'old-version' },
    ]);
  });

  it('keys owners by the parent scope: cluster-scoped without a namespace, namespaced in the child namespace', () => {
    const keys: ObjectKey[] = [];
    const sink = { add: (k: ObjectKey) => keys.push(k) };
    const child = (
      namespace: string | undefined,
      owner: { kind: string; apiVersion: string; name: string },
    ) => ({
      metadata: {
        name: 'child',
        ...(namespace ? { namespace } : {}),
        ownerReferences: [{ ...owner, uid: '1' }],
      },
    });
    // Resource descriptors carry the scope.
    enqueueForParentHandler(sink, builtins.Node)(child('ns', { kind: 'Node', apiVersion: 'v1', name: 'n1' }));
    enqueueForParentHandler(sink, builtins.Pod)(child('ns', { kind: 'Pod', apiVersion: 'v1', name: 'p1' }));
    // So does a hand-written parent kind, e.g. a cluster-scoped custom resource.
    const cluster = { group: 'example.com', kind: 'Tenant', namespaced: false };
    enqueueForParentHandler(
      sink,
      cluster,
    )(child('ns', { kind: 'Tenant', apiVersion: 'example.com/v1', name: 't1' }));
    enqueueForParentHandler(
      sink,
      cluster,
    )(child(undefined, { kind: 'Tenant', apiVersion: 'example.com/v2', name: 't2' }));
    const namespaced = { group: 'example.com', kind: 'App', namespaced: true };
    enqueueForParentHandler(
      sink,
      namespaced,
    )(child('team', { kind: 'App', apiVersion: 'example.com/v1', name: 'a1' }));
    // A cluster-scoped child cannot have a namespaced owner: no key to make.
    enqueueForParentHandler(
      sink,
      namespaced,
    )(child(undefined, { kind: 'App', apiVersion: 'example.com/v1', name: 'a2' }));
    expect(keys).toEqual([
      { name: 'n1' },
      { namespace: 'ns', name: 'p1' },
      { name: 't1' },
      { name: 't2' },
      { namespace: 'team', name: 'a1' },
    ]);
  });

  it('refuses a parent that does not say whether it is namespaced, such as a bare GVK', () => {
    const sink = { add: () => {} };
    const gvk = { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' };
    // @ts-expect-error a GVK alone does not type-check either
    expect(() => enqueueForParentHandler(sink, gvk)).toThrow(TypeError);
    expect(() => enqueueForParentHandler(sink, gvk as never)).toThrow(
      /does not say whether ClusterRole is namespaced; pass its resource descriptor/,
    );
    expect(() => enqueueForParentHandler(sink, undefined as never)).toThrow(
      /parent must be a resource descriptor/,
    );
  });
});

describe('extract', () => {
  it('unwraps tombstones, passes objects through and rejects what the guard rejects', () => {
    const o = obj('a');
    expect(extract(o)).toBe(o);
    expect(extract(tombstone(o))).toBe(o);
    expect(extract(undefined)).toBeUndefined();
    expect(extract(null)).toBeUndefined();
    const isPod = (x: KubeObject): x is Obj => x.kind === 'Pod';
    expect(extract(tombstone(o), isPod)).toBeUndefined();
    const pod = obj('p', { kind: 'Pod' });
    expect(extract(tombstone(pod), isPod)).toBe(pod);
  });
});
