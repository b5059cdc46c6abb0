/**
 * A response body too large to decode: longer than the longest string V8 can hold
 * (`buffer.constants.MAX_STRING_LENGTH`, ~512 MiB of one-byte characters). Thrown by the HTTPS
 * transport instead of letting the decoder's error escape from the socket's `end` handler; a
 * paginated list answers it by asking for the same page with half as many objects.
 */
export class ResponseTooLargeError extends Error {
  /** Bytes of the body received. */
  readonly bytes: number;
  /**
   * @param opts.context - What was asked, e.g. `list configmaps in ns`.
   * @param opts.bytes - Bytes of the body received.
   * @param opts.cause - The decoder's error.
   */
  constructor(opts: { readonly context: string; readonly bytes: number; readonly cause: unknown }) {
    const { context, bytes, cause } = opts;
    super(
      `${context}: the response (${bytes} bytes) is too large to decode (${(cause as Error)?.message ?? String(cause)}); ask for less, e.g. a list with a smaller limit`,
      { cause },
    );
    this.name = 'ResponseTooLargeError';
    this.bytes = bytes;
  }
}
