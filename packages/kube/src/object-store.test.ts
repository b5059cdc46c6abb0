import { describe, expect, it } from 'vitest';
import type { KubeObject } from './object.ts';
import { ObjectStore } from './object-store.ts';
import { NAMESPACE_INDEX } from './store.ts';

function obj(name: string, namespace: string | undefined, app?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace ? { namespace } : {}), ...(app ? { labels: { app } } : {}) },
  };
}

const names = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

describe('ObjectStore indexes', () => {
  it('keeps the namespace index and a custom index right through inserts, updates and deletes', () => {
    const store = new ObjectStore();
    store.addIndexer('app', (o) => [o.metadata?.labels?.app ?? 'none']);
    store.set('a/x', obj('x', 'a', 'web'));
    store.set('a/y', obj('y', 'a', 'db'));
    store.set('b/z', obj('z', 'b', 'web'));
    store.set('c', obj('c', undefined));
    expect(names(store.byNamespace('a'))).toEqual(['x', 'y']);
    expect(names(store.byNamespace('b'))).toEqual(['z']);
    expect(names(store.byNamespace(''))).toEqual(['c']);
    expect(names(store.byIndex('app', 'web'))).toEqual(['x', 'z']);

    // An update within the namespace, with a new label.
    store.set('a/x', obj('x', 'a', 'db'));
    expect(names(store.byNamespace('a'))).toEqual(['x', 'y']);
    expect(names(store.byIndex('app', 'web'))).toEqual(['z']);
    expect(names(store.byIndex('app', 'db'))).toEqual(['x', 'y']);

    // An update that moves an object to another namespace under the same key.
    store.set('b/z', obj('z', 'a', 'web'));
    expect(names(store.byNamespace('a'))).toEqual(['x', 'y', 'z']);
    expect(store.byNamespace('b')).toEqual([]);
    expect(store.keysByIndex(NAMESPACE_INDEX, 'a').sort()).toEqual(['a/x', 'a/y', 'a/z']);

    store.delete('a/y');
    store.delete('c');
    expect(names(store.byNamespace('a'))).toEqual(['x', 'z']);
    expect(store.byNamespace('')).toEqual([]);
    expect(names(store.byIndex('app', 'db'))).toEqual(['x']);
  });

  it('indexes the objects already stored when an index is added later', () => {
    const store = new ObjectStore();
    store.set('a/x', obj('x', 'a', 'web'));
    store.addIndexer('app', (o) => [o.metadata?.labels?.app ?? 'none']);
    store.set('a/y', obj('y', 'a', 'web'));
    expect(names(store.byIndex('app', 'web'))).toEqual(['x', 'y']);
    expect(names(store.byNamespace('a'))).toEqual(['x', 'y']);
  });
});
