import { describe, expect, it } from 'vitest';
import type { ApiClient, ListOptions, ObjectList } from '../api.ts';
import { builtins } from '../builtins.ts';
import { apiErrorFromStatus } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { ResponseTooLargeError } from '../response-too-large.ts';
import {
  CONTINUE_PEEK_LIMIT,
  continueFromHead,
  continueFromTail,
  type ListOptionsWithPageHints,
  ON_CONTINUE,
  ON_PAGE_LENGTH,
  pagePeek,
} from './list-continue.ts';
import { listAll, MAX_PAGE_GROWTH, MAX_PAGE_SIZE } from './list-pager.ts';

const page = (cont: string | undefined, names: string[]) =>
  JSON.stringify({
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '7', ...(cont ? { continue: cont } : {}) },
    items: names.map((name) => ({ metadata: { name, namespace: 'ns' } })),
  });

describe('continueFromHead', () => {
  it('reads the token from the metadata written before the items, at every cut of the body', () => {
    const body = page('tok/en==', ['a', 'b']);
    const at = body.indexOf('"items":') + '"items":'.length;
    for (let cut = 0; cut <= body.length; cut++) {
      const got = continueFromHead(body.slice(0, cut));
      expect(got, `cut ${cut}`).toBe(cut < at ? undefined : 'tok/en==');
    }
  });

  it('says the last page has no token, and gives up on bodies laid out otherwise', () => {
    expect(continueFromHead(page(undefined, ['a']))).toBeNull();
    expect(continueFromHead('{"kind":"L","metadata":{"continue":""},"items":[]}')).toBeNull();
    // Go's map encoding of an unstructured list sorts the keys: the metadata comes after the items.
    expect(
      continueFromHead('{"apiVersion":"v1","items":[{"metadata":{"name":"x"}}],"metadata":{"continue":"t"}}'),
    ).toBeNull();
    // A key containing `"items":` inside a string: the prefix is not JSON, so no token.
    expect(
      continueFromHead('{"metadata":{"annotations":{"x\\"items":"1"},"continue":"t"},"items":[]}'),
    ).toBeNull();
    expect(continueFromHead(' '.repeat(CONTINUE_PEEK_LIMIT))).toBeNull();
    expect(continueFromHead('{"metadata":')).toBeUndefined();
  });
});

describe('continueFromTail', () => {
  it('reads the token of a list whose metadata is its last member, as the apiserver encodes custom resources', () => {
    const cr = (meta: object) =>
      JSON.stringify({
        apiVersion: 'x/v1',
        items: [{ metadata: { name: 'a' } }],
        kind: 'XList',
        metadata: meta,
      });
    expect(continueFromTail(cr({ continue: 'tok', resourceVersion: '3' }))).toBe('tok');
    expect(continueFromTail(cr({ resourceVersion: '3' }))).toBeNull();
    // Metadata first: the last `"metadata":` is an item's, followed by more than the list's end.
    expect(continueFromTail(page('tok', ['a', 'b']))).toBeNull();
    expect(continueFromTail('{"items":[]}')).toBeNull();
  });
});

interface Call {
  readonly cont: string | undefined;
  readonly limit: number | undefined;
  readonly release: () => void;
  readonly fail: (err: unknown) => void;
  readonly signal: AbortSignal;
}

/**
 * A transport whose pages answer only when the test releases them; `early` decides whether it
 * reports each page's continue token before the page (as the HTTPS client does).
 */
class GatedApi {
  readonly calls: Call[] = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly pages: ReadonlyMap<
    string | undefined,
    { next?: string; names: string[]; early?: string; length?: number }
  >;
  readonly early: boolean;
  constructor(pages: GatedApi['pages'], early: boolean) {
    this.pages = pages;
    this.early = early;
  }
  list(_resource: unknown, opts: ListOptions = {}): Promise<ObjectList> {
    const spec = this.pages.get(opts.continue);
    if (!spec) throw new Error(`unexpected continue ${opts.continue}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<ObjectList>((resolve, reject) => {
      const done = (): void => {
        this.inFlight--;
      };
      const signal = opts.signal ?? new AbortController().signal;
      signal.addEventListener('abort', () => {
        done();
        reject(signal.reason);
      });
      this.calls.push({
        cont: opts.continue,
        limit: opts.limit,
        signal,
        fail: (err) => {
          done();
          reject(err);
        },
        release: () => {
          done();
          const onLength = (opts as ListOptionsWithPageHints)[ON_PAGE_LENGTH];
          if (spec.length !== undefined) onLength?.(spec.length);
          resolve(JSON.parse(page(spec.next, spec.names)) as ObjectList);
        },
      });
      const hint = (opts as ListOptionsWithPageHints)[ON_CONTINUE];
      const token = spec.early ?? spec.next;
      if (this.early && hint && token) queueMicrotask(() => hint(token));
    });
  }
}

const pages = new Map([
  [undefined, { next: 'p2', names: ['a', 'b'] }],
  ['p2', { next: 'p3', names: ['c', 'd'] }],
  ['p3', { names: ['e'] }],
]);

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}

function run(
  api: GatedApi,
  opts: { signal?: AbortSignal; pageSize?: number; pageBytes?: number | undefined } = {},
) {
  const { signal = new AbortController().signal, pageSize = 2, pageBytes } = opts;
  const expired: unknown[] = [];
  const result = listAll(api as unknown as ApiClient, builtins.ConfigMap, {
    namespace: 'ns',
    pageSize,
    pageBytes,
    signal,
    onExpiredContinue: (err) => expired.push(err),
    mapItem: (o: KubeObject) => o.metadata?.name,
  });
  return { result, expired };
}

describe('listAll reads one page ahead', () => {
  it('requests page N+1 when page N’s head shows its token, never more than two at once', async () => {
    const api = new GatedApi(pages, true);
    const { result } = run(api);
    await until(() => api.calls.length === 2);
    expect(api.calls.map((c) => c.cont)).toEqual([undefined, 'p2']);
    // Page 2's head showed p3, but page 1 is not read yet: p3 waits.
    await new Promise((r) => setImmediate(r));
    expect(api.calls).toHaveLength(2);
    api.calls[0]!.release();
    await until(() => api.calls.length === 3);
    expect(api.calls[2]!.cont).toBe('p3');
    api.calls[2]!.release(); // the third page may answer before the second
    api.calls[1]!.release();
    expect(await result).toEqual({ items: ['a', 'b', 'c', 'd', 'e'], resourceVersion: '7' });
    expect(api.maxInFlight).toBe(2);
  });

  it('reads pages one after another when the transport reports no token early', async () => {
    const api = new GatedApi(pages, false);
    const { result } = run(api);
    for (let i = 0; i < 3; i++) {
      await until(() => api.calls.length === i + 1);
      api.calls[i]!.release();
    }
    expect((await result).items).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(api.maxInFlight).toBe(1);
  });

  it('trusts the whole page when its token differs from the head’s, cancelling the early request', async () => {
    const odd = new Map([
      [undefined, { next: 'p2', names: ['a', 'b'], early: 'p3' }],
      ['p2', { names: ['c'] }],
      ['p3', { names: ['wrong'] }],
    ]);
    const api = new GatedApi(odd, true);
    const { result } = run(api);
    await until(() => api.calls.length === 2);
    api.calls[0]!.release();
    await until(() => api.calls.length === 3);
    expect(api.calls[1]!.signal.aborted).toBe(true);
    expect(api.calls[2]!.cont).toBe('p2');
    api.calls[2]!.release();
    expect((await result).items).toEqual(['a', 'b', 'c']);
  });

  it('cancels the page read ahead when the list fails or is aborted', async () => {
    const api = new GatedApi(pages, true);
    const { result } = run(api);
    await until(() => api.calls.length === 2);
    api.calls[0]!.fail(apiErrorFromStatus(500, { message: 'boom' }));
    await expect(result).rejects.toThrow('boom');
    expect(api.calls[1]!.signal.aborted).toBe(true);
    expect(api.inFlight).toBe(0);

    const api2 = new GatedApi(pages, true);
    const stop = new AbortController();
    const { result: r2 } = run(api2, { signal: stop.signal });
    await until(() => api2.calls.length === 2);
    stop.abort(new Error('stopped'));
    await expect(r2).rejects.toThrow('stopped');
    expect(api2.inFlight).toBe(0);
  });

  it('falls back to one unpaginated list when the page read ahead finds its token expired', async () => {
    const api = new GatedApi(pages, true);
    const full = { metadata: { resourceVersion: '9' }, items: [{ metadata: { name: 'z' } }] };
    const list = api.list.bind(api);
    api.list = (r, opts = {}) =>
      opts.limit === undefined ? Promise.resolve(full as ObjectList) : list(r, opts);
    const { result, expired } = run(api);
    await until(() => api.calls.length === 2);
    api.calls[1]!.fail(apiErrorFromStatus(410, { reason: 'Expired', message: 'too old' }));
    api.calls[0]!.release();
    expect(await result).toEqual({ items: ['z'], resourceVersion: '9' });
    expect(expired).toHaveLength(1);
  });
});

describe('listAll sizes pages by bytes', () => {
  const sized = new Map([
    [undefined, { next: 'p2', names: ['a', 'b'], length: 40 }], // 20 characters per object
    ['p2', { next: 'p3', names: ['c', 'd'], length: 400 }], // 200 per object
    ['p3', { next: 'p4', names: ['e'], length: 1 }], // 1 per object
    ['p4', { names: ['f'] }],
  ]);

  /** Releases the pages in order, each once requested; returns the limits asked for. */
  async function limits(api: GatedApi, pageBytes: number | undefined) {
    const { result } = run(api, { pageBytes });
    for (let i = 0; i < 4; i++) {
      await until(() => api.calls.length > i);
      api.calls[i]!.release();
    }
    expect((await result).items).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    return api.calls.map((c) => c.limit);
  }

  it('asks each page after the first read whole for as many objects as fit, from 1 up', async () => {
    // Page 2 is requested ahead while page 1 arrives: no size is known yet, so it keeps pageSize.
    // Page 3 goes by page 1 (100 / 20), page 4 by page 2 (100 / 200, but at least 1).
    expect(await limits(new GatedApi(sized, true), 100)).toEqual([2, 2, 5, 1]);
    // Read one after another, each page goes by the one before: 100 / 20, 100 / 200 → 1, and
    // 100 / 1 capped at MAX_PAGE_GROWTH times the page before.
    expect(await limits(new GatedApi(sized, false), 100)).toEqual([2, 5, 1, MAX_PAGE_GROWTH]);
  });

  it('grows a page at most MAX_PAGE_GROWTH-fold over the one before, and never past MAX_PAGE_SIZE', async () => {
    const g = MAX_PAGE_GROWTH;
    expect(await limits(new GatedApi(sized, false), 1e9)).toEqual([2, 2 * g, 2 * g * g, 2 * g * g * g]);
    const big = new Map([
      [undefined, { next: 'p2', names: ['a', 'b'], length: 2 }],
      ['p2', { next: 'p3', names: ['c', 'd'], length: 2 }],
      ['p3', { next: 'p4', names: ['e'], length: 1 }],
      ['p4', { names: ['f'] }],
    ]);
    const api = new GatedApi(big, false);
    const { result } = run(api, { pageSize: MAX_PAGE_SIZE / 2, pageBytes: 1e9 });
    for (let i = 0; i < 4; i++) {
      await until(() => api.calls.length > i);
      api.calls[i]!.release();
    }
    expect((await result).items).toHaveLength(6);
    expect(api.calls.map((c) => c.limit)).toEqual([
      MAX_PAGE_SIZE / 2,
      MAX_PAGE_SIZE,
      MAX_PAGE_SIZE,
      MAX_PAGE_SIZE,
    ]);
  });

  it('keeps pageSize without pageBytes, and on transports that report no lengths', async () => {
    expect(await limits(new GatedApi(sized, true), undefined)).toEqual([2, 2, 2, 2]);
    const unsized = new Map([...sized].map(([k, { length: _, ...spec }]) => [k, spec]));
    expect(await limits(new GatedApi(unsized, true), 100)).toEqual([2, 2, 2, 2]);
  });
});

describe('listAll and a page too large to decode', () => {
  it('asks for the same page again with half as many objects, and no later page asks for more', async () => {
    const api = new GatedApi(pages, false);
    const { result } = run(api);
    await until(() => api.calls.length === 1);
    api.calls[0]!.release();
    await until(() => api.calls.length === 2);
    expect(api.calls[1]).toMatchObject({ cont: 'p2', limit: 2 });
    api.calls[1]!.fail(
      new ResponseTooLargeError({
        context: 'list configmaps',
        bytes: 1e9,
        cause: new Error('Cannot create a string longer than 0x1fffffe8 characters'),
      }),
    );
    await until(() => api.calls.length === 3);
    expect(api.calls[2]).toMatchObject({ cont: 'p2', limit: 1 });
    api.calls[2]!.release();
    await until(() => api.calls.length === 4);
    expect(api.calls[3]).toMatchObject({ cont: 'p3', limit: 1 });
    api.calls[3]!.release();
    expect((await result).items).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('fails when a page of one object is too large', async () => {
    const api = new GatedApi(pages, false);
    const { result } = run(api, { pageSize: 1 });
    await until(() => api.calls.length === 1);
    api.calls[0]!.fail(
      new ResponseTooLargeError({ context: 'list configmaps', bytes: 1e9, cause: new Error('too long') }),
    );
    await expect(result).rejects.toThrow(
      /list configmaps: the response \(1000000000 bytes\) is too large to decode \(too long\)/,
    );
  });
});

describe('pagePeek', () => {
  const body = page('tok', ['a']);

  it("reports the token from the head once, and the whole body's length", () => {
    const tokens: string[] = [];
    const lengths: number[] = [];
    const peek = pagePeek({ onContinue: (t) => tokens.push(t), onLength: (n) => lengths.push(n) });
    expect(peek.head?.(body.slice(0, 5))).toBe(false);
    expect(peek.head?.(body)).toBe(true);
    peek.whole(body);
    expect(tokens).toEqual(['tok']);
    expect(lengths).toEqual([body.length]);
  });

  it('with only a length wanted, decodes no head at all', () => {
    const lengths: number[] = [];
    const peek = pagePeek({ onLength: (n) => lengths.push(n) });
    expect(peek.head).toBeUndefined();
    peek.whole(body);
    expect(lengths).toEqual([body.length]);
  });

  it('with only a token wanted, reads it from the end when the head has none', () => {
    const tokens: string[] = [];
    const peek = pagePeek({ onContinue: (t) => tokens.push(t) });
    const cr = '{"apiVersion":"x/v1","items":[],"kind":"XList","metadata":{"continue":"t2"}}';
    expect(peek.head?.(cr)).toBe(true); // laid out otherwise: the head gives up
    peek.whole(cr);
    expect(tokens).toEqual(['t2']);
  });
});
