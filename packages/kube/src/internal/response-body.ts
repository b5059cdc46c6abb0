import type { IncomingMessage } from 'node:http';
import { ResponseTooLargeError } from '../response-too-large.ts';
import { type BodyPeek, CONTINUE_PEEK_LIMIT } from './list-continue.ts';
import { apiErrorFromResponse } from './transport-errors.ts';

/**
 * A response body as it arrives: its chunks kept for one decode at the end, and its head shown to
 * a {@link BodyPeek} (up to {@link CONTINUE_PEEK_LIMIT} bytes, until the peek has what it wants).
 */
export class ResponseBody {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #peekHead: ((head: string) => boolean) | undefined;

  /** Collects a body; `peek` (a successful response's only) is shown its head. */
  constructor(peek: BodyPeek | undefined) {
    this.#peekHead = peek?.head;
  }

  /** Takes the next chunk of the body. */
  push(chunk: Buffer): void {
    const chunks = this.#chunks;
    chunks.push(chunk);
    this.#bytes += chunk.length;
    const peekHead = this.#peekHead;
    if (!peekHead) return;
    const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
    if (
      peekHead(head.toString('utf8', 0, Math.min(head.length, CONTINUE_PEEK_LIMIT))) ||
      this.#bytes >= CONTINUE_PEEK_LIMIT
    )
      this.#peekHead = undefined;
  }

  /**
   * The whole body decoded as UTF-8; the chunks are let go.
   * @throws {@link ResponseTooLargeError} when it is longer than a string can be (`context` names
   *   the request), rather than letting the decoder's error escape.
   */
  text(context: string): string {
    const chunks = this.#chunks;
    try {
      return chunks.length === 1
        ? chunks[0]!.toString('utf8')
        : Buffer.concat(chunks, this.#bytes).toString('utf8');
    } catch (err) {
      throw new ResponseTooLargeError({ context, bytes: this.#bytes, cause: err });
    } finally {
      chunks.length = 0;
    }
  }
}

/**
 * What a response gives: for a 2xx status its JSON body (undefined when empty), after showing the
 * whole text to `peek`; else the typed error of its status.
 * @throws {@link ApiError} for a status outside 2xx, or an Error naming the request for a 2xx body
 *   that is not JSON.
 */
export function responseValue(
  res: Pick<IncomingMessage, 'statusCode'> & { readonly headers: Readonly<IncomingMessage['headers']> },
  text: string,
  opts: { readonly context: string; readonly peek: BodyPeek | undefined },
): unknown {
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) throw apiErrorFromResponse(res, text, opts.context);
  if (text.length === 0) return undefined;
  opts.peek?.whole(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${opts.context}: the server sent a body that is not JSON (${(err as Error).message})`);
  }
}
