import { builtins, type KubeObject } from '@kubeloom/kube';
import { recordingLogger } from '@kubeloom/kube/fake';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createClient } from './create-client.ts';
import type { DynamicFilter } from './interfaces.ts';
import { createEventTracker, trackerHandler } from './testing/event-tracker.ts';

afterEach(closeFakes);

/** A filter the test drives by hand. */
class ManualFilter implements DynamicFilter {
  readonly allowed = new Set<string>();
  readonly subscribers = new Set<() => void>();
  synced = false;
  matches(obj: KubeObject): boolean {
    return this.allowed.has(obj.metadata?.name ?? '');
  }
  subscribe(onChange: () => void): () => void {
    this.subscribers.add(onChange);
    return () => this.subscribers.delete(onChange);
  }
  hasSynced(): boolean {
    return this.synced;
  }
  set(...names: string[]): void {
    this.allowed.clear();
    for (const n of names) this.allowed.add(n);
    this.synced = true;
    for (const s of [...this.subscribers]) s();
  }
}

const cm = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
});

describe('dynamic object filters', () => {
  it('a filter that syncs after the informer: hasSynced waits for it, objects arrive as adds', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a'), cm('b')] });
    const filter = new ManualFilter();
    const cms = createClient(kube, builtins.ConfigMap, { objectFilter: filter });
    const tracker = createEventTracker();
    const reg = cms.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    expect(reg.hasSynced()).toBe(true);
    expect(cms.hasSyncedIgnoringHandlers()).toBe(false);
    expect(cms.hasSynced()).toBe(false);
    await tracker.empty();
    filter.set('a');
    await tracker.waitOrdered('add/a');
    expect(cms.hasSynced()).toBe(true);
    filter.set('b');
    await tracker.waitUnordered('delete/a', 'add/b');
    filter.set('b'); // no change, no events
    await tracker.empty();
  });

  it('a handler that has not received its initial state is not refiltered: one add, not two', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const filter = new ManualFilter();
    filter.set('a');
    const cms = createClient(kube, builtins.ConfigMap, { objectFilter: filter });
    cms.addEventHandler({});
    await kube.runAndWait(stop.signal);
    const late = createEventTracker();
    cms.addEventHandler(trackerHandler(late)); // its replay runs in a microtask
    filter.set('a'); // a change notification before the replay
    await late.waitOrdered('add/a');
  });

  it('removing a handler during a filter change stops its events; throwing handlers do not stop others', async () => {
    const log = recordingLogger();
    const { kube, stop } = fakeKube({ objects: [cm('a'), cm('b'), cm('c')], logger: log });
    const filter = new ManualFilter();
    filter.set();
    const cms = createClient(kube, builtins.ConfigMap, { objectFilter: filter });
    const seen: string[] = [];
    const reg = cms.addEventHandler({
      onAdd: (o) => {
        seen.push(o.metadata!.name!);
        reg.remove();
      },
    });
    cms.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    const tracker = createEventTracker();
    cms.addEventHandler(trackerHandler(tracker));
    await kube.runAndWait(stop.signal);
    filter.set('a', 'b', 'c');
    await tracker.waitUnordered('add/a', 'add/b', 'add/c');
    expect(seen).toHaveLength(1);
    expect(log.records.some((r) => r.message.includes('filter change'))).toBe(true);
  });

  it('shutdownHandlers unsubscribes from the filter; a new handler subscribes again', async () => {
    const { kube, stop } = fakeKube({ objects: [cm('a')] });
    const filter = new ManualFilter();
    const cms = createClient(kube, builtins.ConfigMap, { objectFilter: filter });
    expect(filter.subscribers.size).toBe(0); // no handler, no subscription
    cms.addEventHandler({});
    cms.addEventHandler({});
    expect(filter.subscribers.size).toBe(1);
    cms.shutdownHandlers();
    expect(filter.subscribers.size).toBe(0);
    await kube.runAndWait(stop.signal);
    const tracker = createEventTracker();
    cms.addEventHandler(trackerHandler(tracker));
    expect(filter.subscribers.size).toBe(1);
    filter.set('a');
    await tracker.waitOrdered('add/a');
    // reads follow the filter at read time, handlers or not
    expect(cms.get('a', 'ns')).toBeDefined();
    filter.set();
    expect(cms.get('a', 'ns')).toBeUndefined();
    await tracker.waitOrdered('delete/a');
  });
});
