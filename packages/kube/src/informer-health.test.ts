import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cm, ScriptedApi } from '../test/scripted-api.ts';
import { builtins } from './builtins.ts';
import { apiErrorFromStatus } from './errors.ts';
import { noopLogger } from './logger.ts';
import { InformerEngine } from './shared-informer.ts';

describe('informer health counts what happened', () => {
  const stops: AbortController[] = [];
  // Every informer's run(): settles once its signal is aborted, which afterEach checks.
  const runs: Promise<void>[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
  });

  function start(api: ScriptedApi): InformerEngine {
    const informer = new InformerEngine({
      api,
      key: { resource: builtins.ConfigMap, namespace: 'ns' },
      logger: noopLogger,
      tuning: { initialBackoffMs: 1, maxBackoffMs: 4 },
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(informer.run(stop.signal));
    return informer;
  }

  it('one relist that needed three attempts is one relist: lists and relists count completions, listAttempts counts tries', async () => {
    const api = new ScriptedApi();
    let call = 0;
    api.listHandler = () => {
      call++;
      // The initial list succeeds; after the 410, the relist fails twice before it succeeds.
      if (call === 2 || call === 3)
        throw apiErrorFromStatus(500, { reason: 'InternalError', message: 'etcd hiccup' });
      return { metadata: { resourceVersion: String(call * 10) }, items: [cm('a', String(call))] };
    };
    const informer = start(api);
    const w0 = await api.watchNumber(0, 10_000);
    expect(informer.health()).toMatchObject({ lists: 1, relists: 0, listAttempts: 1 });
    w0.push({
      type: 'ERROR',
      status: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
    const w1 = await api.watchNumber(1, 10_000);
    expect(w1.opts.resourceVersion).toBe('40');
    expect(informer.health()).toMatchObject({ lists: 2, relists: 1, listAttempts: 4, errors: 3 });
  });

  it('an initial list that needed three attempts is one list and no relist', async () => {
    const api = new ScriptedApi();
    let call = 0;
    api.listHandler = () => {
      call++;
      if (call < 3)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      return { metadata: { resourceVersion: '3' }, items: [] };
    };
    const informer = start(api);
    await waitFor('the informer to sync', () => informer.hasSynced(), { timeoutMs: 10_000 });
    expect(informer.health()).toMatchObject({ lists: 1, relists: 0, listAttempts: 3, errors: 2 });
    expect(informer.health().lastListTime).toBeInstanceOf(Date);
  });
});
