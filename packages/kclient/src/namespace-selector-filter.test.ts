import { builtins } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from './fake-harness.test-util.ts';
import { NamespaceSelectorFilter } from './namespace-selector-filter.ts';

afterEach(closeFakes);

const ns = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

describe('NamespaceSelectorFilter', () => {
  it('selects namespaces by label; passes cluster-scoped objects; Namespaces by their own name', async () => {
    const { kube, stop } = fakeKube({ objects: [ns('a', { team: 'x' }), ns('b')] });
    const filter = new NamespaceSelectorFilter(kube, 'team=x');
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
    const filter = new NamespaceSelectorFilter(kube, 'team=x');
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
    await kube.api.delete(builtins.Namespace, 'a');
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
    const filter = new NamespaceSelectorFilter(kube, '', { signal: stop.signal });
    let notified = 0;
    filter.subscribe(() => notified++);
    stop.abort();
    filter.setSelector('x');
    await Promise.resolve();
    expect(notified).toBe(0);
    const closed = new NamespaceSelectorFilter(kube, '', { signal: stop.signal });
    closed.subscribe(() => notified++);
    expect(notified).toBe(0);
  });
});
