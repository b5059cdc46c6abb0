/** The status line and header fields of an HTTP/1.1 response. */
export interface ResponseHead {
  readonly statusCode: number;
  readonly statusMessage: string;
  /** Header fields by lower-case name; a repeated field's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Where a {@link Http1ResponseReader} hands what it decodes. */
export interface ResponseHandlers {
  /** The status line and headers, once, before any body byte. */
  readonly onHead: (head: ResponseHead) => void;
  /** Payload bytes (chunk framing removed), in order; returning true stops the reader. */
  readonly onBody: (bytes: Buffer) => boolean;
  /** The response ended: the terminating chunk and trailers, or `Content-Length` bytes, were read. */
  readonly onComplete: () => void;
}

/** Limits of a {@link Http1ResponseReader}. */
export interface ResponseReaderLimits {
  /** The status line and headers together, and the trailers together, in bytes. Default 64 KiB. */
  readonly maxHeaderBytes?: number | undefined;
}

/**
 * A response the reader cannot take: broken framing (a bad chunk size, a missing CRLF, a header
 * section that never ends) or one this client never asks for (1xx, a transfer or content coding).
 */
export class HttpFramingError extends Error {
  /** Always `ERR_HTTP_FRAMING`, so the cause of a wrapping error names the kind of failure. */
  readonly code = 'ERR_HTTP_FRAMING';
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = 'HttpFramingError';
  }
}

/** Where the reader is in the response. */
const HEAD = 0;
const CHUNK_SIZE = 1;
const CHUNK_EXTENSION = 2;
const CHUNK_SIZE_LF = 3;
const CHUNK_DATA = 4;
const CHUNK_DATA_CR = 5;
const CHUNK_DATA_LF = 6;
const TRAILERS = 7;
const LENGTH = 8;
const UNTIL_CLOSE = 9;
const DONE = 10;
const STOPPED = 11;

const CR = 13;
const LF = 10;
/** More hex digits than this is a chunk size no server sends (2^52 bytes). */
const MAX_SIZE_DIGITS = 13;
/** A chunk-size line with its extensions. */
const MAX_SIZE_LINE = 4096;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/;

/**
 * Decodes one HTTP/1.1 response from the bytes of its connection, pushed as they are read: the
 * status line and headers, then a chunked, `Content-Length` or close-delimited body, whose
 * payload bytes are handed over as views of the pushed buffers (no copy). Strict: framing that
 * llhttp would refuse is an {@link HttpFramingError}, and so is a 1xx response, a transfer coding
 * other than `chunked`, a content coding, and a response with both `Transfer-Encoding` and
 * `Content-Length`. Chunk extensions and trailers are accepted and ignored.
 */
export class Http1ResponseReader {
  readonly #handlers: ResponseHandlers;
  readonly #maxHeaderBytes: number;
  #state = HEAD;
  /** The bytes of the head read so far, before its end. */
  #head: Buffer | undefined;
  /** The length of the current trailer line. */
  #lineBytes = 0;
  /** Bytes left in the current chunk, or of a `Content-Length` body. */
  #remaining = 0;
  #sizeDigits = 0;
  #sizeLineBytes = 0;
  /** The last byte of the trailer section read so far. */
  #trailerPrev = LF;

  /** Creates a reader for one response. */
  constructor(handlers: ResponseHandlers, limits: ResponseReaderLimits = {}) {
    this.#handlers = handlers;
    this.#maxHeaderBytes = limits.maxHeaderBytes ?? 64 * 1024;
  }

  /** True once the whole response was read. */
  get complete(): boolean {
    return this.#state === DONE;
  }

  /**
   * Feeds the next bytes of the connection. Returns true when the reader is done (the response
   * completed, or `onBody` stopped it); bytes after that are ignored.
   * @throws HttpFramingError on a response it cannot take.
   */
  push(data: Buffer): boolean {
    let i = 0;
    const n = data.length;
    while (i < n) {
      switch (this.#state) {
        case HEAD:
          i = this.#readHead(data, i);
          break;
        case CHUNK_SIZE: {
          const c = data[i]!;
          const digit = hexValue(c);
          if (digit >= 0) {
            if (++this.#sizeDigits > MAX_SIZE_DIGITS)
              throw new HttpFramingError('the chunk size has too many digits');
            this.#remaining = this.#remaining * 16 + digit;
          } else if (this.#sizeDigits === 0) {
            throw new HttpFramingError(`the chunk size starts with ${describeByte(c)}, not a hex digit`);
          } else if (c === CR) {
            this.#state = CHUNK_SIZE_LF;
          } else if (c === 0x3b /* ; */ || c === 0x20 || c === 0x09) {
            this.#state = CHUNK_EXTENSION;
          } else {
            throw new HttpFramingError(`the chunk size is followed by ${describeByte(c)}`);
          }
          this.#countSizeLine(1);
          i++;
          break;
        }
        case CHUNK_EXTENSION: {
          const cr = data.indexOf(CR, i);
          const end = cr === -1 ? n : cr;
          for (let j = i; j < end; j++) {
            const c = data[j]!;
            if ((c < 0x20 && c !== 0x09) || c === 0x7f)
              throw new HttpFramingError(`a chunk extension holds ${describeByte(c)}`);
          }
          this.#countSizeLine(end - i);
          i = end;
          if (cr !== -1) {
            this.#state = CHUNK_SIZE_LF;
            i++;
          }
          break;
        }
        case CHUNK_SIZE_LF:
          if (data[i] !== LF) throw new HttpFramingError('the chunk size line does not end with CRLF');
          i++;
          this.#sizeDigits = 0;
          this.#sizeLineBytes = 0;
          if (this.#remaining === 0) {
            this.#state = TRAILERS;
            this.#trailerPrev = LF; // the size line's: an empty line next ends the trailers
          } else this.#state = CHUNK_DATA;
          break;
        case CHUNK_DATA:
        case LENGTH: {
          const take = Math.min(this.#remaining, n - i);
          const bytes = i === 0 && take === n ? data : data.subarray(i, i + take);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            if (this.#state === CHUNK_DATA) this.#state = CHUNK_DATA_CR;
            else this.#state = DONE;
          }
          if (this.#handlers.onBody(bytes)) return this.#stop();
          if (this.#state === DONE) return this.#done();
          break;
        }
        case CHUNK_DATA_CR:
          if (data[i] !== CR) throw new HttpFramingError('the chunk data is longer than its size');
          this.#state = CHUNK_DATA_LF;
          i++;
          break;
        case CHUNK_DATA_LF:
          if (data[i] !== LF) throw new HttpFramingError('the chunk data does not end with CRLF');
          this.#state = CHUNK_SIZE;
          i++;
          break;
        case TRAILERS:
          // Done at the empty line that ends them; else they continue in the next push.
          return this.#readTrailers(data, i) ? this.#done() : false;
        case UNTIL_CLOSE: {
          const bytes = i === 0 ? data : data.subarray(i);
          i = n;
          if (this.#handlers.onBody(bytes)) return this.#stop();
          break;
        }
        case DONE:
        case STOPPED:
          return true;
      }
    }
    return this.#state === DONE || this.#state === STOPPED;
  }

  /**
   * The connection ended. Completes a close-delimited body (calling `onComplete`); returns
   * whether the response is complete, false when it was cut short.
   */
  end(): boolean {
    if (this.#state === UNTIL_CLOSE) {
      this.#done();
      return true;
    }
    return this.#state === DONE;
  }

  #stop(): true {
    this.#state = STOPPED;
    return true;
  }

  #done(): true {
    this.#state = DONE;
    this.#handlers.onComplete();
    return true;
  }

  #countSizeLine(bytes: number): void {
    this.#sizeLineBytes += bytes;
    if (this.#sizeLineBytes > MAX_SIZE_LINE)
      throw new HttpFramingError(`a chunk size line is longer than ${MAX_SIZE_LINE} bytes`);
  }

  /** Collects head bytes from `data[i]`; at the empty line, parses the head. Returns where it stopped. */
  #readHead(data: Buffer, i: number): number {
    const piece = i === 0 ? data : data.subarray(i);
    const before = this.#head?.length ?? 0;
    const all = this.#head === undefined ? piece : Buffer.concat([this.#head, piece]);
    // The blank line may straddle the previous piece: search from 3 bytes back.
    const at = all.indexOf('\r\n\r\n', Math.max(0, before - 3));
    if ((at === -1 ? all.length : at) > this.#maxHeaderBytes)
      throw new HttpFramingError(`the response header is larger than ${this.#maxHeaderBytes} bytes`);
    if (at === -1) {
      this.#head = all;
      return data.length;
    }
    this.#head = undefined;
    this.#startBody(parseHead(all.toString('latin1', 0, at)));
    return i + (at + 4 - before);
  }

  #startBody(head: ResponseHead): void {
    const { statusCode, headers } = head;
    if (statusCode < 200) {
      throw new HttpFramingError(
        `the server answered ${statusCode} ${head.statusMessage}, an informational response this client never asks for (no Expect, no Upgrade)`,
      );
    }
    const te = headers['transfer-encoding'];
    const length = headers['content-length'];
    const coding = headers['content-encoding'];
    if (coding !== undefined && coding.toLowerCase() !== 'identity')
      throw new HttpFramingError(
        `the response has Content-Encoding ${coding}, which this client does not ask for`,
      );
    if (te !== undefined && length !== undefined)
      throw new HttpFramingError('the response has both Transfer-Encoding and Content-Length');
    if (statusCode === 204 || statusCode === 304) this.#state = DONE;
    else if (te !== undefined) {
      if (te.toLowerCase() !== 'chunked')
        throw new HttpFramingError(`the response has Transfer-Encoding ${te}; only chunked is supported`);
      this.#state = CHUNK_SIZE;
      this.#remaining = 0;
    } else if (length !== undefined) {
      const values = new Set(length.split(',').map((v) => v.trim()));
      const [value] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(value!))
        throw new HttpFramingError(`the response has an invalid Content-Length: ${length}`);
      this.#remaining = Number(value);
      this.#state = this.#remaining === 0 ? DONE : LENGTH;
    } else this.#state = UNTIL_CLOSE;
    this.#handlers.onHead(head);
    if (this.#state === DONE) this.#handlers.onComplete();
  }

  /** Skips trailer fields from `data[i]`; true at the empty line that ends them (bytes after it are ignored). */
  #readTrailers(data: Buffer, i: number): boolean {
    let prev = this.#trailerPrev;
    for (let j = i; j < data.length; j++) {
      const c = data[j]!;
      if (prev === CR && c !== LF) throw new HttpFramingError('a trailer line holds a bare CR');
      if (c === LF) {
        if (prev !== CR) throw new HttpFramingError('a trailer line does not end with CRLF');
        if (this.#lineBytes === 0) return true;
        this.#lineBytes = 0;
      } else if (c !== CR && ++this.#lineBytes > this.#maxHeaderBytes) {
        throw new HttpFramingError(`a trailer line is longer than ${this.#maxHeaderBytes} bytes`);
      }
      prev = c;
    }
    this.#trailerPrev = prev;
    return false;
  }
}

/** Parses the status line and header fields (without the final CRLF CRLF). */
function parseHead(text: string): ResponseHead {
  const lines = text.split('\r\n');
  const status = STATUS_LINE.exec(lines[0]!);
  if (!status)
    throw new HttpFramingError(
      `the response does not start with an HTTP/1.1 status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`,
    );
  const headers: Record<string, string> = {};
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k]!;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) {
      throw new HttpFramingError(
        `the response has a malformed header line: ${JSON.stringify(line.slice(0, 80))}${/^[ \t]/.test(line) ? ' (obsolete line folding)' : ''}`,
      );
    }
    const value = line.slice(colon + 1).trim();
    if (/[\0\r\n]/.test(value)) throw new HttpFramingError(`the header ${name} holds a control character`);
    const key = name.toLowerCase();
    const prev = headers[key];
    headers[key] = prev === undefined ? value : `${prev}, ${value}`;
  }
  return { statusCode: Number(status[1]), statusMessage: status[2] ?? '', headers };
}

/** The value of a hex digit byte, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function describeByte(c: number): string {
  return c >= 0x21 && c <= 0x7e ? `"${String.fromCharCode(c)}"` : `byte 0x${c.toString(16).padStart(2, '0')}`;
}
