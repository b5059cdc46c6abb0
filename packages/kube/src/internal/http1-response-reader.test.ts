import { describe, expect, it } from 'vitest';
import { Http1ResponseReader, HttpFramingError, type ResponseHead } from './http1-response-reader.ts';

interface Read {
  head: ResponseHead | undefined;
  body: string;
  complete: boolean;
  /** How many times onComplete ran. */
  completions: number;
}

/** A reader that records what it decodes; `stopAt` makes onBody stop once the body holds it. */
function reader(stopAt?: string) {
  const read: Read = { head: undefined, body: '', complete: false, completions: 0 };
  const r = new Http1ResponseReader(
    {
      onHead: (head) => {
        expect(read.head).toBeUndefined();
        read.head = head;
      },
      onBody: (bytes) => {
        expect(read.head).toBeDefined();
        expect(read.complete).toBe(false);
        read.body += bytes.toString('latin1');
        return stopAt !== undefined && read.body.includes(stopAt);
      },
      onComplete: () => {
        read.complete = true;
        read.completions++;
      },
    },
    { maxHeaderBytes: 1024 },
  );
  return { r, read };
}

/** Feeds `pieces` in order; then ends the connection when `close`. */
function feed(pieces: readonly Buffer[], opts: { close?: boolean; stopAt?: string } = {}) {
  const { r, read } = reader(opts.stopAt);
  let ended: boolean | undefined;
  for (const p of pieces) if (r.push(p)) break;
  if (opts.close) ended = r.end();
  return { read, ended, r };
}

/** Every split of `bytes` in two, and in pieces of 1, 2, 3 and 7 bytes. */
function splits(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [[bytes]];
  for (let at = 0; at <= bytes.length; at++) out.push([bytes.subarray(0, at), bytes.subarray(at)]);
  for (const size of [1, 2, 3, 7]) {
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
    out.push(pieces);
  }
  return out;
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Multi: a\r\nx-multi: b\r\n\r\n' +
  '7\r\n{"a":1}\r\n' +
  'B;name=value;flag\r\n\n{"b":"ä"}\r\n' + // 11 bytes (ä is 2), with chunk extensions
  '1 ; spaced\r\n\n\r\n' +
  '0\r\nX-Trailer: t\r\nAnother: u\r\n\r\n';

describe('Http1ResponseReader', () => {
  it('decodes a chunked response split at every byte boundary, with chunk extensions and trailers', () => {
    const bytes = Buffer.from(CHUNKED, 'utf8');
    for (const pieces of splits(bytes)) {
      const { read } = feed(pieces);
      expect(read.head).toEqual({
        statusCode: 200,
        statusMessage: 'OK',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-multi': 'a, b' },
      });
      expect(Buffer.from(read.body, 'latin1').toString('utf8')).toBe('{"a":1}\n{"b":"ä"}\n');
      expect(read.complete).toBe(true);
      expect(read.completions).toBe(1);
    }
  });

  it('hands payload bytes over as views of the pushed buffer, without copying', () => {
    const bytes = Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`);
    const views: Buffer[] = [];
    const r = new Http1ResponseReader({
      onHead: () => {},
      onBody: (b) => !views.push(b),
      onComplete: () => {},
    });
    r.push(bytes);
    expect(views).toHaveLength(1);
    expect(views[0]!.buffer).toBe(bytes.buffer);
    expect(views[0]!.toString()).toBe('hello');
  });

  it('decodes Content-Length and close-delimited bodies at every split', () => {
    const body = '{"kind":"Status","code":410}';
    const withLength = Buffer.from(
      `HTTP/1.1 410 Gone\r\nContent-Length: ${body.length}\r\nRetry-After: 3\r\n\r\n${body}`,
    );
    for (const pieces of splits(withLength)) {
      const { read } = feed(pieces);
      expect(read).toMatchObject({ body, complete: true, completions: 1 });
      expect(read.head).toMatchObject({
        statusCode: 410,
        statusMessage: 'Gone',
        headers: { 'retry-after': '3' },
      });
    }
    const untilClose = Buffer.from(`HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n${body}`);
    for (const pieces of splits(untilClose)) {
      const { read, ended } = feed(pieces, { close: true });
      expect(ended).toBe(true);
      expect(read).toMatchObject({ body, complete: true, completions: 1 });
    }
  });

  it('completes at once without a body: Content-Length 0, 204, 304; a status without a reason phrase', () => {
    for (const head of [
      'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 204 No Content\r\n\r\n',
      'HTTP/1.1 304\r\n\r\n',
      'HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n',
    ]) {
      const { read } = feed([Buffer.from(head)]);
      expect(read).toMatchObject({ body: '', complete: true, completions: 1 });
    }
    expect(feed([Buffer.from('HTTP/1.1 304\r\n\r\n')]).read.head?.statusMessage).toBe('');
  });

  it('stops when onBody says so and ignores the rest', () => {
    const bytes = Buffer.from(CHUNKED, 'utf8');
    for (const pieces of splits(bytes)) {
      const { read, r } = feed(pieces, { stopAt: '{"a":1}' });
      expect(read.body).toBe('{"a":1}');
      expect(read.complete).toBe(false);
      expect(r.push(Buffer.from('garbage'))).toBe(true);
      expect(r.complete).toBe(false);
    }
  });

  it('says a response cut short is incomplete, wherever the connection ends', () => {
    const bytes = Buffer.from(CHUNKED, 'utf8');
    for (let at = 0; at < bytes.length; at++) {
      const { read, ended } = feed([bytes.subarray(0, at)], { close: true });
      expect(ended).toBe(false);
      expect(read.complete).toBe(false);
    }
    const length = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345');
    expect(feed([length], { close: true }).ended).toBe(false);
  });

  it('ignores bytes after a complete response', () => {
    const { read, r } = feed([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n'),
    ]);
    expect(read).toMatchObject({ body: 'ok', completions: 1 });
    expect(r.push(Buffer.from('more'))).toBe(true);
    expect(read.completions).toBe(1);
  });

  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  const refused: Array<[string, string, RegExp]> = [
    ['a chunk size that is not hex', `${head}zz\r\n`, /the chunk size starts with "z", not a hex digit/],
    ['a negative chunk size', `${head}-1\r\n`, /starts with "-"/],
    ['an empty chunk size', `${head}\r\n`, /starts with byte 0x0d/],
    ['a chunk size with too many digits', `${head}${'f'.repeat(14)}\r\n`, /too many digits/],
    ['a chunk size line ending in a bare LF', `${head}5\nhello\r\n`, /followed by byte 0x0a/],
    ['a chunk size line with CR and no LF', `${head}5\rhello\r\n`, /does not end with CRLF/],
    ['chunk data longer than its size', `${head}3\r\nhello\r\n`, /longer than its size/],
    ['chunk data ending in CR without LF', `${head}5\r\nhello\rX`, /does not end with CRLF/],
    [
      'a control character in a chunk extension',
      `${head}5;a\x01b\r\nhello\r\n`,
      /chunk extension holds byte 0x01/,
    ],
    ['an overlong chunk extension', `${head}5;${'x'.repeat(5000)}\r\n`, /longer than 4096 bytes/],
    ['a trailer line ending in a bare LF', `${head}0\r\nX: y\n\r\n`, /does not end with CRLF/],
    ['a bare CR in the trailers', `${head}0\r\nX: y\rz\r\n\r\n`, /bare CR/],
    [
      'an overlong trailer line',
      `${head}0\r\nX: ${'y'.repeat(2000)}\r\n\r\n`,
      /trailer line is longer than 1024 bytes/,
    ],
    [
      'a header section that never ends',
      `HTTP/1.1 200 OK\r\nX: ${'y'.repeat(2000)}`,
      /header is larger than 1024 bytes/,
    ],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /malformed header line: "broken"/],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n', /obsolete line folding/],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nX : a\r\n\r\n', /malformed header line/],
    [
      'a status line that is not HTTP/1.x',
      'HTTP/2 200\r\n\r\n',
      /does not start with an HTTP\/1.1 status line/,
    ],
    ['a garbage status line', 'hello\r\n\r\n', /does not start with an HTTP\/1.1 status line: "hello"/],
    [
      '101 Switching Protocols',
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n',
      /101 Switching Protocols, an informational response/,
    ],
    [
      '100 Continue',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n',
      /100 Continue, an informational response/,
    ],
    [
      'a transfer coding other than chunked',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n',
      /Transfer-Encoding gzip, chunked; only chunked/,
    ],
    [
      'a content coding',
      'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx',
      /Content-Encoding gzip/,
    ],
    [
      'Transfer-Encoding and Content-Length together',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n',
      /both Transfer-Encoding and Content-Length/,
    ],
    [
      'a Content-Length that is not a number',
      'HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n',
      /invalid Content-Length: 5x/,
    ],
    [
      'conflicting Content-Lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n',
      /invalid Content-Length: 5, 6/,
    ],
  ];
  it.each(refused)('refuses %s, at every split', (_what, text, message) => {
    const bytes = Buffer.from(text, 'latin1');
    for (const pieces of splits(bytes)) {
      let error: unknown;
      try {
        feed(pieces);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(HttpFramingError);
      expect((error as HttpFramingError).code).toBe('ERR_HTTP_FRAMING');
      expect((error as Error).message).toMatch(message);
    }
  });

  it('accepts repeated equal Content-Lengths and an explicit identity content coding', () => {
    const { read } = feed([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Encoding: identity\r\n\r\nok'),
    ]);
    expect(read).toMatchObject({ body: 'ok', complete: true });
  });
});
