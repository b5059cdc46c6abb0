import type { Collection, Metadata } from '../core.ts';
import { internalsOf } from '../internal/internals.ts';
import { type CollectionTracker, createCollectionTracker, settle } from './tracker.ts';

/**
 * One collection under test. `create`/`delete` change the collection's sources so that an object
 * with `key` (a `namespace/name` like `a/b`) appears in, or disappears from, the collection.
 */
export interface ConformanceRig<T> {
  /** The collection under test. */
  readonly collection: Collection<T>;
  /** The metadata the collection was created with, if checked. */
  readonly metadata?: Metadata | undefined;
  /** Makes an object with this key appear. */
  create(key: string): void | Promise<void>;
  /** Makes the object with this key disappear. */
  delete(key: string): void | Promise<void>;
}

/** Builds a fresh rig whose collections stop with `signal`. */
export type RigFactory<T> = (signal: AbortSignal) => ConformanceRig<T> | Promise<ConformanceRig<T>>;

/** One case of the conformance suite. */
export interface ConformanceCase {
  /** The behaviour checked. */
  readonly name: string;
  /** Runs the case; throws on failure. */
  run(): Promise<void>;
}

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`conformance: ${message}`);
}

async function withRig<T>(
  factory: RigFactory<T>,
  fn: (rig: ConformanceRig<T>, signal: AbortSignal) => Promise<void>,
) {
  const stop = new AbortController();
  try {
    const rig = await factory(stop.signal);
    await fn(rig, stop.signal);
    stop.abort();
    assert(
      internalsOf(rig.collection).handlerCount() === 0,
      `"${rig.collection.name}" still has handlers after its signal aborted`,
    );
  } finally {
    stop.abort();
  }
}

/** Waits (bounded) until `fn` holds. */
async function eventually(fn: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`conformance: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * The behaviour every collection must have (Istio's `conformance_test.go`), as plain async
 * cases to run under any test runner:
 * `for (const c of conformanceCases(factory)) it(c.name, () => c.run())`.
 */
export function conformanceCases<T>(factory: RigFactory<T>): ConformanceCase[] {
  return [
    {
      name: 'a new collection is empty and returns its metadata',
      run: () =>
        withRig(factory, async (rig, signal) => {
          assert(await rig.collection.waitUntilSynced(signal), 'collection never synced');
          assert(
            rig.collection.list().length === 0,
            `expected no objects, have ${rig.collection.list().length}`,
          );
          if (rig.metadata) {
            assert(
              JSON.stringify(rig.collection.metadata()) === JSON.stringify(rig.metadata),
              'metadata() differs from the configured metadata',
            );
          }
        }),
    },
    {
      name: 'early handler, add, late handler: events, reads and sync',
      run: () =>
        withRig(factory, async (rig, signal) => {
          const c = rig.collection;
          const early = createCollectionTracker(c);
          assert(await c.waitUntilSynced(signal), 'collection never synced');
          assert(await early.registration.waitUntilSynced(signal), 'early registration never synced');
          await rig.create('a/b');
          await early.waitOrdered('add/a/b');
          assert(c.list().length === 1, `list() has ${c.list().length} objects, want 1`);
          assert(c.get('a/b') !== undefined, 'get("a/b") is undefined');
          const late = createCollectionTracker(c);
          await late.waitOrdered('add/a/b');
          assert(await late.registration.waitUntilSynced(signal), 'late registration never synced');
          early.stop();
          late.stop();
        }),
    },
    {
      name: 'a blocked handler never syncs and blocks nobody else',
      run: () =>
        withRig(factory, async (rig, signal) => {
          const c = rig.collection;
          await c.waitUntilSynced(signal);
          await rig.create('a/b');
          await eventually(() => c.get('a/b') !== undefined, 'a/b');
          const blocked = c.registerBatch(() => new Promise<void>(() => {}), true);
          const other = createCollectionTracker(c);
          await other.waitOrdered('add/a/b');
          assert(await other.registration.waitUntilSynced(signal), 'other registration never synced');
          await rig.create('a/c');
          await other.waitOrdered('add/a/c');
          await rig.create('a/d');
          await other.waitOrdered('add/a/d');
          const third = createCollectionTracker(c);
          await third.waitUnordered('add/a/b', 'add/a/c', 'add/a/d');
          assert(!blocked.hasSynced(), 'the blocked registration reports synced');
          blocked.remove();
          other.stop();
          third.stop();
        }),
    },
    {
      name: 'an unregistered handler receives nothing further',
      run: () =>
        withRig(factory, async (rig, signal) => {
          const c = rig.collection;
          await c.waitUntilSynced(signal);
          const t = createCollectionTracker(c);
          const witness = createCollectionTracker(c);
          await rig.create('a/b');
          await t.waitOrdered('add/a/b');
          t.stop();
          await rig.create('a/c');
          await witness.waitUnordered('add/a/b', 'add/a/c');
          await t.empty();
          witness.stop();
        }),
    },
    {
      name: 'a handler registered during concurrent creates sees every object exactly once',
      run: () =>
        withRig(factory, async (rig, signal) => {
          const c = rig.collection;
          await c.waitUntilSynced(signal);
          const keys = Array.from({ length: 20 }, (_, i) => `a/o${i}`);
          const pending: Array<void | Promise<void>> = [];
          let t: CollectionTracker | undefined;
          for (const [i, k] of keys.entries()) {
            pending.push(rig.create(k));
            if (i === 9) t = createCollectionTracker(c);
          }
          await Promise.all(pending);
          await t!.waitUnordered(...keys.map((k) => `add/${k}`));
          await t!.empty();
          const counts = new Map<string, number>();
          for (const e of t!.all()) counts.set(e, (counts.get(e) ?? 0) + 1);
          for (const [e, n] of counts) assert(n === 1, `${e} delivered ${n} times`);
          t!.stop();
        }),
    },
    {
      name: 'replacing a key emits delete then add',
      run: () =>
        withRig(factory, async (rig, signal) => {
          const c = rig.collection;
          await c.waitUntilSynced(signal);
          const t = createCollectionTracker(c);
          await rig.create('a/b');
          await t.waitOrdered('add/a/b');
          await rig.delete('a/b');
          await rig.create('a/c');
          await t.waitOrdered('delete/a/b', 'add/a/c');
          const all = t.all();
          assert(all.indexOf('delete/a/b') >= 0 && all.indexOf('add/a/c') >= 0, 'missing events');
          assert(c.get('a/b') === undefined && c.get('a/c') !== undefined, 'state after replace is wrong');
          await settle();
          t.stop();
        }),
    },
  ];
}
