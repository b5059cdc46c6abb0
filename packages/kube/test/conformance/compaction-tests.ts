import { waitFor } from '@kubeloom/testing';
import { expect, it, vi } from 'vitest';
import { builtins } from '../../src/builtins.ts';
import { apiError, configMap, expectEvent } from './fixtures.ts';
import type { ConformanceContext } from './target.ts';
import { WatchReader } from './watch-reader.ts';

/** History compaction: 410 Expired for watches, continue tokens and exact lists from before it. */
export function compactionTests(ctx: ConformanceContext): void {
  it('a watch from a compacted resourceVersion gets an ERROR event with 410 Expired', async () => {
    const { api, newNamespace, compact } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    await compact!();
    const controller = new AbortController();
    const w = new WatchReader(
      api.watch(builtins.ConfigMap, {
        namespace: ns,
        resourceVersion: a.metadata!.resourceVersion!,
        signal: controller.signal,
      }),
      controller,
    );
    try {
      const event = expectEvent(await w.next(), 'ERROR');
      expect(event.status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
      expect(await w.next()).toBe('end');
    } finally {
      w.close();
    }
  });

  it('a continue token from before a compaction is 410 Expired, with a token to continue inconsistently', async () => {
    const { api, newNamespace, compact } = ctx.target;
    const ns = await newNamespace();
    for (const n of ['a', 'b', 'c']) await api.create(builtins.ConfigMap, configMap(ns, n));
    const first = await api.list(builtins.ConfigMap, { namespace: ns, limit: 1 });
    await api.create(builtins.ConfigMap, configMap(ns, 'd'));
    await compact!();
    const err = await apiError(
      api.list(builtins.ConfigMap, { namespace: ns, limit: 1, continue: first.metadata.continue }),
    );
    expect(err.code).toBe(410);
    expect(err.reason).toBe('Expired');
    expect(err.status?.message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result/,
    );
    const inconsistent = (err.status as { metadata?: { continue?: string } }).metadata?.continue;
    expect(inconsistent).toBeTruthy();
    const rest = await api.list(builtins.ConfigMap, { namespace: ns, continue: inconsistent });
    expect(rest.items.map((o) => o.metadata?.name)).toEqual(['b', 'c', 'd']);
  });

  it('a list at an exact compacted resourceVersion is 410 Expired', async () => {
    const { api, newNamespace, compact } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    await compact!();
    const err = await apiError(
      api.list(builtins.ConfigMap, {
        namespace: ns,
        resourceVersion: a.metadata!.resourceVersion!,
        resourceVersionMatch: 'Exact',
      }),
    );
    expect(err.code).toBe(410);
    expect(err.reason).toBe('Expired');
  });

  it('DIFFERENCE: compaction without a call (real: etcd compacts by itself every --etcd-compaction-interval; fake: only compact(), expireWatches() or the historyLimit compact, never a timer)', async () => {
    const { api, newNamespace, kind } = ctx.target;
    const ns = await newNamespace();
    const a = await api.create(builtins.ConfigMap, configMap(ns, 'a'));
    await api.create(builtins.ConfigMap, configMap(ns, 'b'));
    const atA = () =>
      api.list(builtins.ConfigMap, {
        namespace: ns,
        resourceVersion: a.metadata!.resourceVersion!,
        resourceVersionMatch: 'Exact',
      });
    if (kind === 'real') {
      await waitFor(
        'the exact list from before the compaction to be refused with 410',
        async () => (await apiError(atA())).code === 410,
      );
    } else {
      vi.useFakeTimers();
      try {
        vi.advanceTimersByTime(24 * 60 * 60_000);
        expect((await atA()).items.map((o) => o.metadata?.name)).toEqual(['a']);
      } finally {
        vi.useRealTimers();
      }
    }
  });
}
