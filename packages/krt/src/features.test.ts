import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordingLogger } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { activeTimers, pod, type TestPod } from '../test/fixtures.ts';
import { collection } from './collection.ts';
import { index } from './collection-index.ts';
import { createDebugHandler } from './debug.ts';
import { fetch } from './fetch.ts';
import { fileCollection } from './files.ts';
import { joinWithMerge } from './join.ts';
import { mapCollection } from './map.ts';
import { recomputeProtected, recomputeTrigger } from './recompute-trigger.ts';
import { staticCollection } from './static.ts';
import { statusCollection } from './status.ts';
import { startStatusWriter } from './status-writer.ts';
import { dummyContext } from './testing/dummy-context.ts';
import { mockCollections } from './testing/mock.ts';
import { createCollectionTracker, settle } from './testing/tracker.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

describe('static collection', () => {
  it('update always emits, conditionalUpdate only on change, reset diffs', async () => {
    const c = staticCollection<string>(['a', 'b'], { signal: stop.signal });
    const t = createCollectionTracker(c);
    await t.waitUnordered('add/a', 'add/b');
    c.update('a');
    await t.waitOrdered('update/a');
    c.conditionalUpdate('a');
    await t.empty();
    c.reset(['b', 'c']);
    await t.waitUnordered('delete/a', 'add/c');
    c.deleteMatching((x) => x === 'b');
    await t.waitOrdered('delete/b');
    expect(c.list()).toEqual(['c']);
  });
});

describe('merge join and map', () => {
  it('merges objects sharing a key in collection order', async () => {
    const signal = stop.signal;
    type O = { metadata: { name: string }; tags: string[] };
    const a = staticCollection<O>([{ metadata: { name: 'x' }, tags: ['a'] }], { signal });
    const b = staticCollection<O>([{ metadata: { name: 'x' }, tags: ['b'] }], { signal });
    const j = joinWithMerge(
      [a, b],
      (objs) => ({ metadata: objs[0]!.metadata, tags: objs.flatMap((o) => o.tags) }),
      {
        signal,
      },
    );
    await j.waitUntilSynced(signal);
    await settle(2);
    expect(j.get('x')?.tags).toEqual(['a', 'b']);
    a.delete('x');
    await settle(2);
    expect(j.get('x')?.tags).toEqual(['b']);
  });

  it('map is a lazy key-preserving view with working indexes', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>([pod('ns', 'a', { labels: { app: 'x' } })], { signal });
    const m = mapCollection(pods, (p) => ({ ...p, app: p.metadata.labels?.app }), { signal });
    expect(m.get('ns/a')?.app).toBe('x');
    const byApp = index(m, 'app', (o) => [o.app ?? '']);
    expect(byApp.lookup('x').map((o) => o.metadata.name)).toEqual(['a']);
    const t = createCollectionTracker(m);
    await t.waitOrdered('add/ns/a');
    pods.update(pod('ns', 'a', { labels: { app: 'y' } }));
    await t.waitOrdered('update/ns/a');
    expect(byApp.lookup('y')).toHaveLength(1);
    expect(byApp.lookup('x')).toHaveLength(0);
  });
});

describe('index collection', () => {
  it('groups objects by key and emits add/update/delete per group', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>(
      [pod('ns', 'a', { labels: { app: 'x' } }), pod('ns', 'b', { labels: { app: 'x' } })],
      {
        signal,
      },
    );
    const byApp = index(pods, 'app', (p) => [p.metadata.labels?.app ?? '']);
    const groups = byApp.asCollection({ signal });
    const t = createCollectionTracker(groups);
    await t.waitOrdered('add/x');
    expect(groups.get('x')?.objects).toHaveLength(2);
    pods.update(pod('ns', 'a', { labels: { app: 'y' } }));
    await t.waitUnordered('update/x', 'add/y');
    pods.delete('ns/b');
    await t.waitOrdered('delete/x');
    expect(groups.get('')).toBeUndefined();
  });
});

describe('recompute trigger', () => {
  it('recomputes dependants and holds their sync until marked synced', async () => {
    const signal = stop.signal;
    const external = recomputeProtected({ suffix: '1' }, { signal, synced: false });
    const inputs = staticCollection(['a'], { signal });
    const c = collection(inputs, (ctx, k) => `${k}${external.get(ctx).suffix}`, { signal });
    await settle(2);
    expect(c.hasSynced()).toBe(false);
    external.markSynced();
    expect(await c.waitUntilSynced(signal)).toBe(true);
    expect(c.list()).toEqual(['a1']);
    external.modify((d) => {
      d.suffix = '2';
    });
    await settle(2);
    expect(c.list()).toEqual(['a2']);
    const t = recomputeTrigger({ signal });
    let n = 0;
    const d = collection(
      inputs,
      (ctx, k) => {
        t.markDependant(ctx);
        n++;
        return k;
      },
      { signal },
    );
    await d.waitUntilSynced(signal);
    t.trigger();
    await settle(2);
    expect(n).toBe(2);
  });
});

describe('status collection and writer', () => {
  it('derives statuses, emits only on change, deletes with the input, and writes through a queue', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>([pod('ns', 'a', { labels: { app: 'x' }, ip: '1.1.1.1' })], {
      signal,
    });
    const { status, outputs } = statusCollection(
      pods,
      (_ctx, p) => [p.status?.podIP ? { ready: true } : undefined, { ...p, ip: p.status?.podIP }],
      { signal, name: 'pods-status' },
    );
    const writes: string[] = [];
    const writer = startStatusWriter(status, {
      signal,
      write: async (obj, s) => {
        writes.push(`${obj.metadata.name}:${JSON.stringify(s)}`);
      },
    });
    const t = createCollectionTracker(status);
    await t.waitOrdered('add/ns/a');
    expect(await status.waitUntilSynced(signal)).toBe(true);
    expect(outputs.get('ns/a')?.ip).toBe('1.1.1.1');
    pods.update(pod('ns', 'a', { labels: { app: 'x' }, ip: '1.1.1.1' }));
    await t.empty();
    pods.update(pod('ns', 'a', { labels: { app: 'y' }, ip: '1.1.1.1' }));
    await t.waitOrdered('update/ns/a'); // the object changed, the status did not
    pods.update(pod('ns', 'a', { labels: { app: 'y' } }));
    await t.waitOrdered('delete/ns/a');
    await t.empty();
    await settle(3);
    expect(writes[0]).toBe('a:{"ready":true}');
    expect(writes.at(-1)).toBe('a:undefined');
    expect(writer.queue.hasSynced()).toBe(true);
  });
});

describe('debug dump', () => {
  it('lists inputs, outputs and dependencies per collection, and unregisters on stop', async () => {
    const debug = createDebugHandler();
    const s = new AbortController();
    const pods = staticCollection<TestPod>([pod('ns', 'a')], { signal: s.signal, name: 'pods', debug });
    const names = staticCollection(['x'], { signal: s.signal, name: 'names', debug });
    const c = collection(pods, (ctx, p) => `${p.metadata.name}-${fetch(ctx, names).length}`, {
      signal: s.signal,
      name: 'derived',
      debug,
    });
    await c.waitUntilSynced(s.signal);
    const dump = JSON.parse(JSON.stringify(debug));
    const derived = dump.find((e: { name: string }) => e.name === 'derived');
    expect(derived.state.inputs['ns/a']).toEqual({ outputs: ['a-1'], dependencies: ['names'] });
    expect(derived.state.outputs).toEqual({ 'a-1': 'a-1' });
    expect(derived.state.synced).toBe(true);
    s.abort();
    expect(debug.size).toBe(0);
  });
});

describe('testing helpers', () => {
  it('builds collections from objects and YAML, and runs transformations with a dummy context', () => {
    const mock = mockCollections(
      [
        'apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\n',
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b', namespace: 'ns' } },
      ],
      { signal: stop.signal },
    );
    const pods = mock.collection<TestPod>('Pod');
    const svcs = mock.collection<{ metadata: { name: string } }>('Service');
    expect(pods.list().map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(mock.unconsumed()).toEqual([]);
    const transform = (ctx: ReturnType<typeof dummyContext>, p: TestPod) =>
      `${p.metadata.name}:${fetch(ctx, svcs).length}`;
    expect(transform(dummyContext(), pods.get('ns/a')!)).toBe('a:1');
    expect(() => dummyContext().discardResult()).toThrow(/dummy context/);
  });
});

describe('file collection', () => {
  it('reloads on change, keeps the previous contents on a bad file, leaves no timer', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'krt-files-'));
    const timersBefore = activeTimers();
    try {
      writeFileSync(path.join(dir, 'a.yaml'), 'metadata: {name: a}\nv: 1\n');
      const logger = recordingLogger();
      const s = new AbortController();
      const c = fileCollection<{ metadata: { name: string }; v: number }>(dir, {
        signal: s.signal,
        debounceMs: 5,
        logger,
      });
      const t = createCollectionTracker(c);
      await t.waitOrdered('add/a');
      writeFileSync(path.join(dir, 'a.yaml'), 'metadata: {name: a}\nv: 2\n');
      await t.waitOrdered('update/a');
      writeFileSync(path.join(dir, 'b.yml'), 'metadata: {name: b\n');
      await waitFor('a reload error', () => logger.records.length > 0);
      await settle(2);
      expect(c.get('a')?.v).toBe(2);
      s.abort();
      await settle();
      // Other timers of the worker (not this collection's) may end meanwhile, never start.
      expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws a clear error for an unreadable directory', () => {
    expect(() => fileCollection('/nonexistent/krt', { signal: stop.signal })).toThrow(/ENOENT/);
  });
});
