import { createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createTestNamespace, sharedControlPlane, startFaultProxy, waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { intervalRecorder } from '../test/lease-harness.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import type { LeaderElectionOptions } from './leader-election.ts';

// Issue 10, item 5, on a real apiserver behind the fault proxy: the leader's link turns slow, so
// its renewals reach the apiserver (and land) while their responses come back too late. It steps
// down at the renew deadline and, campaigning again, must not keep writing the Lease: another
// candidate takes over once the record stayed unchanged for a lease duration.
const LEASE_MS = 6000;
const RENEW_MS = 4000;
const RETRY_MS = 1000;
/** Waits are bounded by this multiple of what the rules allow, so only a real failure times out. */
const GENEROUS = 4;
const now = () => performance.now();

describe('leader election over a slow link (real apiserver)', () => {
  it('a leader that stepped down stops renewing, and another candidate takes over', async () => {
    const plane = sharedControlPlane();
    const ns = await createTestNamespace(plane.kubeConfig, 'le-slow');
    await using proxy = await startFaultProxy({ upstream: plane });
    const clients: KubeClient[] = [];
    const client = (kubeConfig = plane.kubeConfig) => {
      const kube = createKubeClient({ kubeConfig, logger: noopLogger });
      clients.push(kube);
      return kube.api;
    };
    const rec = intervalRecorder(now);
    const stop = new AbortController();
    const settings = (id: string): LeaderElectionOptions => ({
      api: client(),
      lease: { namespace: ns, name: 'controller' },
      identity: id,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_MS,
      retryPeriodMs: RETRY_MS,
      logger: noopLogger,
      ...rec.callbacks(id),
    });
    /** The last request `a` had sent through the proxy when it stepped down. */
    let lastIdAtStop: number | undefined;
    const a = createLeaderElector({
      ...settings('a'),
      api: client(proxy.kubeConfig('elector-a', ['system:masters'])),
      onStoppedLeading: () => {
        lastIdAtStop ??= proxy.requests({ user: 'elector-a' }).at(-1)?.id ?? 0;
      },
    });
    // b polls more often, so it sees a's last write soon after it lands.
    const b = createLeaderElector({ ...settings('b'), retryPeriodMs: RETRY_MS / 4 });
    // Campaign again after losing, as krt's status writer does.
    const campaign = async (run: (s: AbortSignal) => Promise<void>) => {
      while (!stop.signal.aborted) await run(stop.signal);
    };
    const runs = [campaign((s) => a.run(s))];
    try {
      await waitFor('a to lead', () => rec.current()[0] === 'a', { timeoutMs: GENEROUS * LEASE_MS });
      runs.push(campaign((s) => b.run(s)));
      // A precondition, not a timing rule: a bound of a lease duration's, as for a to lead.
      await waitFor('b to see a lead', () => b.getLeader() === 'a', { timeoutMs: GENEROUS * LEASE_MS });

      // a's writes reach the apiserver at once; their responses come back far too late.
      const slow = proxy.delay(GENEROUS * LEASE_MS, { user: 'elector-a', verb: 'update' });
      await waitFor('a to step down', () => lastIdAtStop, { timeoutMs: GENEROUS * (RENEW_MS + RETRY_MS) });
      await waitFor('b to take over', () => b.isLeader(), {
        timeoutMs: 2 * GENEROUS * (LEASE_MS + RETRY_MS),
      });
      slow.remove();
      rec.assertNoOverlap();
      expect(rec.intervals.map((i) => i.who)).toEqual(['a', 'b']);

      // After stepping down, a only read the Lease until the record expired: any write it sent
      // (a take-over attempt racing b's) came after several reads, never right after the first.
      const after = proxy.requests({ user: 'elector-a' }).filter((r) => r.id > lastIdAtStop!);
      const firstWrite = after.findIndex((r) => r.verb === 'update' || r.verb === 'create');
      const readsBefore = (firstWrite < 0 ? after : after.slice(0, firstWrite)).filter(
        (r) => r.verb === 'get',
      );
      expect(readsBefore.length).toBeGreaterThanOrEqual(2);
    } finally {
      stop.abort();
      await Promise.all(runs);
      for (const c of clients) c.shutdown();
    }
  }, 120_000);
});
