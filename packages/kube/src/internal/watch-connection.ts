/** The status and header fields of a watch response, as the stream needs them. */
export interface WatchResponseHead {
  readonly statusCode: number;
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * What a watch connection reports, in this order: `head` once, then `body` and `readEnd` as
 * bytes arrive, then `end` or `fail` (either may come without a head, and calls after the stream
 * settled are ignored by it).
 */
export interface WatchConnectionEvents {
  /** The response's status and headers arrived. */
  readonly head: (head: WatchResponseHead) => void;
  /** Payload bytes (transfer framing removed); returning true stops reading (the stream settled). */
  readonly body: (bytes: Buffer) => boolean;
  /** Everything of one network read was handed over: the point where backpressure may pause. */
  readonly readEnd: () => void;
  /** The response ended complete. */
  readonly end: () => void;
  /** The connection failed, or closed before the end of the response. */
  readonly fail: (err: unknown) => void;
}

/** One open watch request. */
export interface WatchConnection {
  /** Stops reading from the network until {@link WatchConnection.resume}. */
  readonly pause: () => void;
  /** Resumes reading. */
  readonly resume: () => void;
  /** Closes the connection, unless its response already ended (then it may be reused). */
  readonly destroy: () => void;
}

/** Sends a watch request and reports its response to `events`. May throw synchronously for a request it cannot send. */
export type OpenWatchConnection = (events: WatchConnectionEvents) => WatchConnection;

/** The error of a connection that closed before the end of its response (as node:http names it). */
export function closedEarly(): Error {
  return Object.assign(new Error('the connection closed before the end of the response'), {
    code: 'ECONNRESET',
  });
}
