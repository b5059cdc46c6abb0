import { afterEach, describe, expect, it } from 'vitest';
import { cm, ScriptedApi } from '../test/scripted-api.ts';
import { builtins } from './builtins.ts';
import { apiErrorFromStatus } from './errors.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { InformerEngine } from './shared-informer.ts';

/** What kube-apiserver answers for a continue token whose revision etcd has compacted. */
const expiredContinue = () =>
  apiErrorFromStatus(410, {
    kind: 'Status',
    code: 410,
    reason: 'Expired',
    message:
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  });

describe('an initial list whose continue token expires (unit)', () => {
  const stops: AbortController[] = [];
  // Every informer's run(): settles once its signal is aborted, which afterEach checks.
  const runs: Promise<void>[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
  });

  it('falls back to one full unpaginated list, like client-go’s pager, and syncs', async () => {
    const api = new ScriptedApi();
    const all = ['a', 'b', 'c', 'd', 'e'].map((n, i) => cm(n, String(i + 1)));
    // Every continue token has expired by the time it is used: a paginated list can never finish.
    api.listHandler = (opts) => {
      if (opts.continue) throw expiredContinue();
      if (opts.limit === undefined)
        return { metadata: { resourceVersion: '9' }, items: structuredClone(all) };
      return {
        metadata: { resourceVersion: '5', continue: 'next' },
        items: structuredClone(all.slice(0, opts.limit)),
      };
    };
    const logger = recordingLogger();
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger,
      tuning: { initialBackoffMs: 1, maxBackoffMs: 4, pageSize: 2 },
    });
    const added: string[] = [];
    informer.addEventHandler({
      onAdd: (o, initial) => added.push(`${o.metadata?.name}${initial ? '' : '!'}`),
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(informer.run(stop.signal));
    await api.watchNumber(0, 10_000);
    expect(api.lists.map((l) => ({ limit: l.limit, continue: l.continue }))).toEqual([
      { limit: 2, continue: undefined },
      { limit: 2, continue: 'next' },
      { limit: undefined, continue: undefined },
    ]);
    expect(informer.hasSynced()).toBe(true);
    expect(added).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(informer.lastSyncResourceVersion()).toBe('9');
    expect(informer.health()).toMatchObject({ lists: 1, relists: 0, listAttempts: 1 });
    expect(informer.health().lastError).toMatch(/continue parameter is too old/);
    expect(logger.records.map((r) => r.message)).toContain(
      'the continue token expired during a paginated list: listing everything in one unpaginated request',
    );
  });

  it('a failing fallback list is retried as a whole, with backoff, until it succeeds', async () => {
    const api = new ScriptedApi();
    let fallbacks = 0;
    api.listHandler = (opts) => {
      if (opts.continue) throw expiredContinue();
      if (opts.limit === undefined) {
        fallbacks++;
        if (fallbacks === 1)
          throw apiErrorFromStatus(500, { reason: 'InternalError', message: 'etcd hiccup' });
        return { metadata: { resourceVersion: '9' }, items: [cm('a', '1'), cm('b', '2')] };
      }
      return { metadata: { resourceVersion: '5', continue: 'next' }, items: [cm('a', '1')] };
    };
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger: recordingLogger(),
      tuning: { initialBackoffMs: 1, maxBackoffMs: 4, pageSize: 1 },
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(informer.run(stop.signal));
    await api.watchNumber(0, 10_000);
    expect(api.lists.map((l) => `${l.limit ?? 'all'}/${l.continue ?? '-'}`)).toEqual([
      '1/-',
      '1/next',
      'all/-',
      '1/-',
      '1/next',
      'all/-',
    ]);
    expect(informer.store.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(informer.health()).toMatchObject({ lists: 1, listAttempts: 2 });
  });
});
