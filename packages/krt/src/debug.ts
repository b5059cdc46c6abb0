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

/** A collection as a {@link DebugHandler} holds it. */
export interface DebuggedCollection {
  /** The collection's unique id. */
  readonly uid: number;
  /** The collection's name. */
  readonly name: string;
  /** Its state now. */
  dump(): CollectionDump;
}

/**
 * Collects collections (those created with `options.debug`) for a JSON dump: per collection its
 * inputs, outputs and dependencies (Istio's `/debug/krtz`). Collections unregister when stopped.
 * Create one with {@link createDebugHandler}.
 */
export interface DebugHandler {
  /** Adds a collection (done by the collection itself). */
  register(c: DebuggedCollection): void;
  /** Removes a collection (done by the collection when it stops). */
  unregister(c: { readonly uid: number }): void;
  /** How many collections are registered. */
  readonly size: number;
  /** The dump, oldest collection first. */
  dump(): DebugEntry[];
  /** The dump, for `JSON.stringify`. */
  toJSON(): DebugEntry[];
  /**
   * A Node HTTP request listener serving the dump as JSON; `?name=substring` restricts it to
   * matching collections.
   */
  readonly httpHandler: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Creates an empty {@link DebugHandler}: pass it as `options.debug` to the collections to dump.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#createDebugHandler}
 */
export function createDebugHandler(): DebugHandler {
  return new Debug();
}

class Debug implements DebugHandler {
  readonly #collections = new Map<number, DebuggedCollection>();

  register(c: DebuggedCollection): void {
    this.#collections.set(c.uid, c);
  }

  unregister(c: { readonly uid: number }): void {
    this.#collections.delete(c.uid);
  }

  get size(): number {
    return this.#collections.size;
  }

  dump(): DebugEntry[] {
    const out: DebugEntry[] = [];
    for (const c of this.#collections.values()) out.push({ uid: c.uid, name: c.name, state: c.dump() });
    return out;
  }

  toJSON(): DebugEntry[] {
    return this.dump();
  }

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
