import { createTestNamespace, sharedControlPlane, waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import type { KubeClient } from './client.ts';
import { createKubeClient } from './create-kube-client.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { extractTombstone } from './informer.ts';
import { noopLogger } from './logger.ts';
import type { KubeObject } from './object.ts';

/** The caller's bug: an indexer that throws for ConfigMaps without an `app` label. */
const appIndex = (o: KubeObject): string[] => {
  const app = o.metadata?.labels?.app;
  if (app === undefined) throw new Error(`${o.metadata?.name} has no app label`);
  return [app];
};

const names = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

describe('a throwing custom indexer on the real control plane', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('never wedges the informer: every event is delivered, the object is only missing from that index, and health counts it', async () => {
    const plane = sharedControlPlane();
    const namespace = await createTestNamespace(plane.kubeConfig, 'indexer-failure');
    const direct = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const logger = recordingLogger();
    const kube: KubeClient = createKubeClient({ kubeConfig: plane.kubeConfig, logger });
    const stop = new AbortController();
    cleanups.push(() => {
      stop.abort();
      kube.shutdown();
      direct.shutdown();
    });
    const create = (name: string, app?: string) =>
      direct.api.create(builtins.ConfigMap, {
        metadata: { name, namespace, ...(app ? { labels: { app } } : {}) },
      });
    await create('web-1', 'web');
    await create('unlabelled-1');

    const informer = kube.informer(builtins.ConfigMap, { namespace });
    informer.store.addIndexer('app', appIndex);
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata?.name}`),
      onUpdate: (_o, n) => events.push(`update ${n.metadata?.name}`),
      onDelete: (o) => events.push(`delete ${extractTombstone(o).metadata?.name}`),
    });
    void kube.runAndWait(stop.signal);
    await waitFor('the initial list (with an object the indexer throws on) to sync', () =>
      informer.hasSynced(),
    );
    expect(events.sort()).toEqual(['add unlabelled-1', 'add web-1']);

    // Through the watch: a new object the indexer throws on, an object that starts failing, one
    // that stops failing, a delete of a failing one, and an ordinary object after all of them.
    await create('unlabelled-2');
    await direct.api.patch(
      { resource: builtins.ConfigMap, name: 'web-1', namespace },
      { metadata: { labels: null } },
      { type: 'merge' },
    );
    await direct.api.patch(
      { resource: builtins.ConfigMap, name: 'unlabelled-1', namespace },
      { metadata: { labels: { app: 'db' } } },
      { type: 'merge' },
    );
    await direct.api.delete({ resource: builtins.ConfigMap, name: 'unlabelled-2', namespace });
    await create('web-2', 'web');
    await waitFor('the event after the failing ones', () => events.includes('add web-2'));
    expect(events.slice(2)).toEqual([
      'add unlabelled-2',
      'update web-1',
      'update unlabelled-1',
      'delete unlabelled-2',
      'add web-2',
    ]);

    expect(names(informer.store.byIndex('app', 'web'))).toEqual(['web-2']);
    expect(names(informer.store.byIndex('app', 'db'))).toEqual(['unlabelled-1']);
    expect(names(informer.store.byNamespace(namespace))).toEqual(['unlabelled-1', 'web-1', 'web-2']);
    const h = informer.health();
    // unlabelled-1 (list), unlabelled-2 (added), web-1 (label removed).
    expect(h).toMatchObject({ indexErrors: 3, lists: 1, relists: 0, state: 'watching' });
    expect(h.lastError).toBe(`index "app" failed for ${namespace}/web-1: web-1 has no app label`);
    const logged = logger.records.filter((r) => r.level === 'error');
    expect(logged.map((r) => [r.message, r.fields.key])).toEqual([
      [
        'an index function threw; the object is left out of that index (fix the index function)',
        `${namespace}/unlabelled-1`,
      ],
      [
        'an index function threw; the object is left out of that index (fix the index function)',
        `${namespace}/unlabelled-2`,
      ],
      [
        'an index function threw; the object is left out of that index (fix the index function)',
        `${namespace}/web-1`,
      ],
    ]);
  });
});
