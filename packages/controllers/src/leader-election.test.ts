import { type ApiClient, builtins, type KubeObject, noopLogger } from '@kubeloom/kube';
import { createFakeApiClient, type FakeApiClient, recordingLogger } from '@kubeloom/kube/fake';
import * as promClient from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred, flushMicrotasks } from '../test/deferred.ts';
import { cuttableApi, intervalRecorder, leaders } from '../test/lease-harness.ts';
import type { Clock } from './clock.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import { LeaseResource } from './internal/lease.ts';
import { LeaderElectionConfigError, type LeaderElectionOptions } from './leader-election.ts';
import { prometheusMetrics } from './prometheus-metrics.ts';

const LEASE = { namespace: 'kube-system', name: 'my-controller' };
const now = () => performance.now();

let api: FakeApiClient;
beforeEach(() => {
  vi.useFakeTimers();
  api = createFakeApiClient();
});
afterEach(() => {
  api.close();
  vi.useRealTimers();
});

const readLease = () => api.get({ resource: LeaseResource, name: LEASE.name, namespace: LEASE.namespace });
const base = (overrides: Partial<LeaderElectionOptions> = {}): LeaderElectionOptions => ({
  api,
  lease: LEASE,
  logger: noopLogger,
  onStartedLeading: () => {},
  ...overrides,
});

describe('createLeaderElector: settings', () => {
  it('accepts the defaults (15 s > 10 s > 1.2 × 2 s) and refuses anything that breaks the inequality', () => {
    expect(() => createLeaderElector(base())).not.toThrow();
    const bad: Array<[Partial<LeaderElectionOptions>, RegExp]> = [
      [
        { leaseDurationMs: 10_000 },
        /leaseDurationMs \(10000\) must be greater than renewDeadlineMs \(10000\)/,
      ],
      [
        { renewDeadlineMs: 2_400 },
        /renewDeadlineMs \(2400\) must be greater than 1.2 × retryPeriodMs \(2000\) = 2400/,
      ],
      [{ retryPeriodMs: 9_000 }, /1.2 × retryPeriodMs \(9000\)/],
      [{ leaseDurationMs: 15_500 }, /whole number of seconds/],
      [{ retryPeriodMs: 0 }, /retryPeriodMs must be a positive number of milliseconds, got 0/],
      [{ renewDeadlineMs: Number.NaN }, /renewDeadlineMs must be a positive number/],
      [{ identity: '' }, /identity must be a non-empty string/],
      [{ lease: { namespace: '', name: 'x' } }, /options.lease must name the Lease/],
      [{ api: {} as never }, /options.api must be an ApiClient/],
      [{ onStartedLeading: undefined as never }, /onStartedLeading\(signal\) is required/],
    ];
    for (const [override, message] of bad) {
      expect(() => createLeaderElector(base(override))).toThrow(LeaderElectionConfigError);
      expect(() => createLeaderElector(base(override))).toThrow(message);
    }
    // Shorter settings that keep the inequality are fine.
    expect(() =>
      createLeaderElector(base({ leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 })),
    ).not.toThrow();
  });

  it('defaults the identity to hostname_uuid, unique per elector', () => {
    const a = createLeaderElector(base());
    const b = createLeaderElector(base());
    expect(a.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    expect(a.identity).not.toBe(b.identity);
  });
});

describe('createLeaderElector: one elector', () => {
  it('creates a missing Lease and leads at once, then renews every retry period', async () => {
    const newLeaders: string[] = [];
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(
      base({
        identity: 'a',
        onStartedLeading: (s) => started.resolve(s),
        onNewLeader: (id) => newLeaders.push(id),
      }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    const signal = await started.promise;
    expect(e.isLeader()).toBe(true);
    expect(e.getLeader()).toBe('a');
    expect(newLeaders).toEqual(['a']);
    const created = await readLease();
    expect(created.spec).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    expect(created.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const updates = api.cluster.requestCount('update');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(api.cluster.requestCount('update') - updates).toBe(5);
    const renewed = await readLease();
    expect(renewed.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    expect(renewed.spec?.acquireTime).toBe(created.spec?.acquireTime);
    expect(renewed.spec?.renewTime).not.toBe(created.spec?.renewTime);
    expect(signal.aborted).toBe(false);
    ac.abort();
    await run;
    expect(signal.aborted).toBe(true);
    expect(e.isLeader()).toBe(false);
  });

  it('releases on graceful stop after its work settles, and leaves no timers behind', async () => {
    const work = deferred();
    let stopped = 0;
    const e = createLeaderElector(
      base({
        identity: 'a',
        onStartedLeading: (signal) => {
          signal.addEventListener('abort', () => setTimeout(() => work.resolve(), 500));
          return work.promise;
        },
        onStoppedLeading: () => stopped++,
      }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(3000);
    ac.abort();
    await flushMicrotasks();
    // Not released while the work is still winding down.
    expect((await readLease()).spec?.holderIdentity).toBe('a');
    await vi.advanceTimersByTimeAsync(500);
    await run;
    const released = await readLease();
    expect(released.spec?.holderIdentity).toBeUndefined();
    expect(released.spec?.leaseDurationSeconds).toBe(1);
    expect(stopped).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('await using stops a leader without its signal: the work settles, the Lease is released, no timers stay', async () => {
    let stopped = 0;
    let leading: AbortSignal | undefined;
    const signal = new AbortController().signal;
    let run: Promise<void> = Promise.resolve();
    {
      await using e = createLeaderElector(
        base({
          identity: 'a',
          onStartedLeading: (s) => {
            leading = s;
          },
          onStoppedLeading: () => stopped++,
        }),
      );
      run = e.run(signal);
      await vi.advanceTimersByTimeAsync(3000);
      expect(e.isLeader()).toBe(true);
    }
    expect(leading?.aborted).toBe(true);
    expect(signal.aborted).toBe(false);
    await run;
    expect(stopped).toBe(1);
    expect((await readLease()).spec?.holderIdentity).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a disposed elector does not campaign again', async () => {
    const e = createLeaderElector(base({ identity: 'a' }));
    await e[Symbol.asyncDispose]();
    await e.run(new AbortController().signal);
    expect(e.isLeader()).toBe(false);
    await expect(readLease()).rejects.toThrow(/not found/);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not release when the work outlives the renew deadline', async () => {
    const logger = recordingLogger();
    const e = createLeaderElector(
      base({ identity: 'a', logger, onStartedLeading: () => new Promise<void>(() => {}) }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(100);
    ac.abort();
    await vi.advanceTimersByTimeAsync(10_000);
    await run;
    expect((await readLease()).spec?.holderIdentity).toBe('a');
    expect(logger.records.some((r) => r.message.startsWith('not releasing the Lease'))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timers behind when stopped as a candidate', async () => {
    await api.create(LeaseResource, leaseHeldBy('other'));
    const e = createLeaderElector(base({ identity: 'a' }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(5000);
    expect(e.isLeader()).toBe(false);
    expect(e.getLeader()).toBe('other');
    ac.abort();
    await run;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops leading when no renewal succeeds within the renew deadline (failing link)', async () => {
    const link = cuttableApi(api);
    let stoppedAt: number | undefined;
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(
      base({
        api: link.api,
        identity: 'a',
        onStartedLeading: (s) => started.resolve(s),
        onStoppedLeading: () => (stoppedAt = now()),
      }),
    );
    const run = e.run(new AbortController().signal);
    const signal = await started.promise;
    await vi.advanceTimersByTimeAsync(4000); // renewals at 2 s and 4 s succeed
    const lastRenewSent = now();
    link.link = 'failing';
    await vi.advanceTimersByTimeAsync(9_999);
    expect(e.isLeader()).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal.aborted).toBe(true);
    expect(e.isLeader()).toBe(false);
    await run; // run ends when leadership is lost
    expect(stoppedAt! - lastRenewSent).toBe(10_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops leading at the deadline when requests hang, and aborts them', async () => {
    const link = cuttableApi(api);
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(
      base({ api: link.api, identity: 'a', onStartedLeading: (s) => started.resolve(s) }),
    );
    const run = e.run(new AbortController().signal);
    const signal = await started.promise;
    const acquiredAt = now();
    link.link = 'hanging';
    await vi.advanceTimersByTimeAsync(10_000);
    expect(signal.aborted).toBe(true);
    await run;
    expect(now() - acquiredAt).toBe(10_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives each renewal half the time left (at least a retry period), so a hung request does not cost the leadership', async () => {
    const logger = recordingLogger();
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(
      base({ identity: 'a', logger, onStartedLeading: (s) => started.resolve(s) }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    const signal = await started.promise;
    const t0 = now();
    const reads: number[] = [];
    const unobserve = api.cluster.onRequest((r) => {
      if (r.verb === 'get') reads.push(now() - t0);
    });
    // From 1 s the apiserver stops answering reads: the renewal sent at 2 s hangs on its connection
    // for good. At 3 s it answers again, but only to new requests.
    await vi.advanceTimersByTimeAsync(1000);
    const heal = api.cluster.delay(600_000, { verbs: ['get'] });
    await vi.advanceTimersByTimeAsync(2000);
    heal();
    await vi.advanceTimersByTimeAsync(27_000);
    unobserve();
    // The read sent at 2 s, 8 s before the deadline, gets 4 s: abandoned at 6 s and retried at
    // once, which renews; later renewals keep the period.
    expect(reads.slice(0, 4)).toEqual([2000, 6000, 8000, 10_000]);
    expect(signal.aborted).toBe(false);
    expect(e.isLeader()).toBe(true);
    expect(logger.records.map((r) => r.message)).toContain(
      'renewing the Lease timed out after 4000 ms; retrying',
    );
    expect((await readLease()).spec?.holderIdentity).toBe('a');
    ac.abort();
    await run;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps leading through an apiserver that answers every read slower than a retry period', async () => {
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(base({ identity: 'a', onStartedLeading: (s) => started.resolve(s) }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    const signal = await started.promise;
    // A saturated apiserver: every read takes 2.5 s (a read and a write: more than the 2 s retry
    // period). An attempt cut at one retry period would never renew, and leadership would end at 10 s.
    const heal = api.cluster.delay(2500, { verbs: ['get'] });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(signal.aborted).toBe(false);
    expect(e.isLeader()).toBe(true);
    heal();
    ac.abort();
    await run;
    expect(vi.getTimerCount()).toBe(0);
  });

  for (const verb of ['create', 'update'] as const) {
    it(`does not start leading when stopped during the acquiring ${verb}, and hands the Lease back`, async () => {
      if (verb === 'update') await api.create(LeaseResource, leaseHeldBy('')); // released: free to take
      const ac = new AbortController();
      // The write reaches the apiserver, and the stop lands before its response is handled.
      const racing: ApiClient = {
        ...api,
        [verb]: (async (...args: Parameters<ApiClient['create'] & ApiClient['update']>) => {
          const written = await (api[verb] as (...a: unknown[]) => Promise<unknown>)(...args);
          ac.abort();
          return written;
        }) as never,
      };
      let started = 0;
      let stopped = 0;
      const e = createLeaderElector(
        base({
          api: racing,
          identity: 'a',
          onStartedLeading: () => void started++,
          onStoppedLeading: () => void stopped++,
        }),
      );
      await e.run(ac.signal);
      expect(started).toBe(0);
      expect(stopped).toBe(0);
      expect(e.isLeader()).toBe(false);
      const lease = await readLease();
      expect(lease.spec?.holderIdentity).toBeUndefined(); // released: the next candidate needs no wait
      expect(lease.spec?.leaseTransitions).toBe(verb === 'create' ? 0 : 4);
      expect(vi.getTimerCount()).toBe(0);
    });
  }

  it('keeps leading through a 409 on renew and renews next period', async () => {
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(base({ identity: 'a', onStartedLeading: (s) => started.resolve(s) }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    const signal = await started.promise;
    api.cluster.failNext('update', 3, { code: 409, resource: builtins.Lease });
    await vi.advanceTimersByTimeAsync(6000);
    expect(e.isLeader()).toBe(true);
    const before = (await readLease()).spec?.renewTime;
    await vi.advanceTimersByTimeAsync(2000);
    expect((await readLease()).spec?.renewTime).not.toBe(before);
    expect(signal.aborted).toBe(false);
    ac.abort();
    await run;
  });

  it('keeps leading when someone else edits unrelated fields of the Lease', async () => {
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(base({ identity: 'a', onStartedLeading: (s) => started.resolve(s) }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await started.promise;
    const lease = await readLease();
    await api.update(LeaseResource, { ...lease, metadata: { ...lease.metadata, labels: { team: 'x' } } });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(e.isLeader()).toBe(true);
    expect((await readLease()).metadata?.labels).toEqual({ team: 'x' });
    ac.abort();
    await run;
  });

  it('steps down at once when someone else writes another holder into the Lease', async () => {
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(base({ identity: 'a', onStartedLeading: (s) => started.resolve(s) }));
    const run = e.run(new AbortController().signal);
    const signal = await started.promise;
    const lease = await readLease();
    await api.update(LeaseResource, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await vi.advanceTimersByTimeAsync(2000);
    expect(signal.aborted).toBe(true);
    await run;
    expect(e.getLeader()).toBe('intruder');
    // Stepping down is not a release: the intruder's record stays.
    expect((await readLease()).spec?.holderIdentity).toBe('intruder');
  });

  it('steps down when the Lease is deleted under it', async () => {
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(base({ identity: 'a', onStartedLeading: (s) => started.resolve(s) }));
    const run = e.run(new AbortController().signal);
    const signal = await started.promise;
    await api.delete({ resource: LeaseResource, name: LEASE.name, namespace: LEASE.namespace });
    await vi.advanceTimersByTimeAsync(2000);
    expect(signal.aborted).toBe(true);
    await run;
  });

  it('logs a throwing onStartedLeading and keeps leading', async () => {
    const logger = recordingLogger();
    const e = createLeaderElector(
      base({
        identity: 'a',
        logger,
        onStartedLeading: () => {
          throw new Error('bad callback');
        },
      }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(100);
    expect(e.isLeader()).toBe(true);
    expect(logger.records.find((r) => r.level === 'error')?.message).toBe('onStartedLeading failed');
    ac.abort();
    await run;
  });

  it('refuses a second concurrent run', async () => {
    const e = createLeaderElector(base({ identity: 'a' }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await expect(e.run(ac.signal)).rejects.toThrow(/already running/);
    ac.abort();
    await run;
  });

  it('reports leader_election_master_status', async () => {
    const registry = new promClient.Registry();
    const e = createLeaderElector(
      base({ identity: 'a', metrics: prometheusMetrics({ registry, promClient }) }),
    );
    const value = async () =>
      (await registry.getSingleMetric('leader_election_master_status')!.get()).values[0]?.value;
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(await value()).toBe(1);
    ac.abort();
    await run;
    expect(await value()).toBe(0);
  });

  it('isLeader turns false on its own clock at the deadline, even when timers are late', async () => {
    vi.useRealTimers();
    let t = 0;
    // A clock whose timers never fire: only now() moves.
    const frozenTimers: Clock = { now: () => t, setTimeout: () => 0, clearTimeout: () => {} };
    const started = deferred<AbortSignal>();
    const e = createLeaderElector(
      base({ identity: 'a', clock: frozenTimers, onStartedLeading: (s) => started.resolve(s) }),
    );
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await started.promise;
    t = 9_999;
    expect(e.isLeader()).toBe(true);
    t = 10_000;
    expect(e.isLeader()).toBe(false);
    ac.abort();
    await run;
  });
});

describe('createLeaderElector: several electors', () => {
  function start(ids: string[], links = ids.map(() => cuttableApi(api))) {
    const rec = intervalRecorder(now);
    const controllers = ids.map(() => new AbortController());
    const electors = ids.map((id, i) =>
      createLeaderElector(base({ api: links[i]!.api, identity: id, ...rec.callbacks(id) })),
    );
    const runs = electors.map((e, i) => e.run(controllers[i]!.signal));
    return { rec, controllers, electors, runs, links };
  }

  it('exactly one of three leads, and the others see it as leader', async () => {
    const { rec, controllers, electors, runs } = start(['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(leaders(electors)).toHaveLength(1);
    expect(rec.intervals).toHaveLength(1);
    const leader = leaders(electors)[0]!;
    for (const e of electors) expect(e.getLeader()).toBe(leader);
    for (const c of controllers) c.abort();
    await Promise.all(runs);
    rec.assertNoOverlap();
  });

  it('a leader that vanishes without releasing is replaced within lease duration + retry period', async () => {
    const { rec, controllers, electors, runs, links } = start(['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(5000);
    const first = leaders(electors)[0]!;
    const i = electors.findIndex((e) => e.identity === first);
    // The process dies: no more requests, no release.
    links[i]!.link = 'hanging';
    const diedAt = now();
    const deadline = diedAt + 15_000 + 2_000;
    while (rec.intervals.length < 2 && now() < deadline) await vi.advanceTimersByTimeAsync(100);
    expect(rec.intervals).toHaveLength(2);
    const second = rec.intervals[1]!;
    expect(second.who).not.toBe(first);
    expect(second.start - diedAt).toBeLessThanOrEqual(17_000);
    // …and no sooner than a lease duration after its last renewal (at most one retry period before).
    expect(second.start - diedAt).toBeGreaterThan(15_000 - 2_000);
    // The old leader had stopped (renew deadline) before the new one started.
    rec.assertNoOverlap();
    const lease = await readLease();
    expect(lease.spec?.holderIdentity).toBe(second.who);
    expect(lease.spec?.leaseTransitions).toBe(1);
    for (const c of controllers) c.abort();
    await Promise.all(runs);
  });

  it('a graceful release hands over within one retry period', async () => {
    const { rec, controllers, electors, runs } = start(['a', 'b']);
    await vi.advanceTimersByTimeAsync(5000);
    const first = leaders(electors)[0]!;
    const i = electors.findIndex((e) => e.identity === first);
    controllers[i]!.abort();
    await runs[i];
    const releasedAt = now();
    const deadline = releasedAt + 2000;
    while (rec.intervals.length < 2 && now() < deadline) await vi.advanceTimersByTimeAsync(50);
    expect(rec.intervals.map((x) => x.who)).toEqual([first, first === 'a' ? 'b' : 'a']);
    expect(rec.intervals[1]!.start - releasedAt).toBeLessThanOrEqual(2000);
    rec.assertNoOverlap();
    for (const c of controllers) c.abort();
    await Promise.all(runs);
  });

  it('a cut-off leader stops leading before anyone else starts', async () => {
    const { rec, controllers, electors, runs, links } = start(['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(7000);
    const first = leaders(electors)[0]!;
    const i = electors.findIndex((e) => e.identity === first);
    links[i]!.link = 'failing';
    const cutAt = now();
    const deadline = now() + 30_000;
    while (rec.intervals.length < 2 && now() < deadline) await vi.advanceTimersByTimeAsync(100);
    expect(rec.intervals).toHaveLength(2);
    const [old, next] = rec.intervals;
    expect(old!.end).toBeDefined();
    expect(next!.start).toBeGreaterThanOrEqual(old!.end!);
    // The last renewal went out within one retry period (2 s) before the cut: the leader stops
    // within the renew deadline (10 s) of the cut, a successor takes over no sooner than a lease
    // duration (15 s) after that renewal, and at the latest one retry period to see it plus a
    // lease duration plus one retry period later.
    expect(old!.end! - cutAt).toBeGreaterThan(10_000 - 2_000);
    expect(old!.end! - cutAt).toBeLessThanOrEqual(10_000);
    expect(next!.start - cutAt).toBeGreaterThan(15_000 - 2_000);
    expect(next!.start - cutAt).toBeLessThanOrEqual(2_000 + 15_000 + 2_000);
    rec.assertNoOverlap();
    for (const c of controllers) c.abort();
    await Promise.all(runs);
  });

  it('waits a full own lease duration even when someone shortens leaseDurationSeconds in the record', async () => {
    await api.create(LeaseResource, leaseHeldBy('ghost'));
    const { rec, controllers, runs } = start(['a']);
    await vi.advanceTimersByTimeAsync(500);
    const lease = await readLease();
    const editedAt = now();
    await api.update(LeaseResource, { ...lease, spec: { ...lease.spec, leaseDurationSeconds: 1 } });
    const deadline = now() + 20_000;
    while (rec.intervals.length < 1 && now() < deadline) await vi.advanceTimersByTimeAsync(100);
    expect(rec.intervals).toHaveLength(1);
    // The candidate re-observed the edit within one retry period and then waited 15 s.
    expect(rec.intervals[0]!.start - editedAt).toBeGreaterThanOrEqual(15_000);
    controllers[0]!.abort();
    await Promise.all(runs);
  });

  it('counts a record’s stillness from observedSince (a version this process watched earlier), not from its own first read', async () => {
    const created = await api.create(LeaseResource, leaseHeldBy('ghost'));
    const seenAt = now();
    const rv = created.metadata?.resourceVersion ?? '';
    await vi.advanceTimersByTimeAsync(10_000);
    const rec = intervalRecorder(now);
    const stop = new AbortController();
    const late = createLeaderElector(
      base({
        identity: 'late',
        ...rec.callbacks('late'),
        // Only the version watched: a changed record counts from the elector's own read again.
        observedSince: (v) => (v === rv ? seenAt : undefined),
      }),
    );
    const running = late.run(stop.signal);
    while (rec.intervals.length < 1 && now() < seenAt + 30_000) await vi.advanceTimersByTimeAsync(50);
    expect(rec.intervals).toHaveLength(1);
    // 15 s after the version was first seen, not 15 s after the candidate started, and at that
    // moment: not at its next retry period (polling every 2 s from 10 s would first see it at 16 s).
    expect(rec.intervals[0]!.start - seenAt).toBeGreaterThanOrEqual(15_000);
    expect(rec.intervals[0]!.start - seenAt).toBeLessThanOrEqual(15_000 + 50);
    stop.abort();
    await running;
  });

  it('ignores observedSince for another version of the record', async () => {
    const created = await api.create(LeaseResource, leaseHeldBy('ghost'));
    const rec = intervalRecorder(now);
    const stop = new AbortController();
    const startedAt = now();
    const e = createLeaderElector(
      base({
        identity: 'x',
        ...rec.callbacks('x'),
        observedSince: (v) => (v === 'other' ? startedAt - 60_000 : undefined),
      }),
    );
    expect(created.metadata?.resourceVersion).not.toBe('other');
    const running = e.run(stop.signal);
    await vi.advanceTimersByTimeAsync(14_000);
    expect(rec.intervals).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(rec.intervals).toHaveLength(1);
    stop.abort();
    await running;
  });

  it('respects a longer lease duration written by the holder', async () => {
    await api.create(LeaseResource, leaseHeldBy('slow-leader', 60));
    const { rec, controllers, runs } = start(['a']);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(rec.intervals).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(rec.intervals).toHaveLength(1);
    controllers[0]!.abort();
    await Promise.all(runs);
  });

  it('never has two leaders while links flap at random', async () => {
    const { rec, controllers, runs, links } = start(['a', 'b', 'c']);
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const modes = ['up', 'up', 'failing', 'hanging'] as const;
    for (let step = 0; step < 200; step++) {
      const l = links[Math.floor(random() * links.length)]!;
      l.link = modes[Math.floor(random() * modes.length)]!;
      await vi.advanceTimersByTimeAsync(Math.floor(random() * 5000));
      rec.assertNoOverlap();
    }
    expect(rec.intervals.length).toBeGreaterThan(1);
    for (const l of links) l.link = 'up';
    for (const c of controllers) c.abort();
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all(runs);
    rec.assertNoOverlap();
  });
});

/** A Lease held by `holder` (none for `''`). */
function leaseHeldBy(holder: string, seconds = 15): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { namespace: LEASE.namespace, name: LEASE.name },
    spec: {
      ...(holder ? { holderIdentity: holder } : {}),
      leaseDurationSeconds: seconds,
      leaseTransitions: 3,
    },
  } as KubeObject;
}

describe('createLeaderElector: a candidate that cannot reach the Lease', () => {
  it('warns (once per lease duration for the same error) instead of waiting silently', async () => {
    const logger = recordingLogger();
    api.cluster.failAlways('get', { code: 403, message: 'leases.coordination.k8s.io is forbidden' });
    const e = createLeaderElector(base({ identity: 'a', logger }));
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(20_000);
    const warnings = logger.records.filter((r) => r.level === 'warn');
    expect(warnings).toHaveLength(2); // at 0 s and at 16 s
    expect(warnings[0]!.message).toBe('reading the Lease failed; still campaigning');
    expect(String((warnings[0]!.fields.err as Error).message)).toMatch(/forbidden/);
    expect(e.isLeader()).toBe(false);
    ac.abort();
    await run;
    api.cluster.clearFailures();
  });
});
