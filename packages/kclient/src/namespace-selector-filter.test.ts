import { getEventListeners } from 'node:events';
import { builtins } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createClient } from './create-client.ts';
import { createNamespaceSelectorFilter } from './create-namespace-selector-filter.ts';
import { createEventTracker, trackerHandler } from './testing/event-tracker.ts';

afterEach(closeFakes);

const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

const cm = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
});

describe('NamespaceSelectorFilter', () => {
  it('selects namespaces by label; passes cluster-scoped objects; Namespaces by their own name', async () => {
    const { kube, stop } = fakeKube({ objects: [ns('a', { team: 'x' }), ns('b')] });
    const filter = createNamespaceSelectorFilter(kube, 'team=x');
    expect(filter.hasSynced()).toBe(false);
    expect(filter.matches({ metadata: { name: 'c', namespace: 'a' } })).toBe(false); // not synced yet
    await kube.runAndWait(stop.signal);
    expect(filter.hasSynced()).toBe(true);
    expect([...filter.selected]).toEqual(['a']);
    expect(filter.matches({ metadata: { name: 'c', namespace: 'a' } })).toBe(true);
    expect(filter.matches({ metadata: { name: 'c', namespace: 'b' } })).toBe(false);
    expect(filter.matches({ kind: 'Node', metadata: { name: 'node' } })).toBe(true);
    expect(filter.matches({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } })).toBe(true);
    expect(filter.matches({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } })).toBe(false);
  });

  it('notifies once per burst of changes and stops after close', async () => {
    const { kube, stop } = fakeKube({ objects: [ns('a'), ns('b')] });
    const filter = createNamespaceSelectorFilter(kube, 'team=x');
    let notified = 0;
    filter.subscribe(() => notified++);
    await kube.runAndWait(stop.signal);
    expect(notified).toBe(0); // nothing selected: nothing changed
    filter.setSelector('!team');
    expect(filter.hasSynced()).toBe(false); // a change is pending publication
    await Promise.resolve();
    expect(notified).toBe(1);
    expect([...filter.selected].sort()).toEqual(['a', 'b']);
    filter.setSelector('!team'); // same selection
    await Promise.resolve();
    expect(notified).toBe(1);
    await kube.api.delete({ resource: builtins.Namespace, name: 'a' });
    await expect.poll(() => filter.selected.has('a')).toBe(false);
    expect(notified).toBe(2);
    filter.close();
    filter.setSelector('team=none');
    await Promise.resolve();
    expect(notified).toBe(2);
  });

  it('closes when its signal aborts', async () => {
    const { kube } = fakeKube();
    const stop = new AbortController();
    const filter = createNamespaceSelectorFilter(kube, '', { signal: stop.signal });
    let notified = 0;
    filter.subscribe(() => notified++);
    stop.abort();
    filter.setSelector('x');
    await Promise.resolve();
    expect(notified).toBe(0);
    const closed = createNamespaceSelectorFilter(kube, '', { signal: stop.signal });
    closed.subscribe(() => notified++);
    expect(notified).toBe(0);
  });

  it('await using closes it: unregistered from the Namespace informer, subscribers dropped', async () => {
    const { kube, stop } = fakeKube({ objects: [ns('a', { team: 'x' })] });
    const namespaces = kube.informer(builtins.Namespace);
    let registered = 0;
    const add = namespaces.addEventHandler.bind(namespaces);
    namespaces.addEventHandler = (handler) => {
      const reg = add(handler);
      registered++;
      return {
        hasSynced: () => reg.hasSynced(),
        remove: () => {
          registered--;
          reg.remove();
        },
      };
    };
    let notified = 0;
    {
      await using filter = createNamespaceSelectorFilter(kube, 'team=x');
      filter.subscribe(() => notified++);
      expect(registered).toBe(1);
      await kube.runAndWait(stop.signal);
      await waitFor('namespace a selected', () => filter.selected.has('a'));
    }
    expect(registered).toBe(0);
    notified = 0;
    await kube.api.create(builtins.Namespace, ns('b', { team: 'x' }));
    await waitFor('b in the cache', () => namespaces.store.list().length === 2);
    expect(notified).toBe(0);
  });

  it('close() stops listening to the signal', () => {
    const { kube } = fakeKube();
    const stop = new AbortController();
    const filters = [1, 2, 3].map(() => createNamespaceSelectorFilter(kube, '', { signal: stop.signal }));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(3);
    for (const f of filters) f.close();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    filters[0]!.close(); // idempotent
    stop.abort();
  });

  it('a client sees each object of a deleted namespace leave once', async () => {
    const { kube, stop } = fakeKube({
      objects: [ns('a', { team: 'x' }), ns('b', { team: 'x' }), cm('x', 'a'), cm('y', 'a'), cm('z', 'b')],
    });
    const filter = createNamespaceSelectorFilter(kube, 'team=x', { signal: stop.signal });
    const cms = createClient(kube, builtins.ConfigMap, { objectFilter: filter });
    const tracker = createEventTracker();
    cms.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    await kube.waitForCacheSync('cms', stop.signal, () => cms.hasSynced());
    await tracker.waitUnordered('add/x', 'add/y', 'add/z');

    // the fake deletes the namespace's objects with it: both the object deletes and the
    // namespace's deselection reach the client, in some order
    await kube.api.delete({ resource: builtins.Namespace, name: 'a' });
    await waitFor(
      'the namespace and its objects to be gone',
      () => !filter.selected.has('a') && filter.hasSynced() && cms.listUnfiltered('a').length === 0,
    );
    // a later event of the same informer: anything still pending for x and y came before it
    await kube.api.create(builtins.ConfigMap, cm('sentinel', 'b'));
    await tracker.waitUnordered('delete/x', 'delete/y', 'add/sentinel');
    expect(
      cms
        .list()
        .map((c) => c.metadata?.name)
        .sort(),
    ).toEqual(['sentinel', 'z']);
  });
});
