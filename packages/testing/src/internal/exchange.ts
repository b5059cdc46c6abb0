import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** What a fault attached to an exchange must offer so the exchange can let go of it when it ends. */
export interface ExchangeFault {
  /** Called when the exchange closes, so the fault stops tracking it. */
  forget(exchange: Exchange): void;
}

/** Callbacks from an exchange to its proxy. */
export interface ExchangeHooks {
  /** Something observable changed (head sent, held, closed, …). */
  changed(): void;
  /** The exchange is over: the client response closed, normally or not. */
  closed(exchange: Exchange): void;
}

const NEWLINE = 0x0a;

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * One request through the proxy and its response: the valve that every byte for the client goes
 * through. Writes are serialized; each waits while a stall is attached, then sleeps for the
 * largest attached delay. Injected watch lines are written at the next line boundary so they never
 * split an event. Nothing is buffered beyond the chunk being written: the upstream is read one
 * chunk at a time, so a stall pushes back on the apiserver through TCP.
 */
export class Exchange {
  /** Client request. */
  readonly req: IncomingMessage;
  /** Client response. */
  readonly res: ServerResponse;
  /** True for `watch=true` requests. */
  readonly watch: boolean;
  /** The upstream request, once forwarded. */
  upstreamReq: ClientRequest | undefined;
  /** The upstream response, once its head arrived. */
  upstreamRes: IncomingMessage | undefined;
  /** The status line went to the client. */
  headSent = false;
  /** The status sent to the client. */
  status: number | undefined;
  /** The client response closed (finished or cut). */
  closed = false;
  /** Waiting behind a stall. */
  held = false;
  /** Sleeping in a delay. */
  delayed = false;
  /** Resolves when the client response closed. */
  readonly done: Promise<void>;
  readonly #resolveDone: () => void;

  readonly #hooks: ExchangeHooks;
  readonly #stalls = new Set<ExchangeFault>();
  readonly #delays = new Map<ExchangeFault, number>();
  readonly #waiters = new Set<() => void>();
  #chain: Promise<unknown> = Promise.resolve();
  #atLineStart = true;
  readonly #pending: Array<{ data: Buffer; close: boolean }> = [];
  #ended = false;

  /** `watch`: the request is a watch (its response is streamed line by line). */
  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    { watch, ...hooks }: ExchangeHooks & { watch: boolean },
  ) {
    this.req = req;
    this.res = res;
    this.watch = watch;
    this.#hooks = hooks;
    let resolveDone: () => void = () => {};
    this.done = new Promise((resolve) => {
      resolveDone = resolve;
    });
    this.#resolveDone = resolveDone;
    res.once('close', () => this.#onClose());
  }

  /** A watch whose 200 head reached the client and that is still open. */
  get activeWatch(): boolean {
    return this.watch && this.headSent && this.status === 200 && !this.closed && !this.#ended;
  }

  /** Holds every byte (and the request itself, if not yet forwarded) until detached. */
  attachStall(fault: ExchangeFault): void {
    if (this.closed) return;
    this.#stalls.add(fault);
  }

  /** Sleeps `ms` before every chunk until detached. */
  attachDelay(fault: ExchangeFault, ms: number): void {
    if (this.closed) return;
    this.#delays.set(fault, ms);
  }

  /** Removes a stall or delay; held bytes flow again, a running delay ends early. */
  detach(fault: ExchangeFault): void {
    const had = this.#stalls.delete(fault) || this.#delays.delete(fault);
    if (had) this.#wake();
  }

  /** Waits while stalled. False when the exchange is over. */
  async release(): Promise<boolean> {
    while (!this.closed && this.#stalls.size > 0) {
      if (!this.held) {
        this.held = true;
        this.#hooks.changed();
      }
      await this.#nextWake();
    }
    if (this.held) {
      this.held = false;
      this.#hooks.changed();
    }
    return !this.closed;
  }

  /** Sends the response head. False when the exchange is over. */
  sendHead(status: number, headers: OutgoingHttpHeaders): Promise<boolean> {
    return this.#serial(async () => {
      if (!(await this.#pause()) || this.#ended) return false;
      this.res.writeHead(status, headers);
      this.res.flushHeaders();
      this.headSent = true;
      this.status = status;
      this.#hooks.changed();
      return true;
    });
  }

  /** Forwards one chunk of the body. False when the exchange is over. */
  sendChunk(chunk: Buffer): Promise<boolean> {
    return this.#serial(async () => {
      if (!(await this.#pause())) return false;
      if (this.#pending.length === 0) return await this.#write(chunk);
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) return await this.#write(chunk);
      if (!(await this.#write(chunk.subarray(0, newline + 1)))) return false;
      if (!(await this.#flushPending())) return false;
      return await this.#write(chunk.subarray(newline + 1));
    });
  }

  /** Ends the response after everything queued. */
  end(): Promise<void> {
    return this.#serial(async () => {
      if (!(await this.#pause())) return;
      if (this.#pending.length > 0) {
        if (!this.#atLineStart && !(await this.#write(Buffer.from('\n')))) return;
        if (!(await this.#flushPending())) return;
      }
      this.#finish();
    });
  }

  /** Answers locally (a head and a whole body) instead of forwarding. */
  respond(status: number, headers: OutgoingHttpHeaders, body: string): Promise<void> {
    return this.#serial(async () => {
      if (!(await this.#pause()) || this.#ended) return;
      this.res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
      this.headSent = true;
      this.status = status;
      this.#ended = true;
      this.res.end(body);
      this.#hooks.changed();
    });
  }

  /**
   * Queues `data` (whole lines) for the client at the next line boundary, after anything already
   * queued; with `close`, the response ends right after it (and the upstream request is dropped).
   */
  inject(data: Buffer, close: boolean): void {
    void this.#serial(async () => {
      if (!(await this.#pause())) return false;
      this.#pending.push({ data, close });
      return this.#atLineStart ? await this.#flushPending() : true;
    });
  }

  /** Destroys the client connection and the upstream request: the client sees a reset. */
  cut(): void {
    if (this.closed || this.#ended) return;
    this.#ended = true; // nothing more goes out; no longer an active watch
    this.req.socket.destroy();
    this.upstreamReq?.destroy();
  }

  async #pause(): Promise<boolean> {
    if (!(await this.release())) return false;
    let ms = 0;
    for (const d of this.#delays.values()) ms = Math.max(ms, d);
    if (ms <= 0) return true;
    this.delayed = true;
    this.#hooks.changed();
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      this.#waiters.add(resolve);
    });
    clearTimeout(timer);
    if (wake) this.#waiters.delete(wake);
    this.delayed = false;
    this.#hooks.changed();
    // A stall may have started meanwhile.
    return await this.release();
  }

  async #write(data: Buffer): Promise<boolean> {
    if (this.closed || this.#ended) return false;
    if (data.length === 0) return true;
    this.#atLineStart = data[data.length - 1] === NEWLINE;
    if (!this.res.write(data)) await drained(this.res);
    return !this.closed;
  }

  async #flushPending(): Promise<boolean> {
    for (let next = this.#pending.shift(); next; next = this.#pending.shift()) {
      if (!(await this.#write(next.data))) return false;
      if (next.close) {
        this.#pending.length = 0;
        this.#finish();
        return false;
      }
    }
    return true;
  }

  #finish(): void {
    if (this.#ended || this.closed) return;
    this.#ended = true;
    this.res.end();
    if (!this.upstreamRes?.complete) this.upstreamReq?.destroy();
    this.#hooks.changed();
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(step);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  #nextWake(): Promise<void> {
    return new Promise((resolve) => this.#waiters.add(resolve));
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const w of waiters) w();
  }

  #onClose(): void {
    this.closed = true;
    this.held = false;
    this.delayed = false;
    if (!this.upstreamRes?.complete) this.upstreamReq?.destroy();
    for (const fault of [...this.#stalls, ...this.#delays.keys()]) fault.forget(this);
    this.#stalls.clear();
    this.#delays.clear();
    this.#wake();
    this.#hooks.closed(this);
    this.#resolveDone();
  }
}
