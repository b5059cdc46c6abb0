import { type ApiClient, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, type FaultProxy, sharedControlPlane, startFaultProxy } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { intervalRecorder } from '../test/lease-harness.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import type { LeaderElector } from './leader-election.ts';

// Short but valid timings (lease > renew > 1.2 × retry) keep the suite quick on a real apiserver.
const LEASE_MS = 3000;
const RENEW_MS = 2000;
const RETRY_MS = 500;
/** Request latency allowance on a shared, loaded machine. */
const SLACK_MS = 1500;

const now = () => performance.now();

async function until(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!cond()) {
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Candidate {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly run: Promise<void>;
}

describe('leader election on a real apiserver', () => {
  const clients: KubeClient[] = [];
  const stops: AbortController[] = [];
  const runs: Array<Promise<void>> = [];
  const proxies: FaultProxy[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(runs.splice(0));
    for (const c of clients.splice(0)) c.shutdown();
    for (const p of proxies.splice(0)) await p.stop();
  });

  function api(kubeConfig = sharedControlPlane().kubeConfig): ApiClient {
    const kube = createKubeClient({ kubeConfig, logger: noopLogger });
    clients.push(kube);
    return kube.api;
  }

  function candidates(
    namespace: string,
    ids: string[],
    rec: ReturnType<typeof intervalRecorder>,
    opts: { apis?: ApiClient[]; releaseOnCancel?: boolean } = {},
  ): Candidate[] {
    return ids.map((id, i) => {
      const elector = createLeaderElector({
        api: opts.apis?.[i] ?? api(),
        lease: { namespace, name: 'controller' },
        identity: id,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: RENEW_MS,
        retryPeriodMs: RETRY_MS,
        logger: noopLogger,
        ...(opts.releaseOnCancel !== undefined ? { releaseOnCancel: opts.releaseOnCancel } : {}),
        ...rec.callbacks(id),
      });
      const stop = new AbortController();
      stops.push(stop);
      const run = elector.run(stop.signal);
      runs.push(run);
      return { elector, stop, run };
    });
  }

  it('exactly one of three candidates leads', async () => {
    const ns = await createTestNamespace(sharedControlPlane().kubeConfig, 'le-one');
    const rec = intervalRecorder(now);
    const cs = candidates(ns, ['a', 'b', 'c'], rec);
    await until('a leader', () => rec.intervals.length > 0, LEASE_MS + SLACK_MS);
    // Several renewal rounds later there is still exactly one leader, the same one.
    const watchUntil = now() + 4 * RETRY_MS;
    while (now() < watchUntil) {
      expect(cs.filter((c) => c.elector.isLeader())).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rec.intervals).toHaveLength(1);
    const leader = rec.intervals[0]!.who;
    await until(
      'everyone to see the leader',
      () => cs.every((c) => c.elector.getLeader() === leader),
      2 * RETRY_MS + SLACK_MS,
    );
  });

  it('a leader that stops without releasing is replaced within lease duration + retry period', async () => {
    const ns = await createTestNamespace(sharedControlPlane().kubeConfig, 'le-crash');
    const rec = intervalRecorder(now);
    const cs = candidates(ns, ['a', 'b', 'c'], rec, { releaseOnCancel: false });
    await until('a leader', () => rec.intervals.length === 1, LEASE_MS + SLACK_MS);
    const old = cs.find((c) => c.elector.identity === rec.intervals[0]!.who)!;
    const stoppedAt = now();
    old.stop.abort();
    await until('a new leader', () => rec.intervals.length === 2, LEASE_MS + RETRY_MS + SLACK_MS);
    const next = rec.intervals[1]!;
    expect(next.who).not.toBe(old.elector.identity);
    expect(next.start - stoppedAt).toBeLessThanOrEqual(LEASE_MS + RETRY_MS + SLACK_MS);
    rec.assertNoOverlap();
  });

  it('a graceful release hands over within one retry period', async () => {
    const ns = await createTestNamespace(sharedControlPlane().kubeConfig, 'le-release');
    const rec = intervalRecorder(now);
    const cs = candidates(ns, ['a', 'b'], rec);
    await until('a leader', () => rec.intervals.length === 1, LEASE_MS + SLACK_MS);
    const old = cs.find((c) => c.elector.identity === rec.intervals[0]!.who)!;
    old.stop.abort();
    await old.run; // released when run resolves
    const releasedAt = now();
    await until('the successor', () => rec.intervals.length === 2, RETRY_MS + SLACK_MS);
    expect(rec.intervals[1]!.start - releasedAt).toBeLessThanOrEqual(RETRY_MS + SLACK_MS);
    rec.assertNoOverlap();
  });

  it('a leader cut off from the apiserver stops leading before anyone else starts', async () => {
    const plane = sharedControlPlane();
    const ns = await createTestNamespace(plane.kubeConfig, 'le-cut');
    const proxy = await startFaultProxy({ upstream: plane });
    proxies.push(proxy);
    const ids = ['a', 'b', 'c'];
    const apis = ids.map((id) => api(proxy.kubeConfig(`elector-${id}`, ['system:masters'])));
    const rec = intervalRecorder(now);
    candidates(ns, ids, rec, { apis });
    await until('a leader', () => rec.intervals.length === 1, LEASE_MS + SLACK_MS);
    const leader = rec.intervals[0]!.who;
    // The network drops the leader's packets: requests hang, nothing reaches the apiserver.
    const hole = proxy.blackhole({ user: `elector-${leader}` });
    const cutAt = now();
    await until(
      'the cut-off leader to step down',
      () => rec.intervals[0]!.end !== undefined,
      RENEW_MS + RETRY_MS + SLACK_MS,
    );
    await until('a new leader', () => rec.intervals.length === 2, LEASE_MS + RETRY_MS + SLACK_MS);
    const [old, next] = rec.intervals;
    expect(next!.who).not.toBe(leader);
    expect(old!.end! - cutAt).toBeLessThanOrEqual(RENEW_MS + SLACK_MS);
    expect(next!.start).toBeGreaterThanOrEqual(old!.end!);
    rec.assertNoOverlap();
    hole.heal();
  });
});
