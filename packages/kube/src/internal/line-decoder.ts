import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into lines without copying more than needed: UTF-8 sequences split across
 * chunks are reassembled, `\r\n` is accepted, empty lines are skipped.
 */
export class LineDecoder {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';

  /** Feeds a chunk; returns the complete lines it finished. */
  push(chunk: Buffer): string[] {
    const text = this.#pending + this.#decoder.write(chunk);
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      let end = nl;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      if (end > start) lines.push(text.slice(start, end));
      start = nl + 1;
    }
    this.#pending = start === 0 ? text : text.slice(start);
    return lines;
  }

  /** Ends the stream; returns a last unterminated line, if any. */
  end(): string[] {
    const rest = (this.#pending + this.#decoder.end()).trim();
    this.#pending = '';
    return rest ? [rest] : [];
  }
}
