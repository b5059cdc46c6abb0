import { type ControlPlane, createTestNamespace, startControlPlane, waitFor } from '@kubeloom/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiClient, ListOptions } from './api.ts';
import { builtins } from './builtins.ts';
import { createKubeClient } from './create-kube-client.ts';
import { isGone } from './errors.ts';
import { recordingLogger } from './fake/recording-logger.ts';
import { noopLogger } from './logger.ts';
import { InformerEngine } from './shared-informer.ts';

/**
 * A paginated list slower than etcd's compaction, without depending on timing: every request for
 * a next page is held until etcd has compacted the revision of the first page, observed as the
 * apiserver answering 410 for that very continue token. Everything else passes straight through.
 */
function slowPager(api: ApiClient, calls: ListOptions[], expired: unknown[]): ApiClient {
  const list: ApiClient['list'] = async (resource, opts = {}) => {
    calls.push(opts);
    if (opts.continue) {
      const gone = await waitFor(
        'etcd to compact past the first page (the apiserver answering 410 for its continue token)',
        async () => {
          try {
            // A probe of its own: not the caller's options, which may carry the pager's read-ahead hint.
            const { namespace, labelSelector, fieldSelector, limit } = opts;
            await api.list(resource, {
              namespace,
              labelSelector,
              fieldSelector,
              limit,
              continue: opts.continue,
            });
            return undefined;
          } catch (err) {
            if (isGone(err)) return err;
            throw err;
          }
        },
        { timeoutMs: 90_000, intervalMs: 200, ...(opts.signal ? { signal: opts.signal } : {}) },
      );
      expired.push(gone);
    }
    return api.list(resource, opts);
  };
  return new Proxy(api, {
    get(target, prop) {
      if (prop === 'list') return list;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('a paginated initial list slower than etcd compaction (watch cache off)', () => {
  let plane: ControlPlane | undefined;
  afterAll(async () => {
    await plane?.stop();
  });

  it('falls back to one full unpaginated list and syncs, like client-go’s pager', async () => {
    plane = await startControlPlane({
      // Without the watch cache every page is read from etcd at the first page's revision, so a
      // continue token expires once the compactor (every second here) passes that revision.
      apiServerArgs: ['--watch-cache=false', '--etcd-compaction-interval=1s'],
    });
    const kube = createKubeClient({ kubeConfig: plane.kubeConfig, logger: noopLogger });
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    try {
      const namespace = await createTestNamespace(plane.kubeConfig, 'slow-list');
      const names = ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4'];
      for (const name of names) {
        await kube.api.create(builtins.ConfigMap, { metadata: { name, namespace }, data: { v: name } });
      }
      const calls: ListOptions[] = [];
      const expired: unknown[] = [];
      const logger = recordingLogger();
      const informer = new InformerEngine({
        api: slowPager(kube.api, calls, expired),
        key: { resource: builtins.ConfigMap, namespace },
        logger,
        tuning: { pageSize: 2, initialBackoffMs: 20, maxBackoffMs: 300 },
      });
      running = informer.run(stop.signal);
      await waitFor('the list request after the expired continue token', () => calls.length >= 3, {
        timeoutMs: 120_000,
      });
      // What the apiserver really sends for an expired continue token.
      expect(isGone(expired[0])).toBe(true);
      expect(expired[0]).toMatchObject({ code: 410, reason: 'Expired' });
      expect((expired[0] as Error).message).toMatch(/continue parameter is too old/);
      // The fallback: one unpaginated list, not the paginated list again (which would expire again).
      expect(calls.slice(0, 3).map((c) => ({ limit: c.limit, continue: c.continue }))).toEqual([
        { limit: 2, continue: undefined },
        { limit: 2, continue: expect.any(String) },
        { limit: undefined, continue: undefined },
      ]);
      await waitFor('the informer to sync', () => informer.hasSynced(), { timeoutMs: 60_000 });
      expect(
        informer.store
          .list()
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual(names);
      expect(calls).toHaveLength(3);
      expect(informer.health()).toMatchObject({ lists: 1, relists: 0, listAttempts: 1 });
      expect(logger.records.map((r) => r.message)).toContain(
        'the continue token expired during a paginated list: listing everything in one unpaginated request',
      );
      // The watch starts from the full list's resourceVersion and delivers new objects.
      await kube.api.create(builtins.ConfigMap, { metadata: { name: 'after', namespace } });
      await waitFor('the watch after the fallback list', () => informer.store.get(`${namespace}/after`));
    } finally {
      stop.abort();
      await running;
      kube.shutdown();
    }
  }, 240_000);
});
