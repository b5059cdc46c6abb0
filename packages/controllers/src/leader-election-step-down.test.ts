import { type ApiClient, noopLogger } from '@kubeloom/kube';
import { createFakeApiClient, type FakeApiClient } from '@kubeloom/kube/fake';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '../test/deferred.ts';
import { cuttableApi, intervalRecorder } from '../test/lease-harness.ts';
import { createLeaderElector } from './create-leader-elector.ts';
import { LeaseResource } from './internal/lease.ts';
import type { LeaderElectionOptions } from './leader-election.ts';

// Issue 10, item 5: a leader that has stepped down stops renewing. Over a slow link (each request
// is served at once, its response comes back late) every renewal lands in the Lease although the
// leader never sees it succeed, so it steps down at the renew deadline. Campaigning again (as
// krt's status writer does), it must act like any candidate: write nothing until the record it
// sees stayed unchanged for a full lease duration.

const LEASE = { namespace: 'kube-system', name: 'step-down' };
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
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

const base = (overrides: Partial<LeaderElectionOptions>): LeaderElectionOptions => ({
  api,
  lease: LEASE,
  logger: noopLogger,
  onStartedLeading: () => {},
  ...overrides,
});

/** Advances fake time in small steps until `condition` holds; fails after `limitMs` of fake time. */
async function advanceUntil<T>(what: string, condition: () => T, limitMs: number): Promise<NonNullable<T>> {
  for (let waited = 0; ; waited += 100) {
    const value = condition();
    if (value) return value as NonNullable<T>;
    if (waited >= limitMs) throw new Error(`${what} did not happen within ${limitMs} ms (fake time)`);
    await vi.advanceTimersByTimeAsync(100);
  }
}

/** Wraps `inner` so every Lease write it forwards is recorded (with the fake time it landed). */
function recordWrites(inner: ApiClient, writes: number[]): ApiClient {
  return {
    ...inner,
    create: ((...args: Parameters<ApiClient['create']>) => {
      writes.push(now());
      return inner.create(...args);
    }) as ApiClient['create'],
    update: ((...args: Parameters<ApiClient['update']>) => {
      writes.push(now());
      return inner.update(...args);
    }) as ApiClient['update'],
  };
}

/** Runs `run` again each time it resolves, until `signal` aborts (like krt's status writer). */
async function campaign(run: (signal: AbortSignal) => Promise<void>, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) await run(signal);
}

describe('createLeaderElector: after stepping down', () => {
  it('a leader that stepped down over a slow link writes nothing until the record expired, and another takes over', async () => {
    const writesA: number[] = [];
    const linkA = cuttableApi(recordWrites(api, writesA));
    const rec = intervalRecorder(now);
    let stoppedAt: number | undefined;
    const a = createLeaderElector(
      base({
        api: linkA.api,
        identity: 'a',
        ...rec.callbacks('a'),
        onStoppedLeading: () => {
          stoppedAt ??= now();
        },
      }),
    );
    const b = createLeaderElector(base({ identity: 'b', ...rec.callbacks('b') }));
    const ac = new AbortController();
    const runs = [campaign((s) => a.run(s), ac.signal)];
    await advanceUntil('a to lead', () => a.isLeader(), 1_000);
    runs.push(campaign((s) => b.run(s), ac.signal));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.isLeader()).toBe(true);

    // Reads come back in 3 s, so each renewal's write is sent and lands; its response would come
    // 3 s later, past the attempt's timeout (half the time left before the renew deadline: at
    // most 5 s, less on every later attempt).
    linkA.slowMs = 3_000;
    linkA.link = 'slow';
    const slowFrom = now();
    const stopped = await advanceUntil('a to step down', () => stoppedAt, 20_000);
    const landedBeforeStop = writesA.filter((t) => t > slowFrom && t <= stopped);
    expect(landedBeforeStop.length).toBeGreaterThan(0); // the slow renewals did land
    const lastLanded = Math.max(...landedBeforeStop);

    await advanceUntil('b to lead', () => b.isLeader(), LEASE_MS + 10 * RETRY_MS);
    const bStart = rec.intervals.find((i) => i.who === 'b')!.start;
    // Nothing from a landed between its step-down and b's take-over: it campaigned like any
    // candidate, waiting for the record to stay unchanged for a lease duration.
    expect(writesA.filter((t) => t > stopped && t < bStart)).toEqual([]);
    expect(bStart - lastLanded).toBeGreaterThanOrEqual(LEASE_MS);
    rec.assertNoOverlap();
    const lease = await api.get({ resource: LeaseResource, name: LEASE.name, namespace: LEASE.namespace });
    expect(lease.spec?.holderIdentity).toBe('b');

    linkA.link = 'up';
    ac.abort();
    await Promise.all(runs);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a re-run after stepping down waits out its own record like any candidate, then takes over as a new term', async () => {
    const link = cuttableApi(api);
    const started = deferred<AbortSignal>();
    let starts = 0;
    const e = createLeaderElector(
      base({
        api: link.api,
        identity: 'a',
        onStartedLeading: (s) => {
          starts++;
          started.resolve(s);
        },
      }),
    );
    let firstDone = false;
    const first = e.run(new AbortController().signal).then(() => (firstDone = true));
    await started.promise;
    link.link = 'failing';
    await advanceUntil('a to step down', () => firstDone, 20_000); // the Lease still names a
    await first;
    const stoppedAt = now();
    const held = await api.get({ resource: LeaseResource, name: LEASE.name, namespace: LEASE.namespace });
    expect(held.spec?.holderIdentity).toBe('a');

    link.link = 'up';
    const writes = api.cluster.requestCount('update');
    const ac = new AbortController();
    const second = e.run(ac.signal);
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    // The record is its own, but it stepped down: no write before the record expired.
    expect(api.cluster.requestCount('update')).toBe(writes);
    expect(e.isLeader()).toBe(false);
    await advanceUntil('a to lead again', () => e.isLeader(), LEASE_MS + 2 * RETRY_MS);
    expect(starts).toBe(2);
    // Its last renewal (at most a renew deadline before stopping) aged a full lease duration.
    expect(now() - stoppedAt).toBeGreaterThanOrEqual(LEASE_MS - 10_000);
    const lease = await api.get({ resource: LeaseResource, name: LEASE.name, namespace: LEASE.namespace });
    expect(lease.spec?.holderIdentity).toBe('a');
    expect(lease.spec?.leaseTransitions).toBe(1);
    expect(lease.spec?.acquireTime).not.toBe(held.spec?.acquireTime);
    ac.abort();
    await second;
    expect(vi.getTimerCount()).toBe(0);
  });
});
