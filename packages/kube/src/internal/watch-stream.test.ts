import { describe, expect, it, vi } from 'vitest';
import { type WatchEvent, WatchIdleTimeoutError, WatchResetError } from '../api.ts';
import type { WatchConnectionEvents, WatchResponseHead } from './watch-connection.ts';
import { streamWatch, type WatchStreamRequest, type WatchStreamSink } from './watch-stream.ts';

/** A connection driven by the test: what the stream did to it, and its events to report with. */
function scripted() {
  const calls: string[] = [];
  let events: WatchConnectionEvents | undefined;
  const open: WatchStreamRequest['open'] = (e) => {
    events = e;
    calls.push('open');
    return {
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
      destroy: () => calls.push('destroy'),
    };
  };
  const conn = () => {
    if (!events) throw new Error('not opened');
    return events;
  };
  /** One network read: the bytes of each piece, then the read's end (unless a piece stopped it). */
  const read = (...pieces: string[]): void => {
    for (const p of pieces) if (conn().body(Buffer.from(p))) return;
    conn().readEnd();
  };
  return { calls, open, conn, read };
}

const line = (name: string) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
const ok: WatchResponseHead = { statusCode: 200, headers: {} };

function request(
  open: WatchStreamRequest['open'],
  extra: Partial<WatchStreamRequest> = {},
): WatchStreamRequest {
  return {
    open,
    context: 'watch configmaps in ns',
    errorFrom: (head, body) => new Error(`refused ${head.statusCode}: ${body}`),
    transportError: (err) => new Error(`unreachable: ${(err as Error).message}`, { cause: err }),
    ...extra,
  };
}

function collect(): { names: string[]; sink: WatchStreamSink<never> } {
  const names: string[] = [];
  return {
    names,
    sink: {
      onEvent: (e: WatchEvent<never>) => {
        names.push((e as { object: { metadata: { name: string } } }).object.metadata.name);
        return false;
      },
    },
  };
}

describe('streamWatch over a connection', () => {
  it('decodes lines split across pieces and reads, flushes an unterminated last line at the end', async () => {
    const s = scripted();
    const { names, sink } = collect();
    const done = streamWatch(request(s.open), sink);
    s.conn().head(ok);
    const a = line('a');
    s.read(a.slice(0, 5), a.slice(5), line('b').slice(0, 9));
    s.read(line('b').slice(9), line('c').trimEnd());
    s.conn().end();
    await expect(done).resolves.toBeUndefined();
    expect(names).toEqual(['a', 'b', 'c']);
    expect(s.calls).toEqual(['open', 'destroy']);
  });

  it('pauses the connection while the sink holds a read back, and resumes it after', async () => {
    const s = scripted();
    let release: () => void = () => {};
    const names: string[] = [];
    const done = streamWatch(request(s.open), {
      onEvent: (e) => !names.push((e as { object: { metadata: { name: string } } }).object.metadata.name),
      afterChunk: () =>
        names.length === 1
          ? new Promise<void>((r) => {
              release = r;
            })
          : undefined,
    });
    s.conn().head(ok);
    s.read(line('a'));
    expect(s.calls).toEqual(['open', 'pause']);
    release();
    await Promise.resolve();
    expect(s.calls).toEqual(['open', 'pause', 'resume']);
    s.read(line('b'));
    expect(s.calls).toEqual(['open', 'pause', 'resume']);
    s.conn().end();
    await done;
    expect(names).toEqual(['a', 'b']);
  });

  it('rejects with the failure of the sink as is, and closes the connection', async () => {
    const s = scripted();
    const boom = new Error('handler failed');
    const done = streamWatch(request(s.open), {
      onEvent: () => {
        throw boom;
      },
    });
    s.conn().head(ok);
    s.read(line('a'), line('b'));
    await expect(done).rejects.toBe(boom);
    expect(s.calls).toEqual(['open', 'destroy']);
    const t = scripted();
    const held = streamWatch(request(t.open), {
      onEvent: () => false,
      afterChunk: () => Promise.reject(boom),
    });
    t.conn().head(ok);
    t.read(line('a'));
    await expect(held).rejects.toBe(boom);
  });

  it('stops when the sink says so, dropping the rest of the read', async () => {
    const s = scripted();
    const names: string[] = [];
    const done = streamWatch(request(s.open), {
      onEvent: (e) => {
        names.push((e as { object: { metadata: { name: string } } }).object.metadata.name);
        return true;
      },
    });
    s.conn().head(ok);
    s.read(`${line('a')}${line('b')}`, line('c'));
    await done;
    expect(names).toEqual(['a']);
    expect(s.calls).toEqual(['open', 'destroy']);
  });

  it('maps a failure before the stream opened through transportError, and after it to a reset', async () => {
    const s = scripted();
    const before = streamWatch(request(s.open), collect().sink);
    s.conn().fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(before).rejects.toThrow(/^unreachable: connect ECONNREFUSED/);
    const t = scripted();
    const after = streamWatch(request(t.open), collect().sink);
    t.conn().head(ok);
    t.read(line('a'));
    t.conn().fail(Object.assign(new Error('closed early'), { code: 'ECONNRESET' }));
    const err = await after.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchResetError);
    expect(err).toMatchObject({ code: 'ECONNRESET', events: 1 });
    expect(t.calls).toEqual(['open', 'destroy']);
  });

  it('turns a response that is not a 2xx, with its whole body, into errorFrom’s error', async () => {
    const s = scripted();
    const done = streamWatch(request(s.open), collect().sink);
    s.conn().head({ statusCode: 403, headers: { 'content-type': 'application/json' } });
    s.read('{"kind":"Status",');
    s.read('"code":403}\n');
    s.conn().end();
    await expect(done).rejects.toThrow('refused 403: {"kind":"Status","code":403}\n');
  });

  it('resolves quietly and closes the connection when the signal aborts, even mid-stream', async () => {
    const s = scripted();
    const stop = new AbortController();
    const { names, sink } = collect();
    const done = streamWatch(request(s.open, { signal: stop.signal }), sink);
    s.conn().head(ok);
    s.read(line('a'));
    stop.abort();
    await expect(done).resolves.toBeUndefined();
    s.read(line('late'));
    s.conn().fail(new Error('after the end'));
    expect(names).toEqual(['a']);
    expect(s.calls).toEqual(['open', 'destroy']);
  });

  it('ends a silent connection with WatchIdleTimeoutError; every read restarts the window', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const s = scripted();
      const done = streamWatch(request(s.open, { idleTimeoutMs: 1000 }), collect().sink);
      const settled = vi.fn();
      done.then(settled, settled);
      s.conn().head(ok);
      for (let i = 0; i < 5; i++) {
        await vi.advanceTimersByTimeAsync(900);
        s.read(line('x'));
      }
      expect(settled).not.toHaveBeenCalled();
      expect(s.calls).toEqual(['open']);
      await vi.advanceTimersByTimeAsync(1000);
      const err = await done.catch((e: unknown) => e);
      expect((err as Error).cause).toBeInstanceOf(WatchIdleTimeoutError);
      expect(s.calls).toEqual(['open', 'destroy']);
    } finally {
      vi.useRealTimers();
    }
  });
});
