import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../connection-error.ts';
import { isGone, isTimeout } from '../errors.ts';
import { requestOverConnection } from './connection-request.ts';
import { pagePeek } from './list-continue.ts';
import type { OpenWatchConnection, WatchConnectionEvents } from './watch-connection.ts';

/** A connection the test drives: its events, and whether it was destroyed. */
function scripted() {
  const state = { events: undefined as WatchConnectionEvents | undefined, destroyed: false };
  const open: OpenWatchConnection = (events) => {
    state.events = events;
    return {
      pause: () => {},
      resume: () => {},
      destroy: () => {
        state.destroyed = true;
      },
    };
  };
  return { open, state };
}

const base = { context: 'list configmaps in ns', server: 'https://127.0.0.1:6443', idleTimeoutMs: 60_000 };
const json = { 'content-type': 'application/json' };

describe('requestOverConnection', () => {
  it("resolves a 2xx body's JSON and shows the page's head and length to its peek", async () => {
    const { open, state } = scripted();
    const tokens: string[] = [];
    const lengths: number[] = [];
    const peek = pagePeek({ onContinue: (t) => tokens.push(t), onLength: (n) => lengths.push(n) });
    const done = requestOverConnection({ ...base, open, peek });
    const body = '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"continue":"abc"},"items":[{"a":1}]}';
    state.events!.head({ statusCode: 200, headers: json });
    const cut = body.indexOf('[{') + 1; // the list metadata and `"items":[`, not the items
    state.events!.body(Buffer.from(body.slice(0, cut)));
    expect(tokens).toEqual(['abc']); // from the head, before the rest arrived
    state.events!.body(Buffer.from(body.slice(cut)));
    state.events!.end();
    await expect(done).resolves.toEqual(JSON.parse(body));
    expect(lengths).toEqual([body.length]);
  });

  it("rejects with the status's typed error, not showing an error body to the peek", async () => {
    const { open, state } = scripted();
    const lengths: number[] = [];
    const done = requestOverConnection({
      ...base,
      open,
      peek: pagePeek({ onLength: (n) => lengths.push(n) }),
    });
    state.events!.head({ statusCode: 410, headers: json });
    state.events!.body(
      Buffer.from('{"kind":"Status","status":"Failure","reason":"Expired","message":"too old","code":410}'),
    );
    state.events!.end();
    const err = await done.catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
    expect((err as Error).message).toContain('too old');
    expect(lengths).toEqual([]);
  });

  it('rejects a 2xx body that is not JSON, naming the request', async () => {
    const { open, state } = scripted();
    const done = requestOverConnection({ ...base, open });
    state.events!.head({ statusCode: 200, headers: json });
    state.events!.body(Buffer.from('<html>'));
    state.events!.end();
    await expect(done).rejects.toThrow(/^list configmaps in ns: the server sent a body that is not JSON/);
  });

  it('fails with a 504 Timeout when no byte arrives within the idle timeout, and closes the connection', async () => {
    const { open, state } = scripted();
    const err = await requestOverConnection({ ...base, open, idleTimeoutMs: 20 }).catch((e: unknown) => e);
    expect(isTimeout(err)).toBe(true);
    expect((err as Error).message).toContain('no response within 20 ms');
    expect(state.destroyed).toBe(true);
  });

  it('rejects with an AbortError when its signal aborts, before or while it runs, and closes the connection', async () => {
    const before = scripted();
    await expect(
      requestOverConnection({ ...base, open: before.open, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(before.state.events).toBeUndefined(); // nothing was sent

    const { open, state } = scripted();
    const stop = new AbortController();
    const done = requestOverConnection({ ...base, open, signal: stop.signal });
    state.events!.head({ statusCode: 200, headers: json });
    stop.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect(state.destroyed).toBe(true);
  });

  it('wraps a failed connection, and one that ends before its response, as a ConnectionError naming the server', async () => {
    const failed = scripted();
    const done = requestOverConnection({ ...base, open: failed.open });
    failed.state.events!.fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toContain('https://127.0.0.1:6443');

    const ended = scripted();
    const early = requestOverConnection({ ...base, open: ended.open });
    ended.state.events!.end();
    await expect(early).rejects.toBeInstanceOf(ConnectionError);
  });

  it('rejects when the request cannot be sent at all', async () => {
    const open: OpenWatchConnection = () => {
      throw new TypeError('Invalid character in header content ["Authorization"]');
    };
    await expect(requestOverConnection({ ...base, open })).rejects.toThrow(/Invalid character in header/);
  });
});
