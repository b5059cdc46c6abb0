import { type ApiClient, createKubeClient, type KubeClient, noopLogger } from '@kubeloom/kube';
import {
  createTestNamespace,
  type FaultProxy,
  sharedControlPlane,
  startFaultProxy,
  waitFor,
} from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { intervalRecorder } from '../test/lease-harness.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import type { LeaderElector } from './leader-election.ts';

// On a real apiserver shared with the rest of `pnpm test` on a loaded machine, requests can take
// hundreds of milliseconds and timers run late. These tests therefore assert only what must hold
// whatever the load (never two leaders, a successor eventually, no take-over before the lease
// expired, release faster than expiry); the exact timing bounds are in leader-election.test.ts,
// on fake timers. The settings leave room for several slow renewals per deadline.
const LEASE_MS = 6000;
const RENEW_MS = 4000;
const RETRY_MS = 1000;
/** Waits are bounded by this multiple of what the rules allow, so only a real failure times out. */
const GENEROUS = 4;
const TEST_TIMEOUT_MS = 120_000;

const now = () => performance.now();

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
    ids: string[],
    rec: ReturnType<typeof intervalRecorder>,
    opts: { namespace: string; apis?: ApiClient[]; releaseOnCancel?: boolean },
  ): Candidate[] {
    const { namespace } = opts;
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

  it(
    'never has two leaders among three candidates, and all of them see the leader',
    async () => {
      const ns = await createTestNamespace(sharedControlPlane().kubeConfig, 'le-one');
      const rec = intervalRecorder(now);
      const cs = candidates(['a', 'b', 'c'], rec, { namespace: ns });
      await waitFor('a leader', () => rec.intervals.length > 0, { timeoutMs: GENEROUS * LEASE_MS });
      // Several renewal rounds: at no sample do two electors claim leadership.
      const watchUntil = now() + 5 * RETRY_MS;
      while (now() < watchUntil) {
        expect(cs.filter((c) => c.elector.isLeader()).length).toBeLessThanOrEqual(1);
        await new Promise((r) => setTimeout(r, 50));
      }
      rec.assertNoOverlap();
      await waitFor(
        'everyone to see the current leader',
        () => {
          const current = rec.current();
          return current.length === 1 && cs.every((c) => c.elector.getLeader() === current[0]);
        },
        { timeoutMs: GENEROUS * (LEASE_MS + RETRY_MS) },
      );
      rec.assertNoOverlap();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a leader that stops without releasing is replaced only once its lease expired; a graceful release hands over faster',
    async () => {
      const ns = await createTestNamespace(sharedControlPlane().kubeConfig, 'le-handover');
      const rec = intervalRecorder(now);
      // `a` leads first and "crashes" (stops without releasing); `b` and `c` release on stop.
      const [a] = candidates(['a'], rec, { namespace: ns, releaseOnCancel: false });
      await waitFor('a to lead', () => rec.current()[0] === 'a', { timeoutMs: GENEROUS * LEASE_MS });
      const others = candidates(['b', 'c'], rec, { namespace: ns });
      // A precondition, not a timing rule: a bound of a lease duration's, as for a to lead.
      await waitFor('b and c to see a', () => others.every((c) => c.elector.getLeader() === 'a'), {
        timeoutMs: GENEROUS * LEASE_MS,
      });

      const crashedAt = now();
      a!.stop.abort();
      await waitFor('a successor to a', () => rec.intervals.length === 2, {
        timeoutMs: GENEROUS * (LEASE_MS + RETRY_MS),
      });
      const crashGap = rec.intervals[1]!.start - crashedAt;
      // a's last renewal went out less than a renew deadline before it stopped, and nobody may
      // take over until a full lease duration after it.
      expect(crashGap).toBeGreaterThan(LEASE_MS - RENEW_MS);

      const successor = others.find((c) => c.elector.identity === rec.intervals[1]!.who)!;
      const stoppedAt = now();
      successor.stop.abort();
      await waitFor('a successor to the releasing leader', () => rec.intervals.length === 3, {
        timeoutMs: GENEROUS * LEASE_MS,
      });
      const releaseGap = rec.intervals[2]!.start - stoppedAt;
      expect(rec.intervals.map((x) => x.who)).toEqual([
        'a',
        successor.elector.identity,
        others.find((c) => c !== successor)!.elector.identity,
      ]);
      expect(releaseGap).toBeLessThan(crashGap);
      rec.assertNoOverlap();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a leader cut off from the apiserver stops leading before anyone else starts',
    async () => {
      const plane = sharedControlPlane();
      const ns = await createTestNamespace(plane.kubeConfig, 'le-cut');
      const proxy = await startFaultProxy({ upstream: plane });
      proxies.push(proxy);
      const ids = ['a', 'b', 'c'];
      const apis = ids.map((id) => api(proxy.kubeConfig(`elector-${id}`, ['system:masters'])));
      const rec = intervalRecorder(now);
      candidates(ids, rec, { namespace: ns, apis });
      await waitFor('a leader', () => rec.intervals.length === 1, { timeoutMs: GENEROUS * LEASE_MS });
      const leader = rec.intervals[0]!.who;
      // The network drops the leader's packets: requests hang, nothing reaches the apiserver.
      const hole = proxy.blackhole({ user: `elector-${leader}` });
      await waitFor('the cut-off leader to step down', () => rec.intervals[0]!.end !== undefined, {
        timeoutMs: GENEROUS * (RENEW_MS + RETRY_MS),
      });
      await waitFor('a new leader', () => rec.intervals.length === 2, {
        timeoutMs: GENEROUS * (LEASE_MS + RETRY_MS),
      });
      const [old, next] = rec.intervals;
      expect(next!.who).not.toBe(leader);
      expect(next!.start).toBeGreaterThanOrEqual(old!.end!);
      rec.assertNoOverlap();
      hole.heal();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a renewal hung on the network does not hold back the next one',
    async () => {
      const plane = sharedControlPlane();
      const ns = await createTestNamespace(plane.kubeConfig, 'le-hung');
      const proxy = await startFaultProxy({ upstream: plane });
      proxies.push(proxy);
      const rec = intervalRecorder(now);
      candidates(['a'], rec, {
        namespace: ns,
        apis: [api(proxy.kubeConfig('elector-a', ['system:masters']))],
      });
      await waitFor('a to lead', () => rec.current()[0] === 'a', { timeoutMs: GENEROUS * LEASE_MS });
      // The leader's next request hangs for good (a dead connection); later ones get through.
      const stall = proxy.stall({ user: 'elector-a', count: 1 });
      await waitFor('a renewal to hang', () => stall.hits === 1, { timeoutMs: GENEROUS * RETRY_MS });
      const hung = proxy.requests({ user: 'elector-a' }).find((r) => r.faults.includes('stall'))!;
      // Without a per-attempt timeout the leader would wait on the hung request until its renew
      // deadline, lose the leadership and send nothing more.
      await waitFor(
        'a successful renewal after the hung request',
        () =>
          proxy
            .requests({ user: 'elector-a', verb: 'update' })
            .some((r) => r.id > hung.id && r.status === 200),
        { timeoutMs: GENEROUS * RENEW_MS },
      );
      stall.cut();
      rec.assertNoOverlap();
    },
    TEST_TIMEOUT_MS,
  );
});
