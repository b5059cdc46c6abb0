import { describe, expect, it } from 'vitest';
import { ClientTestError } from './client-test-error.ts';
import { createEventTracker, trackerHandler } from './event-tracker.ts';

describe('createEventTracker', () => {
  it('waits for events recorded before and after the call, in order', async () => {
    const t = createEventTracker();
    t.record('a');
    const waiting = t.waitOrdered('a', 'b', 'c');
    t.record('b');
    queueMicrotask(() => t.record('c'));
    await waiting;
    await t.empty();
  });

  it('fails fast on a wrong order and on extra events', async () => {
    const t = createEventTracker();
    t.record('b');
    await expect(t.waitOrdered('a')).rejects.toThrow(/event #1 was b instead of a/);
    t.record('a');
    t.record('extra');
    await expect(t.waitOrdered('a')).rejects.toThrow(/expected no more events, got: extra/);
  });

  it('waits for a set in any order and rejects strangers', async () => {
    const t = createEventTracker();
    t.record('y');
    t.record('x');
    await t.waitUnordered('x', 'y');
    t.record('z');
    await expect(t.waitUnordered('x')).rejects.toThrow(/unexpected event z while waiting for x/);
  });

  it('times out with what it waited for, and leaves no waiter behind', async () => {
    const t = createEventTracker({ timeoutMs: 20 });
    const err = await t.waitOrdered('never').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientTestError);
    expect((err as Error).message).toMatch(/timed out after 20 ms waiting for never/);
    t.record('late');
    expect(t.events()).toEqual(['late']); // the timed-out waiter did not swallow it
  });

  it('waitFor checks the next event with a predicate; events of any type', async () => {
    const t = createEventTracker<{ n: number }>();
    t.record({ n: 1 });
    expect(await t.waitFor((e) => e.n === 1)).toEqual({ n: 1 });
    t.record({ n: 2 });
    await expect(t.waitFor((e) => e.n === 1, 'n=1')).rejects.toThrow(/is not n=1/);
    t.record({ n: 3 });
    await t.waitOrdered({ n: 3 });
    t.record({ n: 4 });
    t.clear();
    await t.empty();
    expect(t.all()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]); // consumed or not
  });

  it('empty() lets events on their way arrive before it checks', async () => {
    const t = createEventTracker();
    setImmediate(() => t.record('late'));
    await expect(t.empty()).rejects.toThrow(/expected no more events, got: late/);
  });

  it('trackerHandler records add, update and delete by name, unwrapping tombstones', async () => {
    const t = createEventTracker();
    const h = trackerHandler(t);
    const obj = { metadata: { name: 'n' } };
    h.onAdd?.(obj, true);
    h.onUpdate?.(obj, obj);
    h.onDelete?.({ tombstone: true, key: 'n', obj });
    await t.waitOrdered('add/n', 'update/n', 'delete/n');
  });
});
