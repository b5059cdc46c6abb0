import { expect, it } from 'vitest';
import type { WatchEvent, WatchOptions } from '../../src/api.ts';
import { builtins } from '../../src/builtins.ts';
import type { KubeObject } from '../../src/object.ts';
import type { ResourceDescriptor } from '../../src/resource.ts';
import { configMap, expectEvent, rv } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';
import { WatchReader } from './watch-reader.ts';

function open(ctx: ConformanceContext, resource: ResourceDescriptor, opts: WatchOptions): WatchReader {
  const controller = new AbortController();
  return new WatchReader(ctx.target.api.watch(resource, { ...opts, signal: controller.signal }), controller);
}

const summary = (e: WatchEvent) =>
  e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED'
    ? `${e.type} ${e.object.metadata?.name}`
    : e.type;

/**
 * Watch: ordering from a resourceVersion, replay, selectors, initial events, bookmarks, timeouts,
 * abort. Periodic bookmarks are not checked here: the apiserver sends them about once a minute,
 * too slow for a test; the fake's (interval and on demand) are covered by its unit tests.
 */
export function watchTests(ctx: ConformanceContext): void {
  it('delivers every write in order from the list resourceVersion, with increasing resourceVersions', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const w = open(ctx, builtins.ConfigMap, {
      namespace: ns,
      resourceVersion: list.metadata.resourceVersion,
    });
    try {
      const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
      await api.update(builtins.ConfigMap, { ...a, data: { v: '1' } } as KubeObject);
      await api.create(builtins.ConfigMap, configMap(ns, 'b'));
      await api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: ns });
      const events = await w.take(4);
      expect(events.map(summary)).toEqual(['ADDED a', 'MODIFIED a', 'ADDED b', 'DELETED a']);
      const rvs = events.map((e) => rv((e as { object: KubeObject }).object));
      for (let i = 1; i < rvs.length; i++) expect(rvs[i]!).toBeGreaterThan(rvs[i - 1]!);
      const deleted = events[3] as { object: KubeObject };
      expect(deleted.object).toMatchObject({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'a', namespace: ns },
      });
    } finally {
      w.close();
    }
  });

  it('replays history from an older resourceVersion', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    await api.delete({ resource: builtins.ConfigMap, name: 'a', namespace: ns });
    const w = open(ctx, builtins.ConfigMap, { namespace: ns, resourceVersion: a.metadata!.resourceVersion! });
    try {
      expect((await w.take(2)).map(summary)).toEqual(['ADDED b', 'DELETED a']);
    } finally {
      w.close();
    }
  });

  it('without a resourceVersion, starts with the current objects, then an initial-events-end bookmark', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    const w = open(ctx, builtins.ConfigMap, { namespace: ns, allowWatchBookmarks: true });
    try {
      const events = await w.take(3);
      expect(events.slice(0, 2).map(summary).sort()).toEqual(['ADDED a', 'ADDED b']);
      const bookmark = expectEvent(events[2]!, 'BOOKMARK');
      expect(bookmark.object).toMatchObject({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
      rv(bookmark.object);
      await api.create(builtins.ConfigMap, configMap(ns, 'c'));
      expect(summary((await w.take(1))[0]!)).toBe('ADDED c');
    } finally {
      w.close();
    }
  });

  it('with a label selector, objects entering the selection are ADDED and leaving it DELETED', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const w = open(ctx, builtins.ConfigMap, {
      namespace: ns,
      labelSelector: 'app=web',
      resourceVersion: list.metadata.resourceVersion,
    });
    try {
      await api.create(builtins.ConfigMap, configMap(ns, 'other', { labels: { app: 'db' } }));
      await api.create(builtins.ConfigMap, configMap(ns, 'a'));
      await api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { metadata: { labels: { app: 'web' } } },
        { type: 'merge' },
      );
      await api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { data: { v: '1' } },
        { type: 'merge' },
      );
      const left = await api.patch(
        { resource: builtins.ConfigMap, name: 'a', namespace: ns },
        { metadata: { labels: { app: 'db' } } },
        { type: 'merge' },
      );
      const events = await w.take(3);
      expect(events.map(summary)).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);
      const last = events[2] as { object: KubeObject };
      // The DELETED event carries the last state that matched, stamped with the new resourceVersion.
      expect(last.object.metadata?.labels).toEqual({ app: 'web' });
      expect(last.object.metadata?.resourceVersion).toBe(left.metadata?.resourceVersion);
    } finally {
      w.close();
    }
  });

  it('with a field selector on metadata.name, only that object is watched', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const w = open(ctx, builtins.ConfigMap, {
      namespace: ns,
      fieldSelector: 'metadata.name=b',
      resourceVersion: list.metadata.resourceVersion,
    });
    try {
      await api.create(builtins.ConfigMap, configMap(ns, 'a'));
      await api.create(builtins.ConfigMap, configMap(ns, 'b'));
      expect((await w.take(1)).map(summary)).toEqual(['ADDED b']);
    } finally {
      w.close();
    }
  });

  it('a finalizer-held delete is MODIFIED, the final removal DELETED with the last stored state', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const obj = configMap(ns, 'f');
    obj.metadata!.finalizers = ['example.com/hold'];
    const created = await api.create(builtins.ConfigMap, obj);
    const w = open(ctx, builtins.ConfigMap, {
      namespace: ns,
      resourceVersion: created.metadata!.resourceVersion!,
    });
    try {
      await api.delete({ resource: builtins.ConfigMap, name: 'f', namespace: ns });
      const released = await api.patch(
        { resource: builtins.ConfigMap, name: 'f', namespace: ns },
        { metadata: { finalizers: null } },
        { type: 'merge' },
      );
      const events = await w.take(2);
      expect(events.map(summary)).toEqual(['MODIFIED f', 'DELETED f']);
      const deleted = (events[1] as { object: KubeObject }).object;
      expect(deleted.metadata?.finalizers).toEqual(['example.com/hold']);
      expect(rv(deleted)).toBeGreaterThan(rv(released));
    } finally {
      w.close();
    }
  });

  it('a watch from a resourceVersion the server has not reached yet waits for it, then delivers the events after it', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const first = await api.create(builtins.ConfigMap, configMap(ns, 'first'));
    // Ahead of the last write: other clients may write meanwhile, so compare with the writes' own versions.
    const from = rv(first) + 1n;
    const w = open(ctx, builtins.ConfigMap, { namespace: ns, resourceVersion: String(from) });
    try {
      // Start reading (which opens the watch) before writing, so the watch starts ahead of the server.
      const reading = w.until((e) => summary(e) === 'ADDED x3');
      reading.catch(() => {}); // awaited below; a failing write must not leave it unhandled
      const writes = [];
      for (const n of ['x1', 'x2', 'x3']) writes.push(await api.create(builtins.ConfigMap, configMap(ns, n)));
      const expected = writes.filter((o) => rv(o) > from).map((o) => `ADDED ${o.metadata?.name}`);
      expect((await reading).map(summary)).toEqual(expected);
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds ends the stream normally', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const w = open(ctx, builtins.ConfigMap, {
      namespace: ns,
      resourceVersion: list.metadata.resourceVersion,
      timeoutSeconds: 1,
    });
    try {
      expect(await w.next(15_000)).toBe('end');
    } finally {
      w.close();
    }
  });

  it('aborting the signal ends the stream', async () => {
    const { api, newNamespace } = ctx.target;
    const ns = await newNamespace();
    const controller = new AbortController();
    const list = await api.list(builtins.ConfigMap, { namespace: ns });
    const stream = api.watch(builtins.ConfigMap, {
      namespace: ns,
      resourceVersion: list.metadata.resourceVersion,
      signal: controller.signal,
    });
    const received: WatchEvent[] = [];
    const done = (async () => {
      for await (const e of stream) {
        received.push(e);
        if (e.type === 'ADDED') controller.abort();
      }
    })();
    await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        done.catch((err: unknown) => {
          // Some transports surface the abort as an AbortError; either way the stream stopped.
          if ((err as Error).name !== 'AbortError') throw err;
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('watch did not end after abort')), 10_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    expect(received.map(summary)).toEqual(['ADDED a']);
  });
}
