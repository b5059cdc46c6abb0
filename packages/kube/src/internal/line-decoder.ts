import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines without copying more than needed: UTF-8 sequences split across
 * chunks are reassembled, `\r\n` is accepted, empty lines are skipped.
 */
export class LineDecoder {
  readonly #decoder = new StringDecoder('utf8');
  readonly #maxLineLength: number;
  #pending = '';

  /** Creates a decoder that refuses lines longer than `maxLineLength` characters (default 256 Mi). */
  constructor(maxLineLength = 256 * 1024 * 1024) {
    this.#maxLineLength = maxLineLength;
  }

  /**
   * Feeds a chunk; returns the complete lines it finished.
   * @throws RangeError when an unterminated line grows past the limit (a broken stream).
   */
  push(chunk: Buffer): string[] {
    const decoded = this.#decoder.write(chunk);
    const scanFrom = this.#pending.length;
    const text = this.#pending + decoded;
    const lines: string[] = [];
    let start = 0;
    // Only the new bytes can contain the first newline: the pending text had none.
    let nl = text.indexOf('\n', scanFrom);
    for (;;) {
      if (nl === -1) break;
      if (nl === -1) break;
      let end = nl;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      if (end > start) lines.push(text.slice(start, end));
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    this.#pending = start === 0 ? text : text.slice(start);
    if (this.#pending.length > this.#maxLineLength) {
      this.#pending = '';
      throw new RangeError(`a watch line exceeded ${this.#maxLineLength} characters without a newline`);
    }
    return lines;
  }

  /** Ends the stream; returns a last unterminated line, if any. */
  end(): string[] {
    const rest = (this.#pending + this.#decoder.end()).trim();
    this.#pending = '';
    return rest ? [rest] : [];
  }
}
