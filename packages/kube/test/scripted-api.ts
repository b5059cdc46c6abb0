import type { ApiClient, ListOptions, ObjectList, WatchEvent, WatchOptions } from '../src/api.ts';
import { apiErrorFromStatus } from '../src/errors.ts';
import type { KubeObject } from '../src/object.ts';

/** A watch stream the test drives by hand. */
export class ScriptedWatch {
  readonly opts: WatchOptions;
  #queue: Array<{ event?: WatchEvent; error?: unknown; end?: true }> = [];
  #wake: (() => void) | undefined;
  ended = false;

  constructor(opts: WatchOptions) {
    this.opts = opts;
  }

  push(...events: WatchEvent[]): void {
    for (const event of events) this.#queue.push({ event });
    this.#wake?.();
  }

  fail(error: unknown): void {
    this.#queue.push({ error });
    this.#wake?.();
  }

  end(): void {
    this.#queue.push({ end: true });
    this.#wake?.();
  }

  async *iterate(): AsyncGenerator<WatchEvent> {
    const signal = this.opts.signal;
    const onAbort = (): void => this.#wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (signal?.aborted) return;
        const next = this.#queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        if (next.end) return;
        if (next.error) throw next.error;
        yield next.event!;
      }
    } finally {
      this.ended = true;
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** An ApiClient whose list and watch answers are scripted by the test. */
export class ScriptedApi implements ApiClient {
  readonly lists: ListOptions[] = [];
  readonly watches: ScriptedWatch[] = [];
  listHandler: (opts: ListOptions) => ObjectList | Promise<ObjectList> = () => ({
    metadata: { resourceVersion: '1' },
    items: [],
  });
  /** Errors for the next watch calls, thrown when the watch is opened. */
  readonly watchErrors: unknown[] = [];
  #watchWaiters: Array<() => void> = [];

  async list<T extends KubeObject>(_r: unknown, opts: ListOptions = {}): Promise<ObjectList<T>> {
    this.lists.push(opts);
    return (await this.listHandler(opts)) as ObjectList<T>;
  }

  watch<T extends KubeObject>(_r: unknown, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const err = this.watchErrors.shift();
    if (err !== undefined) {
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(err),
        }),
      };
    }
    const w = new ScriptedWatch(opts);
    this.watches.push(w);
    for (const wake of this.#watchWaiters.splice(0)) wake();
    return { [Symbol.asyncIterator]: () => w.iterate() as AsyncGenerator<WatchEvent<T>> };
  }

  /** Resolves with the n-th watch (0-based) once it has been opened. */
  async watchNumber(n: number, timeoutMs = 30_000): Promise<ScriptedWatch> {
    const deadline = Date.now() + timeoutMs;
    while (this.watches.length <= n) {
      if (Date.now() > deadline)
        throw new Error(`watch #${n} was not opened within ${timeoutMs} ms (opened ${this.watches.length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 10);
        this.#watchWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.watches[n]!;
  }

  get(): Promise<never> {
    return Promise.reject(apiErrorFromStatus(404, { reason: 'NotFound', message: 'not scripted' }));
  }
  create(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }
  update(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }
  patch(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }
  delete(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }
  request(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }
  close(): void {}

  async [Symbol.asyncDispose](): Promise<void> {}
}

/** What a scripted ConfigMap holds beyond its name and resourceVersion. */
export interface CMOptions {
  /** Default: empty. */
  readonly data?: Record<string, string>;
  /** Default: `ns`. */
  readonly namespace?: string;
}

/** A ConfigMap with a name and resourceVersion. */
export function cm(
  name: string,
  rv: string,
  { data = {}, namespace = 'ns' }: CMOptions = {},
): KubeObject & { data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, resourceVersion: rv }, data };
}
