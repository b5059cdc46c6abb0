import type { IncomingMessage, ServerResponse } from 'node:http';

/** The debug dump of one collection. */
export interface CollectionDump {
  /** Kind of collection. */
  readonly kind: string;
  /** True once synced. */
  readonly synced: boolean;
  /** The collection this one derives from, if any. */
  readonly inputCollection?: string | undefined;
  /** Outputs by key. */
  readonly outputs: Record<string, unknown>;
  /** Per input key: the output keys and the names of the collections it fetched. */
  readonly inputs?: Record<string, { outputs: string[]; dependencies: string[]; error?: string }> | undefined;
  /** Extra, collection-specific details. */
  readonly [extra: string]: unknown;
}

/** One collection in a {@link DebugHandler} dump. */
export interface DebugEntry {
  /** The collection's unique id. */
  readonly uid: number;
  /** The collection's name. */
  readonly name: string;
  /** Its state: inputs, outputs, dependencies, sync. */
  readonly state: CollectionDump;
}

/**
 * Collects collections (those created with `options.debug`) for a JSON dump: per collection its
 * inputs, outputs and dependencies (Istio's `/debug/krtz`). Collections unregister when stopped.
 */
export class DebugHandler {
  readonly #collections = new Map<
    number,
    { readonly uid: number; readonly name: string; dump(): CollectionDump }
  >();

  /** Adds a collection (done by the collection itself). */
  register(c: { readonly uid: number; readonly name: string; dump(): CollectionDump }): void {
    this.#collections.set(c.uid, c);
  }

  /** Removes a collection (done by the collection when it stops). */
  unregister(c: { readonly uid: number }): void {
    this.#collections.delete(c.uid);
  }

  /** How many collections are registered. */
  get size(): number {
    return this.#collections.size;
  }

  /** The dump, oldest collection first. */
  dump(): DebugEntry[] {
    const out: DebugEntry[] = [];
    for (const c of this.#collections.values()) out.push({ uid: c.uid, name: c.name, state: c.dump() });
    return out;
  }

  /** The dump, for `JSON.stringify`. */
  toJSON(): DebugEntry[] {
    return this.dump();
  }

  /**
   * A Node HTTP request listener serving the dump as JSON; `?name=substring` restricts it to
   * matching collections.
   */
  readonly httpHandler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const filter = url.searchParams.get('name');
    const entries = this.dump().filter((e) => filter === null || e.name.includes(filter));
    let body: string;
    try {
      body = JSON.stringify(entries, null, 2);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`cannot serialize the dump: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  };
}
