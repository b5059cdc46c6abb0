import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cm, ScriptedApi } from '../test/scripted-api.ts';
import { builtins } from './builtins.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import type { KubeObject } from './object.ts';
import { ObjectStore } from './object-store.ts';
import { InformerEngine } from './shared-informer.ts';

/** A ConfigMap with an `app` label, or without labels when `app` is undefined. */
function labelled(name: string, rv: string, app: string | undefined): KubeObject {
  const obj = cm(name, rv);
  return app === undefined ? obj : { ...obj, metadata: { ...obj.metadata, labels: { app } } };
}

/** The caller's bug: an indexer that throws for objects without the label it expects. */
const appIndex = (o: KubeObject): string[] => {
  const app = o.metadata?.labels?.app;
  if (app === undefined) throw new Error(`${o.metadata?.name} has no app label`);
  return [app];
};

const names = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

describe('a failing custom indexer (unit)', () => {
  const stops: AbortController[] = [];
  // Every informer's run(): settles once its signal is aborted, which afterEach checks.
  const runs: Promise<void>[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
  });

  it('never wedges the informer: the object is cached and delivered, kept out of that index only, and later events keep flowing', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({
      metadata: { resourceVersion: '10' },
      items: [labelled('a', '1', 'web'), labelled('bad', '2', undefined)],
    });
    const logger = recordingLogger();
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger,
      tuning: { initialBackoffMs: 1, maxBackoffMs: 4 },
    });
    informer.store.addIndexer('app', appIndex);
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata?.name}`),
      onUpdate: (_o, n) => events.push(`update ${n.metadata?.name}`),
      onDelete: (o) => events.push(`delete ${'tombstone' in o ? o.obj.metadata?.name : o.metadata?.name}`),
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(informer.run(stop.signal));
    await waitFor('the initial list to sync despite the failing indexer', () => informer.hasSynced(), {
      timeoutMs: 10_000,
    });
    expect(events).toEqual(['add a', 'add bad']);

    const w = await api.watchNumber(0, 10_000);
    w.push(
      { type: 'ADDED', object: labelled('bad2', '11', undefined) },
      // `a` loses its label: it leaves the app index, and stays in the namespace index.
      { type: 'MODIFIED', object: labelled('a', '12', undefined) },
      // `bad` gains one: it enters the app index.
      { type: 'MODIFIED', object: labelled('bad', '13', 'db') },
      { type: 'DELETED', object: labelled('bad2', '14', undefined) },
      { type: 'ADDED', object: labelled('c', '15', 'web') },
    );
    await waitFor('the event after the failing ones', () => events.includes('add c'), { timeoutMs: 10_000 });
    expect(events).toEqual([
      'add a',
      'add bad',
      'add bad2',
      'update a',
      'update bad',
      'delete bad2',
      'add c',
    ]);
    expect(informer.lastSyncResourceVersion()).toBe('15');
    expect(names(informer.store.byIndex('app', 'web'))).toEqual(['c']);
    expect(names(informer.store.byIndex('app', 'db'))).toEqual(['bad']);
    expect(names(informer.store.byNamespace('ns'))).toEqual(['a', 'bad', 'c']);
    expect(api.watches).toHaveLength(1);
    expect(api.lists).toHaveLength(1);

    // bad (list), bad2 (added), a (modified to no label): three objects failed the indexer.
    const h = informer.health();
    expect(h.indexErrors).toBe(3);
    expect(h.lastError).toMatch(/index "app" failed for ns\/a: a has no app label/);
    const logged = logger.records.filter((r) => r.level === 'error');
    expect(logged.map((r) => r.message)).toEqual([
      'an index function threw; the object is left out of that index (fix the index function)',
      'an index function threw; the object is left out of that index (fix the index function)',
      'an index function threw; the object is left out of that index (fix the index function)',
    ]);
    expect(logged[0]?.fields).toMatchObject({ index: 'app', key: 'ns/bad' });
  });
});

describe('ObjectStore with a failing indexer', () => {
  it('addIndexer indexes the objects it can, reports the others, and does not throw', () => {
    const failures: string[] = [];
    const store = new ObjectStore<KubeObject>(undefined, (index, key, err) =>
      failures.push(`${index} ${key}: ${(err as Error).message}`),
    );
    store.set('ns/a', labelled('a', '1', 'web'));
    store.set('ns/b', labelled('b', '1', undefined));
    store.addIndexer('app', appIndex);
    store.addIndexer('bogus', (o) => (o.metadata?.name === 'a' ? ('a' as never) : ['ok']));
    expect(names(store.byIndex('app', 'web'))).toEqual(['a']);
    expect(names(store.byIndex('bogus', 'ok'))).toEqual(['b']);
    expect(store.byIndex('bogus', 'a')).toEqual([]);
    expect(failures).toEqual([
      'app ns/b: b has no app label',
      'bogus ns/a: the index function returned "a", not an array of strings',
    ]);
    expect(store.indexErrors).toBe(2);
  });

  it('removes a key whose old index values cannot be computed any more (a non-deterministic indexer)', () => {
    let broken = false;
    const store = new ObjectStore<KubeObject>(undefined, () => {});
    store.addIndexer('app', (o) => {
      if (broken) throw new Error('broken now');
      return [o.metadata?.labels?.app ?? ''];
    });
    store.set('ns/a', labelled('a', '1', 'web'));
    store.set('ns/b', labelled('b', '1', 'web'));
    broken = true;
    store.set('ns/a', labelled('a', '2', 'db'));
    store.delete('ns/b');
    expect(store.byIndex('app', 'web')).toEqual([]);
    expect(store.byIndex('app', 'db')).toEqual([]);
    expect(store.keys().sort()).toEqual(['ns/a']);
    // Only the versions being stored count as failures (a, version 2), not the old ones recomputed.
    expect(store.indexErrors).toBe(1);
  });
});
