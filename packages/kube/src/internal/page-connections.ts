import type tls from 'node:tls';
import { Http1ResponseReader, type ResponseHead } from './http1-response-reader.ts';
import { requestHead, type WatchTls } from './tls-watch-connection.ts';
import { closedEarly, type OpenWatchConnection, type WatchConnection } from './watch-connection.ts';

/** How long a connection may stay idle before it is closed, in ms. */
const IDLE_MS = 15_000;
/** At most this many idle connections are kept (a paginated list uses two at once, read-ahead included). */
const MAX_IDLE = 4;

/** A GET a {@link PageConnections} sends. */
export interface PageRequest {
  /** An `https:` URL. */
  readonly url: URL;
  /** The request's header fields (User-Agent, Accept, credentials). */
  readonly headers: Readonly<Record<string, string>>;
  /** `user:password` for basic authentication, sent unless `headers` has an Authorization field. */
  readonly auth?: string | undefined;
}

/**
 * The TLS connections that carry the pages of paginated lists: HTTP/1.1 straight onto the socket,
 * each response decoded by {@link Http1ResponseReader} (no `ClientRequest`, llhttp,
 * `IncomingMessage` or stream event per chunk: the apiserver writes a list in chunks of 2 KiB or
 * less), kept alive between pages so that a page does not wait for a handshake. A connection goes
 * back to the idle set once its response was read whole, unless the server said `Connection:
 * close`; an idle one closes after {@link IDLE_MS}, or when the server closes it. A request that a
 * reused connection fails before any byte of its response (the server closed it meanwhile) is sent
 * again once on a new connection.
 */
export class PageConnections {
  readonly #tls: WatchTls;
  readonly #idle: tls.TLSSocket[] = [];
  /** Per idle connection: its idle timer and the listener that drops it. */
  readonly #waiting = new Map<tls.TLSSocket, { readonly timer: NodeJS.Timeout; readonly gone: () => void }>();
  /** Bumped by {@link PageConnections.close}: connections of an earlier generation are not kept. */
  #generation = 0;
  /** Cuts of the connections in use, for the client's dispose. */
  readonly #live: Set<() => void>;

  /** Connections with the TLS settings and session of `shared`; `live` holds those in use. */
  constructor(shared: WatchTls, live: Set<() => void>) {
    this.#tls = shared;
    this.#live = live;
  }

  /** Sends `request` over an idle connection, or a new one, and reports its response. */
  open(request: PageRequest): OpenWatchConnection {
    const head = requestHead(request, { close: false });
    return (events) => this.#send({ url: request.url, head, mayRetry: true }, events);
  }

  /** Closes every idle connection (those in use close when their response ends or fails). */
  close(): void {
    this.#generation++;
    for (const socket of this.#idle.splice(0)) this.#drop(socket);
  }

  /** Sends `head` over an idle connection or a new one; `mayRetry`: once more on a new one if the idle one failed unanswered. */
  #send(
    sending: { readonly url: URL; readonly head: string; readonly mayRetry: boolean },
    events: Parameters<OpenWatchConnection>[0],
  ): WatchConnection {
    const { url, head, mayRetry } = sending;
    const idle = this.#take();
    const socket = idle ?? this.#connect(url);
    const generation = this.#generation;
    let received = false;
    let done = false;
    let retried: WatchConnection | undefined;
    let answer: ResponseHead | undefined;
    const reader = new Http1ResponseReader({
      onHead: (h) => {
        answer = h;
        events.head(h);
      },
      onBody: events.body,
      onComplete: () => {
        done = true;
        detach();
        if (/\bclose\b/i.test(answer?.headers.connection ?? '') || generation !== this.#generation)
          socket.destroy();
        else this.#keep(socket);
        events.end();
      },
    });
    const onData = (data: Buffer): void => {
      received = true;
      try {
        reader.push(data);
      } catch (err) {
        fail(err);
        return;
      }
      if (!done) events.readEnd();
    };
    const fail = (err: unknown, retry = mayRetry): void => {
      if (done) return;
      done = true;
      detach();
      socket.destroy();
      // A new connection that led nowhere (the server restarted, its certificate changed): its
      // session is not tried again, as for a watch.
      if (!idle && !received) this.#tls.session = undefined;
      // A kept connection the server closed while it was idle: once more on a new one.
      if (idle && retry && !received) retried = this.#send({ url, head, mayRetry: false }, events);
      else events.fail(err);
    };
    const onEnd = (): void => {
      if (!reader.end()) fail(closedEarly());
    };
    const onClose = (): void => fail(closedEarly());
    const cut = (): void => fail(closedEarly(), false); // the client is disposed: no new connection
    const detach = (): void => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', fail);
      socket.off('close', onClose);
      this.#live.delete(cut);
    };
    this.#live.add(cut);
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', fail);
    socket.on('close', onClose);
    socket.write(head);
    return {
      pause: () => (retried ? retried.pause() : socket.pause()),
      resume: () => (retried ? retried.resume() : socket.resume()),
      destroy: () => {
        if (retried) return retried.destroy();
        if (done) return; // read whole: the connection is kept or closed already
        done = true;
        detach();
        socket.destroy();
      },
    };
  }

  #connect(url: URL): tls.TLSSocket {
    const socket = this.#tls.connect(url);
    socket.on('error', () => {}); // reported through the request's own listener while in use
    return socket;
  }

  /** An idle connection still open, taken out of the idle set. */
  #take(): tls.TLSSocket | undefined {
    for (let socket = this.#idle.pop(); socket; socket = this.#idle.pop()) {
      this.#untime(socket);
      if (!socket.destroyed && socket.writable) {
        socket.ref();
        return socket;
      }
      socket.destroy();
    }
    return undefined;
  }

  /** Keeps a connection whose response was read whole, until it is taken or idles out. */
  #keep(socket: tls.TLSSocket): void {
    if (this.#idle.length >= MAX_IDLE || socket.destroyed) {
      socket.destroy();
      return;
    }
    const gone = (): void => {
      const at = this.#idle.indexOf(socket);
      if (at >= 0) this.#idle.splice(at, 1);
      this.#drop(socket);
    };
    // Closed by the server, failed, or sent bytes nobody asked for: not reused.
    socket.on('close', gone);
    socket.on('end', gone);
    socket.on('error', gone);
    socket.on('data', gone);
    const timer = setTimeout(gone, IDLE_MS);
    timer.unref();
    this.#waiting.set(socket, { timer, gone });
    socket.unref(); // an idle connection keeps no process alive
    this.#idle.push(socket);
  }

  /** Stops waiting on an idle connection: its timer and listeners go. */
  #untime(socket: tls.TLSSocket): void {
    const waiting = this.#waiting.get(socket);
    if (!waiting) return;
    this.#waiting.delete(socket);
    clearTimeout(waiting.timer);
    socket.off('close', waiting.gone);
    socket.off('end', waiting.gone);
    socket.off('error', waiting.gone);
    socket.off('data', waiting.gone);
  }

  #drop(socket: tls.TLSSocket): void {
    this.#untime(socket);
    socket.destroy();
  }
}
