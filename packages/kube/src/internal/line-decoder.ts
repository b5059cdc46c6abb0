/**
 * Splits a byte stream into lines, decoding only whole lines: a newline byte never occurs inside
 * a multi-byte UTF-8 sequence, so a character split across chunks is reassembled for free. Lines
 * within one chunk are decoded straight from it (no per-chunk string, no re-scanning of a
 * pending prefix); `\r\n` is accepted and empty lines are skipped.
 */
export class LineDecoder {
  readonly #maxLineBytes: number;
  /** The bytes of an unterminated line, across chunks. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** Creates a decoder that refuses lines longer than `maxLineBytes` bytes (default 256 MiB). */
  constructor(maxLineBytes = 256 * 1024 * 1024) {
    this.#maxLineBytes = maxLineBytes;
  }

  /**
   * Feeds a chunk and calls `onLine` with every line it completes, in order, until `onLine`
   * returns true (stop: the rest of the chunk is dropped). Returns whether it stopped.
   * @throws RangeError when an unterminated line grows past the limit (a broken stream).
   */
  push(chunk: Buffer, onLine: (line: string) => boolean): boolean {
    let start = 0;
    let nl = chunk.indexOf(10);
    if (this.#pendingBytes > 0) {
      if (nl === -1) {
        this.#keep(chunk);
        return false;
      }
      const line = Buffer.concat([...this.#pending, chunk.subarray(0, nl)]);
      this.#pending = [];
      this.#pendingBytes = 0;
      const text = lineText(line, 0, line.length);
      if (text !== undefined && onLine(text)) return true;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    while (nl !== -1) {
      const text = lineText(chunk, start, nl);
      if (text !== undefined && onLine(text)) return true;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.#keep(start === 0 ? chunk : chunk.subarray(start));
    return false;
  }

  /** Ends the stream: calls `onLine` with a last unterminated line, if there is one. */
  end(onLine: (line: string) => boolean): void {
    if (this.#pendingBytes === 0) return;
    const rest = Buffer.concat(this.#pending).toString('utf8').trim();
    this.#pending = [];
    this.#pendingBytes = 0;
    if (rest) onLine(rest);
  }

  #keep(bytes: Buffer): void {
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      this.#pending = [];
      this.#pendingBytes = 0;
      throw new RangeError(`a watch line exceeded ${this.#maxLineBytes} bytes without a newline`);
    }
  }
}

/** The text of `buf[start, end)` without a trailing `\r`, or undefined for an empty line. */
function lineText(buf: Buffer, start: number, end: number): string | undefined {
  const stop = end > start && buf[end - 1] === 13 ? end - 1 : end;
  return stop > start ? buf.toString('utf8', start, stop) : undefined;
}
