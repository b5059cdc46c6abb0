import {
  createLeaderElector,
  createQueue,
  type LeaderElectionOptions,
  type LeaderElector,
  type Queue,
} from '@kubeloom/controllers';
import {
  consoleLogger,
  ignoreNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  objectKeyOf,
  type ResourceDescriptor,
  serializeError,
} from '@kubeloom/kube';
import type { Collection, Registration } from './core.ts';
import { equal } from './equality.ts';
import type { ObjectWithStatus } from './status.ts';

/** Writes (or, with `undefined`, clears) the status of one object. */
export type StatusWrite<I, S> = (obj: I, status: S | undefined, signal: AbortSignal) => Promise<void>;

/**
 * Leader election run by the writer itself: the options of `createLeaderElector` from
 * `@kubeloom/controllers` without the callbacks, which the writer supplies.
 */
export type StatusWriterLeaderElection = Omit<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading'>;

/** Options of {@link startStatusWriter}. */
export interface StatusWriterOptions<I, S> {
  /** Stops the writer (its queue, its registration and its elector, which releases the Lease). */
  readonly signal: AbortSignal;
  /** Writes a status; see {@link applyStatusWrite} for server-side apply. */
  readonly write: StatusWrite<I, S>;
  /** The live status of an object, to skip writes that would change nothing. */
  readonly currentStatus?: ((obj: I) => S | undefined) | undefined;
  /**
   * Who decides when this replica writes (every replica computes the statuses; one writes them):
   *
   * - `'always'` (the default): write whenever {@link StatusWriterOptions.isLeader} allows.
   * - `'manual'`: write only within {@link StatusWriter.lead} (call it from the
   *   `onStartedLeading` of the process's own elector).
   * - leader-election settings: the writer campaigns for that Lease with `createLeaderElector`
   *   until `signal` aborts, writing while it leads and campaigning again after losing.
   *
   * Becoming leader resyncs (every current status is checked and written if needed); losing
   * leadership aborts the writes in flight and nothing more is written.
   */
  readonly leadership?: 'always' | 'manual' | StatusWriterLeaderElection | undefined;
  /**
   * The low-level hook: writes happen only while this also returns true (default: always).
   * Checked before every write; call {@link StatusWriter.resync} when it turns true.
   */
  readonly isLeader?: (() => boolean) | undefined;
  /** Total attempts per write (default 5). */
  readonly maxAttempts?: number | undefined;
  /** Where failures are logged. */
  readonly logger?: Logger | undefined;
}

/** Counters of a {@link StatusWriter}, for tests and debugging. */
export interface StatusWriterStats {
  /** Statuses written (or cleared). */
  readonly writes: number;
  /** Keys skipped because this replica was not the leader. */
  readonly skippedNotLeader: number;
  /** Keys skipped because the live status already equals the desired one. */
  readonly skippedUnchanged: number;
}

/** A running status writer. */
export interface StatusWriter {
  /** The registration on the status collection. */
  readonly registration: Registration;
  /** The write queue (for `hasSynced` and tests). */
  readonly queue: Queue<string>;
  /** The elector the writer runs (with leader-election settings in `leadership`). */
  readonly elector: LeaderElector | undefined;
  /** Resolves once stopped: the queue closed and the elector (if any) released the Lease. */
  readonly closed: Promise<void>;
  /** True while this writer may write: leading (unless `'always'`) and `isLeader()`. */
  isWriting(): boolean;
  /**
   * Writes while `signal` is not aborted (`'manual'` leadership; the writer's own elector uses it
   * too): resyncs at once, and resolves when `signal` aborts or the writer stops, after which
   * nothing more is written until the next call.
   */
  lead(signal: AbortSignal): Promise<void>;
  /** Enqueues every current status, and every pending clear (done when leadership is acquired). */
  resync(): void;
  /** Counters. */
  stats(): StatusWriterStats;
  /**
   * Stops the writer as aborting its `signal` does (the elector releases the Lease) and resolves
   * with {@link StatusWriter.closed}, for `await using`.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts writing the statuses of a status collection to the cluster through a deduplicating
 * queue (running when the call returns; `signal` or disposal stops it): each
 * change of an object or of its status enqueues its key; the reconciler writes the current
 * desired status (or clears it when it disappeared), skipping the write when this replica does
 * not lead (see {@link StatusWriterOptions.leadership}) or when the live status is already equal.
 * Since an object's status collection entry changes when the live object does, a status changed
 * by someone else is written again.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#startStatusWriter}
 */
export function startStatusWriter<I, S>(
  statuses: Collection<ObjectWithStatus<I, S>>,
  opts: StatusWriterOptions<I, S>,
): StatusWriter {
  const disposed = new AbortController();
  const stop = AbortSignal.any([opts.signal, disposed.signal]);
  const name = `${statuses.name}/writer`;
  const logger = (opts.logger ?? consoleLogger('warn')).child({ statusWriter: name });
  const cleared = new Map<string, I>();
  const isLeader = opts.isLeader ?? (() => true);
  const mode = opts.leadership ?? 'always';
  /** The signal of the current leadership term (`lead`), if any. */
  let term: AbortSignal | undefined;
  let writes = 0;
  let skippedNotLeader = 0;
  let skippedUnchanged = 0;

  const isWriting = (): boolean => {
    if (stop.aborted || !isLeader()) return false;
    return mode === 'always' || (term !== undefined && !term.aborted);
  };

  const queue = createQueue<string>({
    name,
    maxAttempts: opts.maxAttempts ?? 5,
    logger,
    reconciler: async (key, ctx) => {
      if (!isWriting()) {
        skippedNotLeader++;
        return;
      }
      const signal = term === undefined ? ctx.signal : AbortSignal.any([ctx.signal, term]);
      const cur = statuses.get(key);
      if (cur !== undefined) {
        cleared.delete(key);
        if (opts.currentStatus && equal(opts.currentStatus(cur.obj), cur.status)) {
          skippedUnchanged++;
          return;
        }
        await opts.write(cur.obj, cur.status, signal);
        writes++;
        return;
      }
      const obj = cleared.get(key);
      if (obj === undefined) return;
      await opts.write(obj, undefined, signal);
      cleared.delete(key);
      writes++;
    },
  });
  const registration = statuses.register((e) => {
    const o = (e.new ?? e.old)!;
    const key = o.resourceName();
    if (e.type === 'delete') cleared.set(key, o.obj);
    else cleared.delete(key);
    queue.add(key);
  });
  const queueDone = registration.waitUntilSynced(stop).then((ok) => {
    if (ok) return queue.run(stop);
    return queue[Symbol.asyncDispose](); // never synced: release it
  });
  const shutDown = (): void => {
    registration.remove();
    void queue[Symbol.asyncDispose](); // stops it even before it ran
  };
  if (stop.aborted) shutDown();
  else stop.addEventListener('abort', shutDown, { once: true });

  const resync = (): void => {
    for (const o of statuses.list()) queue.add(o.resourceName());
    for (const key of cleared.keys()) queue.add(key);
  };

  const lead = (signal: AbortSignal): Promise<void> => {
    if (stop.aborted || signal.aborted) return Promise.resolve();
    term = signal;
    logger.info('writing statuses: leading');
    resync();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        stop.removeEventListener('abort', done);
        if (term === signal) {
          term = undefined;
          logger.info('stopped writing statuses: no longer leading');
        }
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      stop.addEventListener('abort', done, { once: true });
    });
  };

  let elector: LeaderElector | undefined;
  let electorDone: Promise<void> = Promise.resolve();
  if (typeof mode === 'object') {
    elector = createLeaderElector({
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...mode,
      onStartedLeading: (signal) => lead(signal),
    });
    const e = elector;
    electorDone = (async () => {
      // Campaign again after losing, until the writer stops (run resolves at once on abort).
      while (!stop.aborted) {
        try {
          await e.run(stop);
        } catch (err) {
          logger.error('status writer leader election failed; stopping it', { err: serializeError(err) });
          return;
        }
      }
    })();
  }

  const closed = Promise.all([queueDone, electorDone]).then(() => {});
  return {
    registration,
    queue,
    elector,
    closed,
    [Symbol.asyncDispose]: async () => {
      disposed.abort();
      await closed;
    },
    isWriting,
    lead,
    resync,
    stats: () => ({ writes, skippedNotLeader, skippedUnchanged }),
  };
}

/**
 * A {@link StatusWrite} by server-side apply on the status subresource:
 * `kube.api.patch(resource, name, namespace, {apiVersion, kind, metadata, status}, 'apply',
 * { fieldManager, force: true, subresource: 'status' })`. Clearing applies an empty status
 * (releasing the fields this manager owned); a vanished object is ignored.
 *
 * @example
 * {@includeCode ./doc-examples.test.ts#applyStatusWrite}
 */
export function applyStatusWrite<I extends KubeObject, S>(
  kube: KubeClient,
  resource: ResourceDescriptor,
  fieldManager: string,
): StatusWrite<I, S> {
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  return async (obj, status, signal) => {
    const { namespace, name } = objectKeyOf(obj);
    const body = {
      apiVersion,
      kind: resource.kind,
      metadata: namespace ? { name, namespace } : { name },
      status: status ?? {},
    };
    await ignoreNotFound(
      kube.api.patch({ resource, name, namespace }, body, {
        type: 'apply',
        fieldManager,
        force: true,
        subresource: 'status',
        signal,
      }),
    );
  };
}
