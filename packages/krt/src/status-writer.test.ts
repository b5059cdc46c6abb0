/**
 * The status writer's leadership gate, on static collections: `'manual'` leadership writes only
 * within `lead(signal)`, resyncs when a term starts, aborts in-flight writes when it ends, and
 * the low-level `isLeader()` hook still applies.
 */

import { noopLogger } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pod, type TestPod } from '../test/fixtures.ts';
import { staticCollection } from './static.ts';
import { statusCollection } from './status.ts';
import { startStatusWriter } from './status-writer.ts';
import { settle } from './testing/tracker.ts';

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

describe('status writer leadership', () => {
  it("'manual': writes only within lead(signal), resyncing when a term starts", async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>(
      [pod('ns', 'a', { ip: '1.1.1.1' }), pod('ns', 'b', { ip: '2.2.2.2' })],
      {
        signal,
      },
    );
    const { status } = statusCollection(pods, (_ctx, p) => [{ ip: p.status?.podIP }, undefined], {
      signal,
      name: 'ips',
    });
    const writes: string[] = [];
    let hookAllows = true;
    const writer = startStatusWriter(status, {
      signal,
      leadership: 'manual',
      isLeader: () => hookAllows,
      logger: noopLogger,
      write: async (obj, s) => {
        writes.push(`${obj.metadata.name}=${s?.ip}`);
      },
    });
    await waitFor('both keys declined', () => writer.stats().skippedNotLeader === 2);
    expect(writes).toEqual([]);
    expect(writer.isWriting()).toBe(false);

    const term = new AbortController();
    const leading = writer.lead(term.signal);
    expect(writer.isWriting()).toBe(true);
    await waitFor('the resync to write both', () => writes.length === 2);
    expect(writes.sort()).toEqual(['a=1.1.1.1', 'b=2.2.2.2']);

    pods.update(pod('ns', 'a', { ip: '3.3.3.3' }));
    await waitFor('the change to be written', () => writes.length === 3);
    expect(writes[2]).toBe('a=3.3.3.3');

    // The low-level hook gates too.
    hookAllows = false;
    pods.update(pod('ns', 'a', { ip: '4.4.4.4' }));
    await waitFor('the hook to decline', () => writer.stats().skippedNotLeader === 3);
    hookAllows = true;

    term.abort();
    await leading;
    expect(writer.isWriting()).toBe(false);
    pods.update(pod('ns', 'b', { ip: '5.5.5.5' }));
    pods.delete('ns/a');
    await waitFor('both changes declined', () => writer.stats().skippedNotLeader === 5);
    expect(writes).toHaveLength(3);

    // A new term writes what was declined, the clear of the deleted object included.
    const term2 = new AbortController();
    void writer.lead(term2.signal);
    await waitFor('the second resync', () => writes.length === 5);
    expect(writes.slice(3).sort()).toEqual(['a=undefined', 'b=5.5.5.5']);
    term2.abort();
  });

  it('losing leadership aborts the write in flight', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>([pod('ns', 'a', { ip: '1.1.1.1' })], { signal });
    const { status } = statusCollection(pods, (_ctx, p) => [{ ip: p.status?.podIP }, undefined], {
      signal,
    });
    const started: string[] = [];
    const aborted: string[] = [];
    const writer = startStatusWriter(status, {
      signal,
      leadership: 'manual',
      maxAttempts: 1,
      logger: noopLogger,
      write: (obj, _s, writeSignal) =>
        new Promise<void>((_resolve, reject) => {
          started.push(obj.metadata.name);
          writeSignal.addEventListener('abort', () => {
            aborted.push(obj.metadata.name);
            reject(writeSignal.reason);
          });
        }),
    });
    const term = new AbortController();
    const leading = writer.lead(term.signal);
    await waitFor('the write to start', () => started.length === 1);
    await settle(2);
    expect(aborted).toEqual([]);
    term.abort();
    await leading;
    await waitFor('the write to be aborted', () => aborted.length === 1);
    expect(writer.stats().writes).toBe(0);
  });

  it('await using stops the writer without its signal: queue closed, nothing more written', async () => {
    const signal = stop.signal;
    const pods = staticCollection<TestPod>([pod('ns', 'a', { ip: '1.1.1.1' })], { signal });
    const { status } = statusCollection(pods, (_ctx, p) => [{ ip: p.status?.podIP }, undefined], {
      signal,
      name: 'ips',
    });
    const writes: string[] = [];
    let escaped: ReturnType<typeof startStatusWriter> | undefined;
    {
      await using writer = startStatusWriter(status, {
        signal,
        logger: noopLogger,
        write: async (obj, s) => {
          writes.push(`${obj.metadata.name}=${s?.ip}`);
        },
      });
      await waitFor('the first write', () => writes.length === 1);
      escaped = writer;
    }
    expect(signal.aborted).toBe(false);
    expect(escaped.isWriting()).toBe(false);
    let closed = false;
    void escaped.closed.then(() => (closed = true));
    await settle();
    expect(closed).toBe(true);
    pods.update(pod('ns', 'a', { ip: '2.2.2.2' }));
    await settle(3);
    expect(writes).toEqual(['a=1.1.1.1']);
  });
});
