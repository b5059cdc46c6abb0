import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cm, ScriptedApi } from '../test/scripted-api.ts';
import { WatchIdleTimeoutError } from './api.ts';
import { builtins } from './builtins.ts';
import { apiErrorFromStatus } from './errors.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { isTombstone, type Tombstone } from './informer.ts';
import { Backoff } from './internal/backoff.ts';
import type { KubeObject } from './object.ts';
import { namespaceFilter } from './object-filter.ts';
import { InformerEngine } from './shared-informer.ts';

const fast = { initialBackoffMs: 1, maxBackoffMs: 4, pageSize: 500 };

function recorder() {
  const events: string[] = [];
  const deletes: Array<KubeObject | Tombstone> = [];
  return {
    events,
    deletes,
    handler: {
      onAdd: (o: KubeObject, initial: boolean) =>
        events.push(`add ${o.metadata?.name}${initial ? ' initial' : ''}`),
      onUpdate: (o: KubeObject, n: KubeObject) =>
        events.push(
          `update ${n.metadata?.name} ${o.metadata?.resourceVersion}->${n.metadata?.resourceVersion}`,
        ),
      onDelete: (o: KubeObject | Tombstone) => {
        deletes.push(o);
        events.push(
          `delete ${(isTombstone(o) ? o.obj : o).metadata?.name}${isTombstone(o) ? ' tombstone' : ''}`,
        );
      },
    },
  };
}

describe('Informer', () => {
  const stops: AbortController[] = [];
  // Every informer's run(): settles once its signal is aborted, which afterEach checks.
  const runs: Promise<void>[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
    vi.useRealTimers();
  });

  function start(api: ScriptedApi, opts: Partial<ConstructorParameters<typeof InformerEngine>[0]> = {}) {
    const logger = recordingLogger();
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger,
      tuning: fast,
      ...opts,
    });
    const stop = new AbortController();
    stops.push(stop);
    return { informer, stop, logger };
  }

  it('lists page by page with limit and continue, then watches from the list resourceVersion with bookmarks', async () => {
    const api = new ScriptedApi();
    const all = Array.from({ length: 7 }, (_, i) => cm(`c${i}`, String(10 + i)));
    api.listHandler = (opts) => {
      const start = opts.continue ? Number(opts.continue) : 0;
      const items = all.slice(start, start + (opts.limit ?? 500));
      const next = start + items.length;
      return {
        metadata: { resourceVersion: '42', ...(next < all.length ? { continue: String(next) } : {}) },
        items: structuredClone(items),
      };
    };
    const { informer, stop } = start(api, { tuning: { ...fast, pageSize: 3 } });
    const rec = recorder();
    informer.addEventHandler(rec.handler);
    runs.push(informer.run(stop.signal));
    expect(await informer.waitUntilSynced(stop.signal)).toBe(true);
    expect(api.lists.map((l) => [l.limit, l.continue])).toEqual([
      [3, undefined],
      [3, '3'],
      [3, '6'],
    ]);
    expect(rec.events).toEqual(all.map((o) => `add ${o.metadata?.name} initial`));
    const watch = await api.watchNumber(0);
    expect(watch.opts).toMatchObject({ resourceVersion: '42', allowWatchBookmarks: true, namespace: 'ns' });
    expect(watch.opts.idleTimeoutMs).toBeGreaterThan(0);
    expect(watch.opts.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(informer.lastSyncResourceVersion()).toBe('42');
  });

  it('lists everything unpaginated when a continue token expires mid-list (410 during paging)', async () => {
    const api = new ScriptedApi();
    let calls = 0;
    api.listHandler = (opts) => {
      calls++;
      if (calls === 2)
        throw apiErrorFromStatus(410, { reason: 'Expired', code: 410, message: 'continue expired' });
      if (opts.limit === undefined)
        return { metadata: { resourceVersion: '6' }, items: [cm('a', '1'), cm('b', '2')] };
      return { metadata: { resourceVersion: '5', continue: 'page2' }, items: [cm('a', '1')] };
    };
    const { informer, stop } = start(api, { tuning: { ...fast, pageSize: 1 } });
    runs.push(informer.run(stop.signal));
    expect(await informer.waitUntilSynced(stop.signal)).toBe(true);
    expect(api.lists.map((l) => [l.limit, l.continue])).toEqual([
      [1, undefined],
      [1, 'page2'],
      [undefined, undefined],
    ]);
    expect(informer.store.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(informer.health().lists).toBe(1);
  });

  it('delivers watch events in order and resumes from the last resourceVersion (bookmarks included) without relisting', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({ metadata: { resourceVersion: '10' }, items: [cm('a', '9')] });
    const { informer, stop } = start(api);
    const rec = recorder();
    informer.addEventHandler(rec.handler);
    runs.push(informer.run(stop.signal));
    const w0 = await api.watchNumber(0);
    w0.push(
      { type: 'ADDED', object: cm('b', '11') },
      { type: 'MODIFIED', object: cm('a', '12', { data: { x: '1' } }) },
      { type: 'DELETED', object: cm('b', '13') },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } },
    );
    w0.end();
    const w1 = await api.watchNumber(1);
    expect(w1.opts.resourceVersion).toBe('20');
    w1.push({ type: 'ADDED', object: cm('c', '21') });
    await waitFor('c', () => informer.store.get('ns/c') !== undefined);
    w1.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const w2 = await api.watchNumber(2);
    expect(w2.opts.resourceVersion).toBe('21');
    expect(api.lists).toHaveLength(1);
    expect(rec.events).toEqual(['add a initial', 'add b', 'update a 9->12', 'delete b', 'add c']);
    const h = informer.health();
    expect(h.restarts).toBe(2);
    expect(h.relists).toBe(0);
    expect(h.errors).toBe(1);
    expect(h.lastError).toContain('socket hang up');
  });

  it('on 410 Gone relists and emits the difference: adds, updates, and tombstones for vanished objects', async () => {
    const api = new ScriptedApi();
    let listCall = 0;
    api.listHandler = () => {
      listCall++;
      if (listCall === 1)
        return {
          metadata: { resourceVersion: '10' },
          items: [cm('keep', '1'), cm('change', '2'), cm('vanish', '3', { data: { last: 'state' } })],
        };
      return {
        metadata: { resourceVersion: '50' },
        items: [cm('keep', '1'), cm('change', '40'), cm('new', '45')],
      };
    };
    const { informer, stop } = start(api);
    const rec = recorder();
    informer.addEventHandler(rec.handler);
    runs.push(informer.run(stop.signal));
    const w0 = await api.watchNumber(0);
    w0.push({
      type: 'ERROR',
      status: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
    const w1 = await api.watchNumber(1);
    expect(w1.opts.resourceVersion).toBe('50');
    expect(rec.events.slice(3)).toEqual(['update change 2->40', 'add new', 'delete vanish tombstone']);
    const tomb = rec.deletes[0] as Tombstone;
    expect(tomb).toMatchObject({ tombstone: true, key: 'ns/vanish' });
    expect((tomb.obj as { data?: unknown }).data).toEqual({ last: 'state' });
    expect(informer.health()).toMatchObject({ lists: 2, relists: 1 });
    expect(informer.store.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
  });

  it('relists when the watch request itself is answered 410', async () => {
    const api = new ScriptedApi();
    api.watchErrors.push(apiErrorFromStatus(410, { reason: 'Gone', code: 410 }));
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    await api.watchNumber(0);
    expect(api.lists).toHaveLength(2);
  });

  it('counts a malformed line, logs it, and restarts the watch from the last good resourceVersion', async () => {
    const api = new ScriptedApi();
    const { informer, stop, logger } = start(api);
    runs.push(informer.run(stop.signal));
    const w0 = await api.watchNumber(0);
    w0.push(
      { type: 'ADDED', object: cm('a', '7') },
      { type: 'MALFORMED', line: '{"type":"ADDED","obj', error: 'Unexpected end of JSON input' },
    );
    const w1 = await api.watchNumber(1);
    expect(w1.opts.resourceVersion).toBe('7');
    w1.push({ type: 'UNKNOWN', eventType: 'SURPRISE', raw: {} }, { type: 'ADDED', object: cm('b', '8') });
    await waitFor('b', () => informer.store.get('ns/b') !== undefined);
    const h = informer.health();
    expect(h.malformedLines).toBe(1);
    expect(h.unknownEvents).toBe(1);
    expect(h.errors).toBe(2);
    expect(api.lists).toHaveLength(1);
    expect(logger.records.filter((r) => r.level === 'warn').map((r) => r.message)).toEqual([
      'malformed watch data; restarting the watch from the last resourceVersion',
      'ignoring a watch event of unknown type',
    ]);
  });

  it('restarts the watch after a non-410 ERROR event, keeping its resourceVersion', async () => {
    const api = new ScriptedApi();
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    const w0 = await api.watchNumber(0);
    w0.push({ type: 'ERROR', status: { code: 500, reason: 'InternalError', message: 'boom' } });
    const w1 = await api.watchNumber(1);
    expect(w1.opts.resourceVersion).toBe('1');
    expect(informer.health().lastError).toContain('boom');
    expect(api.lists).toHaveLength(1);
  });

  it('retries a failed list with backoff and never stops while its signal is live', async () => {
    const api = new ScriptedApi();
    let failures = 0;
    api.listHandler = () => {
      if (failures < 5) {
        failures++;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      }
      return { metadata: { resourceVersion: '3' }, items: [] };
    };
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    expect(await informer.waitUntilSynced(stop.signal)).toBe(true);
    expect(informer.health()).toMatchObject({ errors: 5, synced: true, lists: 1, listAttempts: 6 });
  });

  it('honours Retry-After on 429, bounded by the maximum backoff', async () => {
    vi.useFakeTimers();
    const api = new ScriptedApi();
    let calls = 0;
    api.listHandler = () => {
      calls++;
      if (calls === 1)
        throw apiErrorFromStatus(
          429,
          { reason: 'TooManyRequests', code: 429 },
          { context: 'list', retryAfterHeader: '7' },
        );
      if (calls === 2)
        throw apiErrorFromStatus(
          429,
          { reason: 'TooManyRequests', code: 429 },
          { context: 'list', retryAfterHeader: '3600' },
        );
      return { metadata: { resourceVersion: '3' }, items: [] };
    };
    const { informer, stop } = start(api, { tuning: { initialBackoffMs: 1, maxBackoffMs: 30_000 } });
    runs.push(informer.run(stop.signal));
    await vi.advanceTimersByTimeAsync(6_900);
    expect(calls).toBe(1);
    expect(informer.health().state).toBe('backoff');
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toBe(2);
    // An hour-long Retry-After is capped at the 30 s maximum.
    await vi.advanceTimersByTimeAsync(29_000);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1_200);
    expect(calls).toBe(3);
    expect(informer.hasSynced()).toBe(true);
  });

  it('does not turn a persistent 410 into a LIST storm: relists back off', async () => {
    vi.useFakeTimers();
    const api = new ScriptedApi();
    const { informer, stop } = start(api, {
      tuning: { initialBackoffMs: 100, maxBackoffMs: 1_000, random: () => 1 },
    });
    // Every watch is refused with 410 at once.
    for (let i = 0; i < 50; i++)
      api.watchErrors.push(apiErrorFromStatus(410, { reason: 'Expired', code: 410 }));
    runs.push(informer.run(stop.signal));
    await vi.advanceTimersByTimeAsync(5_000);
    // 100 + 200 + 400 + 800 + 1000 + 1000 + … ms between relists: about 8 lists in 5 s, not thousands.
    expect(api.lists.length).toBeGreaterThanOrEqual(5);
    expect(api.lists.length).toBeLessThanOrEqual(10);
  });

  it('resets the backoff after a productive watch, even when it ends with an error', async () => {
    vi.useFakeTimers();
    const api = new ScriptedApi();
    const delays: number[] = [];
    const { informer, stop } = start(api, {
      tuning: { initialBackoffMs: 100, maxBackoffMs: 10_000, random: () => 1 },
    });
    runs.push(informer.run(stop.signal));
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(0);
      const w = api.watches[i]!;
      w.push({ type: 'ADDED', object: cm(`o${i}`, String(10 + i)) });
      await vi.advanceTimersByTimeAsync(0);
      w.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      const before = api.watches.length;
      let waited = 0;
      while (api.watches.length === before && waited < 60_000) {
        await vi.advanceTimersByTimeAsync(10);
        waited += 10;
      }
      delays.push(waited);
    }
    // Each watch delivered an event before failing, so every reconnect waits the initial delay.
    expect(delays.every((d) => d <= 110)).toBe(true);
    expect(informer.health().lists).toBe(1);
  });

  it('reconnects after an idle timeout at once, without counting it as an error', async () => {
    const api = new ScriptedApi();
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    const w0 = await api.watchNumber(0);
    w0.fail(new WatchIdleTimeoutError(120_000));
    await api.watchNumber(1);
    expect(informer.health()).toMatchObject({ idleTimeouts: 1, errors: 0, lists: 1 });
  });

  it('skips an object it cannot ingest, advances the resourceVersion and keeps going', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({
      metadata: { resourceVersion: '1' },
      items: [cm('a', '1'), { metadata: {} } as never],
    });
    const { informer, stop, logger } = start(api, {
      transform: (o) => {
        if (o.metadata?.name === 'poison') throw new Error('transform bug');
        return o;
      },
    });
    runs.push(informer.run(stop.signal));
    expect(await informer.waitUntilSynced(stop.signal)).toBe(true);
    const w = await api.watchNumber(0);
    w.push({ type: 'ADDED', object: cm('poison', '5') }, { type: 'ADDED', object: cm('b', '6') });
    await waitFor('b', () => informer.store.get('ns/b') !== undefined);
    expect(informer.store.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(informer.health().rejectedObjects).toBe(2);
    expect(informer.lastSyncResourceVersion()).toBe('6');
    w.end();
    const w1 = await api.watchNumber(1);
    expect(w1.opts.resourceVersion).toBe('6');
    expect(
      logger.records.filter((r) => r.message === 'skipping an object that cannot be ingested'),
    ).toHaveLength(2);
  });

  it('treats a handler added during the initial delivery as a late joiner, so it still sees every object', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({
      metadata: { resourceVersion: '1' },
      items: [cm('a', '1'), cm('b', '1'), cm('c', '1')],
    });
    const { informer, stop } = start(api);
    const nested: string[] = [];
    let reg: ReturnType<typeof informer.addEventHandler> | undefined;
    informer.addEventHandler({
      onAdd: (o) => {
        if (o.metadata?.name === 'b' && !reg)
          reg = informer.addEventHandler({ onAdd: (n) => nested.push(n.metadata!.name!) });
      },
    });
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    await waitFor('nested sync', () => reg?.hasSynced() === true);
    expect(nested.sort()).toEqual(['a', 'b', 'c']);
  });

  it('rejects invalid tuning with clear errors', () => {
    const api = new ScriptedApi();
    expect(() => start(api, { tuning: { pageSize: 0 } })).toThrow(/pageSize must be a positive integer/);
    expect(() => start(api, { tuning: { pageBytes: 1.5 } })).toThrow(/pageBytes must be a positive integer/);
    expect(() => start(api, { tuning: { idleTimeoutMs: 0 } })).toThrow(/idleTimeoutMs must be between/);
    expect(() => start(api, { tuning: { watchTimeoutSeconds: [10, 5] } })).toThrow(/watchTimeoutSeconds/);
  });

  it('retryNow() ends a backoff wait at once and resets the backoff', async () => {
    const api = new ScriptedApi();
    let fail = true;
    api.listHandler = () => {
      if (fail)
        throw Object.assign(new Error('the server could not find the requested resource'), { code: 404 });
      return { metadata: { resourceVersion: '1' }, items: [] };
    };
    const { informer, stop } = start(api, { tuning: { initialBackoffMs: 60_000, maxBackoffMs: 60_000 } });
    runs.push(informer.run(stop.signal));
    await waitFor('backoff', () => informer.health().state === 'backoff');
    fail = false;
    informer.retryNow();
    expect(await informer.waitUntilSynced(stop.signal)).toBe(true);
    expect(api.lists).toHaveLength(2);
  });

  it('stops cleanly: a pending list is cancelled, sync waiters get false, the watch ends', async () => {
    const api = new ScriptedApi();
    api.listHandler = (opts) =>
      new Promise((_, reject) =>
        opts.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    const waiting = informer.waitUntilSynced();
    stop.abort();
    expect(await waiting).toBe(false);
    await waitFor('stopped', () => informer.health().state === 'stopped');

    const api2 = new ScriptedApi();
    const second = start(api2);
    runs.push(second.informer.run(second.stop.signal));
    const w = await api2.watchNumber(0);
    second.stop.abort();
    await waitFor('watch ended', () => w.ended);
    await waitFor('stopped', () => second.informer.health().state === 'stopped');
    expect(second.informer.hasSynced()).toBe(true);
  });

  it('freezes cached objects and strips managedFields; a custom transform replaces the default', async () => {
    const api = new ScriptedApi();
    const withMf = {
      ...cm('a', '1', { data: { k: 'v' } }),
      metadata: { name: 'a', namespace: 'ns', resourceVersion: '1', managedFields: [{ manager: 'x' }] },
    };
    api.listHandler = () => ({ metadata: { resourceVersion: '1' }, items: [structuredClone(withMf)] });
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    const obj = informer.store.get('ns/a')!;
    expect(obj.metadata?.managedFields).toBeUndefined();
    expect(Object.isFrozen(obj) && Object.isFrozen(obj.metadata)).toBe(true);

    const api2 = new ScriptedApi();
    api2.listHandler = () => ({ metadata: { resourceVersion: '1' }, items: [structuredClone(withMf)] });
    const custom = start(api2, {
      transform: (o) => {
        (o as { data?: unknown }).data = { replaced: 'yes' };
        return o;
      },
    });
    runs.push(custom.informer.run(custom.stop.signal));
    await custom.informer.waitUntilSynced(custom.stop.signal);
    const kept = custom.informer.store.get('ns/a') as KubeObject & { data: unknown };
    expect(kept.metadata?.managedFields).toEqual([{ manager: 'x' }]);
    expect(kept.data).toEqual({ replaced: 'yes' });
  });

  it('isolates a throwing handler: others still run, the error is counted', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({ metadata: { resourceVersion: '1' }, items: [cm('a', '1')] });
    const { informer, stop, logger } = start(api);
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    informer.addEventHandler({ onAdd: (o) => seen.push(o.metadata!.name!) });
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    expect(seen).toEqual(['a']);
    expect(informer.health().handlerErrors).toBe(1);
    expect(logger.records.some((r) => r.level === 'error')).toBe(true);
  });

  it('gives a late handler the current state first, then live events; remove() stops delivery', async () => {
    const api = new ScriptedApi();
    api.listHandler = () => ({ metadata: { resourceVersion: '1' }, items: [cm('a', '1')] });
    const { informer, stop } = start(api);
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    const rec = recorder();
    const reg = informer.addEventHandler(rec.handler);
    expect(reg.hasSynced()).toBe(false);
    await waitFor('late sync', () => reg.hasSynced());
    const w = await api.watchNumber(0);
    w.push({ type: 'ADDED', object: cm('b', '2') });
    await waitFor('b', () => rec.events.length === 2);
    reg.remove();
    w.push({ type: 'ADDED', object: cm('c', '3') });
    await waitFor('c cached', () => informer.store.get('ns/c') !== undefined);
    expect(rec.events).toEqual(['add a initial', 'add b']);
  });

  it('applies a dynamic object filter: objects entering arrive as adds, leaving as deletes', async () => {
    const api = new ScriptedApi();
    const obj = (name: string, ns: string, rv: string) => cm(name, rv, { namespace: ns });
    api.listHandler = () => ({
      metadata: { resourceVersion: '1' },
      items: [obj('a', 'one', '1'), obj('b', 'two', '1')],
    });
    const filter = namespaceFilter(['one'], { emptyMeansAll: false });
    const { informer, stop } = start(api, { key: { resource: builtins.ConfigMap }, filter });
    const rec = recorder();
    informer.addEventHandler(rec.handler);
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    expect(informer.store.keys()).toEqual(['one/a']);
    expect(informer.listUnfiltered()).toHaveLength(2);
    filter.set(['two']);
    expect(rec.events).toEqual(['add a initial', 'delete a', 'add b']);
    expect(informer.store.keys()).toEqual(['two/b']);
    expect(informer.store.get('one/a')).toBeUndefined();
    const w = await api.watchNumber(0);
    w.push(
      { type: 'MODIFIED', object: obj('a', 'one', '5') },
      { type: 'ADDED', object: obj('c', 'two', '6') },
    );
    await waitFor('c', () => rec.events.length === 4);
    expect(rec.events.slice(3)).toEqual(['add c']);
  });

  it('indexes objects by namespace and by custom indexers added before or after objects arrive', async () => {
    const api = new ScriptedApi();
    const labelled = (name: string, ns: string, app: string) => ({
      ...cm(name, '1', { namespace: ns }),
      metadata: { name, namespace: ns, resourceVersion: '1', labels: { app } },
    });
    api.listHandler = () => ({
      metadata: { resourceVersion: '1' },
      items: [labelled('a', 'x', 'web'), labelled('b', 'y', 'web'), labelled('c', 'x', 'db')],
    });
    const { informer, stop } = start(api, { key: { resource: builtins.ConfigMap } });
    informer.store.addIndexer('app', (o) => [o.metadata?.labels?.app ?? '']);
    runs.push(informer.run(stop.signal));
    await informer.waitUntilSynced(stop.signal);
    expect(
      informer.store
        .byNamespace('x')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(
      informer.store
        .byIndex('app', 'web')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    informer.store.addIndexer('name', (o) => [o.metadata!.name!]);
    expect(informer.store.keysByIndex('name', 'c')).toEqual(['x/c']);
    expect(() => informer.store.byIndex('nope', 'x')).toThrow(/no index named "nope"/);
    expect(() => informer.store.addIndexer('app', () => [])).toThrow(/already exists/);
    expect([
      informer.store.hasIndex('app'),
      informer.store.hasIndex('namespace'),
      informer.store.hasIndex('nope'),
    ]).toEqual([true, true, false]);
    const w = await api.watchNumber(0);
    w.push({ type: 'MODIFIED', object: labelled('a', 'x', 'db') });
    await waitFor('reindexed', () => informer.store.byIndex('app', 'db').length === 2);
    expect(informer.store.byIndex('app', 'web').map((o) => o.metadata?.name)).toEqual(['b']);
  });
});

describe('Backoff', () => {
  it('doubles from the initial delay up to the maximum, with each delay drawn from [d/2, d]', () => {
    const low = new Backoff(800, 30_000, () => 0);
    expect(Array.from({ length: 8 }, () => low.next())).toEqual([
      400, 800, 1600, 3200, 6400, 12800, 15000, 15000,
    ]);
    const high = new Backoff(800, 30_000, () => 1);
    expect(Array.from({ length: 8 }, () => high.next())).toEqual([
      800, 1600, 3200, 6400, 12800, 25600, 30000, 30000,
    ]);
    high.reset();
    expect(high.next()).toBe(800);
    expect(() => new Backoff(0, 1)).toThrow(RangeError);
  });
});
