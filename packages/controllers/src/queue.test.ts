import { noopLogger, type ObjectKey } from '@kubeloom/kube';
import { recordingLogger } from '@kubeloom/kube/fake';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Deferred, deferred, flushMicrotasks } from '../test/deferred.ts';
import type { Clock } from './clock.ts';
import { createQueue } from './create-queue.ts';
import { type Queue, TerminalError } from './queue.ts';
import type { RateLimiter } from './rate-limiter.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const key = (name: string, namespace = 'ns'): ObjectKey => ({ namespace, name });

/** Whether `promise` has settled, after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await flushMicrotasks();
  return done;
}

describe('createQueue', () => {
  it('deduplicates keys that are waiting and processes the latest value', async () => {
    const seen: Array<ObjectKey & { v?: number }> = [];
    const q = createQueue<ObjectKey & { v?: number }>({ reconciler: (k) => void seen.push(k) });
    q.add({ ...key('a'), v: 1 });
    q.add({ ...key('a'), v: 2 });
    q.add(key('b'));
    q.add({ ...key('a'), v: 3 });
    expect(q.size).toBe(2);
    const ac = new AbortController();
    const done = q.run(ac.signal);
    await vi.waitFor(() => expect(q.hasSynced()).toBe(true));
    expect(seen).toEqual([{ ...key('a'), v: 3 }, key('b')]);
    ac.abort();
    await done;
    expect(await settled(q.closed)).toBe(true);
  });

  it('processes the latest value when string keys and object keys for the same key are mixed', async () => {
    const seen: Array<string | ObjectKey> = [];
    const gate = deferred();
    const q = createQueue<string | ObjectKey>({
      reconciler: async (k) => {
        seen.push(k);
        if (seen.length === 1) await gate.promise;
      },
    });
    q.add(key('a'));
    q.add('ns/a'); // the string wins over the object added before it
    q.add('ns/b');
    q.add(key('b')); // and the object over the string
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    expect(seen).toEqual(['ns/a']);
    q.add(key('a')); // added while 'ns/a' runs: processed again afterwards, with this value
    gate.resolve();
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen).toEqual(['ns/a', key('b'), key('a')]);
    ac.abort();
    await run;
  });

  it('keys strings as they are and object keys as namespace/name', async () => {
    const seen: string[] = [];
    const strings = createQueue<string>({ reconciler: (k) => void seen.push(k) });
    strings.add('x');
    strings.add('x');
    const objects = createQueue({ reconciler: (k) => void seen.push(`${k.namespace ?? '-'}|${k.name}`) });
    objects.add({ name: 'cluster-scoped' });
    objects.add({ namespace: 'n', name: 'o' });
    objects.addObject({ metadata: { namespace: 'n', name: 'o' } });
    const ac = new AbortController();
    const runs = [strings.run(ac.signal), objects.run(ac.signal)];
    await vi.waitFor(() => expect(strings.hasSynced() && objects.hasSynced()).toBe(true));
    expect(seen).toEqual(['x', '-|cluster-scoped', 'n|o']);
    ac.abort();
    await Promise.all(runs);
  });

  it('uses keyFunc for other key types, and says what to do when it is missing', async () => {
    type Pair = { a: number; b: number };
    const bad = createQueue<Pair>({ name: 'pairs', reconciler: () => {} });
    expect(() => bad.add({ a: 1, b: 2 })).toThrow(/queue "pairs": cannot derive a key .*pass keyFunc/);
    const seen: Pair[] = [];
    const q = createQueue<Pair>({ reconciler: (p) => void seen.push(p), keyFunc: (p) => `${p.a}` });
    q.add({ a: 1, b: 1 });
    q.add({ a: 1, b: 2 });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.waitFor(() => expect(q.hasSynced()).toBe(true));
    expect(seen).toEqual([{ a: 1, b: 2 }]);
    ac.abort();
    await run;
    await bad[Symbol.asyncDispose]();
  });

  // 4 workers check a running key by scanning their slots, 12 through a set of running keys.
  it.each([4, 12])(
    'never processes one key on two workers, and re-processes a key added during processing (%i workers)',
    async (workers) => {
      const gates = new Map<string, Array<Deferred>>();
      const running = new Set<string>();
      let overlap = 0;
      const calls: string[] = [];
      const q = createQueue<string>({
        workers,
        reconciler: async (k) => {
          if (running.has(k)) overlap++;
          running.add(k);
          calls.push(k);
          const gate = deferred();
          gates.set(k, [...(gates.get(k) ?? []), gate]);
          await gate.promise;
          running.delete(k);
        },
      });
      const ac = new AbortController();
      const run = q.run(ac.signal);
      q.add('a');
      q.add('b');
      await flushMicrotasks();
      expect([...running].sort()).toEqual(['a', 'b']);
      // 'a' is being processed: re-adding it (twice) queues it once, and no worker picks it up.
      q.add('a');
      q.add('a');
      await flushMicrotasks();
      expect(calls).toEqual(['a', 'b']);
      expect(q.size).toBe(0);
      gates.get('a')![0]!.resolve();
      await flushMicrotasks();
      expect(calls).toEqual(['a', 'b', 'a']);
      gates.get('a')![1]!.resolve();
      gates.get('b')![0]!.resolve();
      await flushMicrotasks();
      expect(calls).toEqual(['a', 'b', 'a']);
      expect(overlap).toBe(0);
      ac.abort();
      await run;
    },
  );

  it('keeps its guarantees under random adds and random reconcile durations with 4 workers', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    let clock = 0; // a sequence number, so "before" and "after" are exact
    const running = new Set<string>();
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    let overlaps = 0;
    let reconciles = 0;
    const q = createQueue<string>({
      workers: 4,
      reconciler: async (k) => {
        if (running.has(k)) overlaps++;
        running.add(k);
        reconciles++;
        lastStart.set(k, ++clock);
        await new Promise((r) => setTimeout(r, Math.floor(random() * 50)));
        running.delete(k);
      },
    });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    let adds = 0;
    for (let i = 0; i < 2000; i++) {
      setTimeout(
        () => {
          const k = `k${Math.floor(random() * 10)}`;
          lastAdd.set(k, ++clock);
          adds++;
          q.add(k);
        },
        Math.floor(random() * 1000),
      );
    }
    await vi.advanceTimersByTimeAsync(2000);
    expect(adds).toBe(2000);
    expect(overlaps).toBe(0);
    expect(running.size).toBe(0);
    expect(reconciles).toBeLessThan(adds); // deduplicated
    // Every key was reconciled after its last add.
    for (const [k, added] of lastAdd) expect(lastStart.get(k)!).toBeGreaterThan(added);
    ac.abort();
    await run;
  });

  it('keeps its guarantees when reconciles return synchronously, return promises or thenables, throw, and re-add their own key', async () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    let clock = 0;
    const running = new Set<string>();
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    const kinds = new Map<string, number>();
    let overlaps = 0;
    let readds = 0;
    let q!: Queue<string>;
    const end = (k: string) => running.delete(k);
    q = createQueue<string>({
      workers: 3,
      maxAttempts: 3,
      logger: noopLogger,
      reconciler: (k) => {
        if (running.has(k)) overlaps++;
        running.add(k);
        lastStart.set(k, ++clock);
        const kind = Math.floor(random() * 5);
        kinds.set(String(kind), (kinds.get(String(kind)) ?? 0) + 1);
        if (kind === 0) {
          end(k);
          return; // synchronous success
        }
        if (kind === 1) {
          // Synchronous, re-adding its own key while it runs: processed once more afterwards.
          readds++;
          lastAdd.set(k, ++clock);
          q.add(k);
          end(k);
          return;
        }
        if (kind === 2) {
          end(k);
          throw new Error('synchronous failure'); // retried through the rate limiter
        }
        if (kind === 3) {
          // A thenable that is not a Promise.
          return {
            // biome-ignore lint/suspicious/noThenProperty: the queue must await any thenable
            then(resolve: (v: undefined) => void) {
              setTimeout(
                () => {
                  end(k);
                  resolve(undefined);
                },
                Math.floor(random() * 20),
              );
            },
          } as unknown as Promise<void>;
        }
        return new Promise<void>((resolve) =>
          setTimeout(
            () => {
              end(k);
              resolve();
            },
            Math.floor(random() * 20),
          ),
        );
      },
    });
    for (let i = 0; i < 200; i++) q.add(`k${i % 40}`);
    for (let i = 0; i < 40; i++) lastAdd.set(`k${i}`, 0);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    for (let i = 0; i < 1500; i++) {
      setTimeout(
        () => {
          const k = `k${Math.floor(random() * 40)}`;
          lastAdd.set(k, ++clock);
          q.add(k);
        },
        Math.floor(random() * 1000),
      );
    }
    await vi.advanceTimersByTimeAsync(5000);
    for (const kind of ['0', '1', '2', '3', '4']) expect(kinds.get(kind)).toBeGreaterThan(20);
    expect(readds).toBeGreaterThan(0);
    expect(overlaps).toBe(0);
    expect(running.size).toBe(0);
    expect(q.hasSynced()).toBe(true);
    expect(q.size).toBe(0);
    // Every key was reconciled after its last add, including the adds made by its own reconcile.
    for (const [k, added] of lastAdd) expect(lastStart.get(k)!).toBeGreaterThan(added);
    ac.abort();
    await run;
  });

  it('runs distinct keys in parallel up to `workers`', async () => {
    const gate = deferred();
    let concurrent = 0;
    let peak = 0;
    const q = createQueue<string>({
      workers: 3,
      reconciler: async () => {
        concurrent++;
        peak = Math.max(peak, concurrent);
        await gate.promise;
        concurrent--;
      },
    });
    for (const k of ['a', 'b', 'c', 'd', 'e']) q.add(k);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    expect(peak).toBe(3);
    gate.resolve();
    await vi.waitFor(() => expect(q.hasSynced()).toBe(true));
    ac.abort();
    await run;
  });

  it('hasSynced turns true only after every key added before run finished, even with parallel workers', async () => {
    const gates = new Map<string, Deferred>();
    const q = createQueue<string>({
      workers: 4,
      reconciler: async (k) => {
        const g = deferred();
        gates.set(k, g);
        await g.promise;
      },
    });
    q.add('slow');
    q.add('fast');
    expect(q.hasSynced()).toBe(false);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    q.add('after-run');
    gates.get('fast')!.resolve();
    await flushMicrotasks();
    // The sync marker was dequeued, but 'slow' (added before run) is still running.
    expect(q.hasSynced()).toBe(false);
    gates.get('slow')!.resolve();
    await flushMicrotasks();
    // 'after-run' may still be running: it does not hold back sync.
    expect(gates.has('after-run')).toBe(true);
    expect(q.hasSynced()).toBe(true);
    gates.get('after-run')!.resolve();
    ac.abort();
    await run;
  });

  it('hasSynced is true at once for an empty queue once it runs', async () => {
    const q = createQueue<string>({ reconciler: () => {} });
    const ac = new AbortController();
    expect(q.hasSynced()).toBe(false);
    const run = q.run(ac.signal);
    await flushMicrotasks();
    expect(q.hasSynced()).toBe(true);
    ac.abort();
    await run;
  });

  it('does not retry by default, and logs the dropped key', async () => {
    const logger = recordingLogger();
    let calls = 0;
    const q = createQueue<string>({
      logger,
      reconciler: () => {
        calls++;
        throw new Error('boom');
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(1);
    expect(logger.records.filter((r) => r.level === 'error').map((r) => r.fields.key)).toEqual(['k']);
    expect(logger.records[0]!.message).toMatch(/retries are off/);
    ac.abort();
    await run;
  });

  it('retries a failing key maxAttempts times in all, with exponential backoff 5, 10, 20, 40 ms', async () => {
    const logger = recordingLogger();
    const attempts: Array<{ at: number; attempt: number }> = [];
    const start = performance.now();
    const q = createQueue<string>({
      logger,
      maxAttempts: 5,
      reconciler: (_k, ctx) => {
        attempts.push({ at: performance.now() - start, attempt: ctx.attempt });
        throw new Error('still failing');
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(attempts).toEqual([
      { at: 0, attempt: 1 },
      { at: 5, attempt: 2 },
      { at: 15, attempt: 3 },
      { at: 35, attempt: 4 },
      { at: 75, attempt: 5 },
    ]);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(4);
    const errors = logger.records.filter((r) => r.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/retry budget is exhausted/);
    // Dropping forgets the failures: a new event starts over at attempt 1.
    expect(q.requeues('k')).toBe(0);
    ac.abort();
    await run;
  });

  it('a success resets the backoff', async () => {
    const attempts: number[] = [];
    let fail = true;
    const q = createQueue<string>({
      logger: noopLogger,
      maxAttempts: 10,
      reconciler: (_k, ctx) => {
        attempts.push(ctx.attempt);
        if (fail) throw new Error('x');
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(15);
    expect(attempts).toEqual([1, 2, 3]);
    fail = false;
    await vi.advanceTimersByTimeAsync(20);
    expect(attempts).toEqual([1, 2, 3, 4]);
    expect(q.requeues('k')).toBe(0);
    fail = true;
    q.add('k');
    await flushMicrotasks();
    expect(attempts).toEqual([1, 2, 3, 4, 1]);
    ac.abort();
    await run;
  });

  it('drops a key at once on a TerminalError', async () => {
    const logger = recordingLogger();
    let calls = 0;
    const q = createQueue<string>({
      logger,
      maxAttempts: 5,
      reconciler: () => {
        calls++;
        throw new TerminalError('invalid spec');
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
    expect(logger.records.map((r) => r.message)).toEqual([
      'reconcile failed with a terminal error; dropping the key',
    ]);
    ac.abort();
    await run;
  });

  it('requeues after the delay a reconciler asks for', async () => {
    const at: number[] = [];
    const start = performance.now();
    const q = createQueue<string>({
      reconciler: () => {
        at.push(performance.now() - start);
        return at.length < 3 ? { requeueAfterMs: 1000 } : undefined;
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(5000);
    expect(at).toEqual([0, 1000, 2000]);
    ac.abort();
    await run;
  });

  it('addAfter keeps the earliest pending delay per key', async () => {
    const at: Array<[string, number]> = [];
    const start = performance.now();
    const q = createQueue<string>({ reconciler: (k) => void at.push([k, performance.now() - start]) });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    q.addAfter('a', 300);
    q.addAfter('a', 100);
    q.addAfter('a', 200);
    q.addAfter('b', 150);
    q.addAfter('c', 0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(at).toEqual([
      ['c', 0],
      ['a', 100],
      ['b', 150],
    ]);
    expect(() => q.addAfter('x', Number.NaN)).toThrow(/delay in milliseconds/);
    ac.abort();
    await run;
  });

  it('reaches delays beyond the longest timer (2^31 − 1 ms) in steps, without spinning', async () => {
    const MAX = 2 ** 31 - 1;
    const armed: number[] = [];
    // The system clock on fake timers, which, like Node, fire a timer above MAX after 1 ms.
    const clock: Clock = {
      now: () => performance.now(),
      setTimeout: (fn, ms) => {
        armed.push(ms);
        return setTimeout(fn, ms);
      },
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    };
    const at: Array<[string, number]> = [];
    const start = performance.now();
    const q = createQueue<string>({
      clock,
      reconciler: (k) => {
        at.push([k, performance.now() - start]);
        return k === 'poll' && at.length === 1 ? { requeueAfterMs: 2 * MAX + 5 } : undefined;
      },
    });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    q.addAfter('far', MAX + 1000);
    q.add('poll');
    await vi.advanceTimersByTimeAsync(100);
    // One timer for the earliest due time, capped: no re-arming every millisecond.
    expect(at).toEqual([['poll', 0]]);
    expect(armed).toEqual([MAX]);
    await vi.advanceTimersByTimeAsync(MAX + 999 - 100);
    expect(at).toEqual([['poll', 0]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toEqual([
      ['poll', 0],
      ['far', MAX + 1000],
    ]);
    await vi.advanceTimersByTimeAsync(MAX);
    expect(at).toHaveLength(3);
    expect(at[2]).toEqual(['poll', 2 * MAX + 5]);
    expect(Math.max(...armed)).toBeLessThanOrEqual(MAX);
    expect(armed.length).toBeLessThanOrEqual(6);
    ac.abort();
    await run;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses negative, NaN and infinite delays with a clear error', async () => {
    const q = createQueue<string>({ name: 'delays', reconciler: () => {} });
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => q.addAfter('k', bad)).toThrow(RangeError);
      expect(() => q.addAfter('k', bad)).toThrow(
        `queue "delays": addAfter needs a finite delay in milliseconds ≥ 0, got ${bad}`,
      );
    }
    expect(() => q.addAfter('k', '5' as unknown as number)).toThrow(/got "5"/);
    const infinite: RateLimiter = {
      when: () => Number.POSITIVE_INFINITY,
      forget: () => {},
      requeues: () => 0,
    };
    const limited = createQueue<string>({ name: 'limited', rateLimiter: infinite, reconciler: () => {} });
    expect(() => limited.addRateLimited('k')).toThrow(/queue "limited": the rate limiter .* got Infinity/);
    expect(vi.getTimerCount()).toBe(0);
    expect(q.size + limited.size).toBe(0);
    await q[Symbol.asyncDispose]();
    await limited[Symbol.asyncDispose]();
  });

  it('uses a custom rate limiter', async () => {
    const whens: string[] = [];
    const forgets: string[] = [];
    let requeues = 0;
    const limiter: RateLimiter = {
      when: (k) => {
        whens.push(k);
        requeues++;
        return 777;
      },
      forget: (k) => {
        forgets.push(k);
        requeues = 0;
      },
      requeues: () => requeues,
    };
    const at: number[] = [];
    const start = performance.now();
    const q = createQueue({
      logger: noopLogger,
      maxAttempts: 3,
      rateLimiter: limiter,
      reconciler: () => {
        at.push(performance.now() - start);
        throw new Error('x');
      },
    });
    q.add({ namespace: 'n', name: 'a' });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(5000);
    expect(at).toEqual([0, 777, 1554]);
    expect(whens).toEqual(['n/a', 'n/a']);
    expect(forgets).toEqual(['n/a']);
    ac.abort();
    await run;
  });

  it('on stop lets in-flight work finish, starts nothing new and ignores later adds', async () => {
    const gate = deferred();
    const started: string[] = [];
    let finished = 0;
    const q = createQueue<string>({
      workers: 1,
      reconciler: async (k, ctx) => {
        started.push(k);
        await gate.promise;
        expect(ctx.signal.aborted).toBe(true);
        finished++;
      },
    });
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    expect(started).toEqual(['a']);
    ac.abort();
    q.add('d');
    expect(q.size).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(await settled(q.closed)).toBe(false); // the in-flight reconcile still runs
    gate.resolve();
    await run;
    expect(await settled(q.closed)).toBe(true);
    expect(started).toEqual(['a']);
    expect(finished).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(['a']);
  });

  it('a failure during shutdown is not retried', async () => {
    const logger = recordingLogger();
    const gate = deferred();
    const q = createQueue<string>({
      logger,
      maxAttempts: 5,
      reconciler: async () => {
        await gate.promise;
        throw new Error('interrupted');
      },
    });
    q.add('a');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    ac.abort();
    gate.resolve();
    await run;
    expect(logger.records.map((r) => r.message)).toEqual([
      'reconcile failed while the queue was stopping; not retried',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timers behind after stop, even with delayed adds and a wait on closed pending', async () => {
    const q = createQueue<string>({
      logger: noopLogger,
      maxAttempts: 3,
      reconciler: () => Promise.reject(new Error('x')),
    });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    q.add('a');
    q.addAfter('b', 60_000);
    await flushMicrotasks();
    const closing = q.closed;
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    ac.abort();
    await run;
    await closing;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('await using closes a queue that never ran and releases its timers', async () => {
    let calls = 0;
    let escaped: Queue<string> | undefined;
    {
      await using q = createQueue<string>({ reconciler: () => void calls++ });
      q.add('a');
      q.addAfter('b', 1000);
      expect(vi.getTimerCount()).toBe(1);
      escaped = q;
    }
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled(escaped.closed)).toBe(true);
    expect(escaped.size).toBe(0);
    escaped.add('c'); // ignored
    expect(escaped.size).toBe(0);
    // Running it afterwards returns at once and processes nothing.
    await escaped.run(new AbortController().signal);
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(0);
    expect(escaped.hasSynced()).toBe(false);
  });

  it('await using stops a running queue without its signal, after the in-flight reconcile', async () => {
    const gate = deferred();
    const started: string[] = [];
    const signal = new AbortController().signal;
    let run: Promise<void> = Promise.resolve();
    let disposed = false;
    const scope = (async () => {
      await using q = createQueue<string>({
        reconciler: async (k) => {
          started.push(k);
          await gate.promise;
        },
      });
      q.add('a');
      q.add('b');
      run = q.run(signal);
      await flushMicrotasks();
      expect(started).toEqual(['a']);
    })().then(() => {
      disposed = true;
    });
    await flushMicrotasks();
    expect(disposed).toBe(false); // disposal waits for the in-flight reconcile
    gate.resolve();
    await scope;
    await run;
    expect(signal.aborted).toBe(false);
    expect(started).toEqual(['a']);
  });

  it('a run signal that is already aborted closes the queue without processing', async () => {
    let calls = 0;
    const q = createQueue<string>({ reconciler: () => void calls++ });
    q.add('a');
    await q.run(AbortSignal.abort());
    expect(calls).toBe(0);
    expect(await settled(q.closed)).toBe(true);
  });

  it('refuses bad options and a second run with clear errors', async () => {
    expect(() => createQueue({ reconciler: () => {}, workers: 0 })).toThrow(
      /workers must be an integer ≥ 1, got 0/,
    );
    expect(() => createQueue({ reconciler: () => {}, maxAttempts: -1 })).toThrow(
      /maxAttempts must be an integer ≥ 0/,
    );
    expect(() => createQueue({ reconciler: () => {}, maxAttempts: 1.5 })).toThrow(/maxAttempts/);
    expect(() => createQueue({} as never)).toThrow(/reconciler must be a function/);
    const q = createQueue<string>({ name: 'once', reconciler: () => {} });
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await expect(q.run(ac.signal)).rejects.toThrow(/queue "once": run was called twice/);
    const objects = createQueue({ reconciler: () => {} });
    expect(() => objects.addObject({ metadata: {} })).toThrow(/needs an object with metadata.name/);
    expect(() => objects.add({ name: '' })).toThrow(/empty name/);
    await objects[Symbol.asyncDispose]();
    ac.abort();
    await run;
  });

  it('fails the reconcile, not the worker, when the returned object has a throwing then getter', async () => {
    const logger = recordingLogger();
    const seen: string[] = [];
    const q = createQueue<string>({
      logger,
      reconciler: (k) => {
        seen.push(k);
        if (k !== 'bad') return;
        return Object.defineProperty({}, 'then', {
          get() {
            throw new Error('then getter');
          },
        }) as unknown as Promise<void>;
      },
    });
    q.add('bad');
    q.add('good');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await flushMicrotasks();
    expect(seen).toEqual(['bad', 'good']);
    expect(logger.records.map((r) => r.message)).toContain(
      'reconcile failed; dropping the key (retries are off: set maxAttempts to retry)',
    );
    // The key is not left running: added again, it is processed again.
    q.add('bad');
    await flushMicrotasks();
    expect(seen).toEqual(['bad', 'good', 'bad']);
    ac.abort();
    await expect(run).resolves.toBeUndefined();
  });

  it('logs an invalid requeueAfterMs instead of wedging the key', async () => {
    const logger = recordingLogger();
    let calls = 0;
    const q = createQueue<string>({
      logger,
      reconciler: () => {
        calls++;
        return { requeueAfterMs: Number.POSITIVE_INFINITY };
      },
    });
    q.add('k');
    const ac = new AbortController();
    const run = q.run(ac.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(logger.records[0]?.message).toMatch(/invalid requeueAfterMs/);
    q.add('k');
    await flushMicrotasks();
    expect(calls).toBe(2);
    ac.abort();
    await run;
  });

  it('lets the event loop run while a synchronous reconciler drains a large backlog', async () => {
    vi.useRealTimers();
    let processed = 0;
    const q = createQueue<number>({ reconciler: () => void processed++, keyFunc: (n) => String(n) });
    for (let i = 0; i < 5000; i++) q.add(i);
    const ac = new AbortController();
    const run = q.run(ac.signal);
    // A macrotask scheduled now runs before the backlog is done.
    const seenMidway = await new Promise<number>((resolve) => setImmediate(() => resolve(processed)));
    expect(seenMidway).toBeLessThan(5000);
    await vi.waitFor(() => expect(processed).toBe(5000));
    ac.abort();
    await run;
  });

  it('lets timers run while instantly-resolving async reconciles drain a large backlog', async () => {
    vi.useRealTimers();
    const total = 20_000;
    let processed = 0;
    const q = createQueue<number>({
      keyFunc: (n) => String(n),
      reconciler: async (n) => {
        // Make sure the timer below is due before the worker gets going.
        if (n === 0) for (const until = performance.now() + 5; performance.now() < until; );
        processed++;
      },
    });
    for (let i = 0; i < total; i++) q.add(i);
    const seenByTimer = new Promise<number>((resolve) => setTimeout(() => resolve(processed), 0));
    const ac = new AbortController();
    const run = q.run(ac.signal);
    expect(await seenByTimer).toBeLessThan(total);
    await vi.waitFor(() => expect(processed).toBe(total), { timeout: 20_000 });
    ac.abort();
    await run;
  });
});
