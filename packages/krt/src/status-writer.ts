import { createQueue, type Queue } from '@kubeloom/controllers';
import {
  ignoreNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  objectKeyOf,
  type ResourceDescriptor,
} from '@kubeloom/kube';
import type { Collection, Registration } from './core.ts';
import { equal } from './equality.ts';
import type { ObjectWithStatus } from './status.ts';

/** Writes (or, with `undefined`, clears) the status of one object. */
export type StatusWrite<I, S> = (obj: I, status: S | undefined, signal: AbortSignal) => Promise<void>;

/** Options of {@link statusWriter}. */
export interface StatusWriterOptions<I, S> {
  /** Stops the writer (its queue and its registration). */
  readonly signal: AbortSignal;
  /** Writes a status; see {@link applyStatusWrite} for server-side apply. */
  readonly write: StatusWrite<I, S>;
  /** The live status of an object, to skip writes that would change nothing. */
  readonly currentStatus?: ((obj: I) => S | undefined) | undefined;
  /**
   * Writes happen only while this returns true (default: always). Call {@link StatusWriter.resync}
   * when leadership is acquired.
   */
  readonly isLeader?: (() => boolean) | undefined;
  /** Total attempts per write (default 5). */
  readonly maxAttempts?: number | undefined;
  /** Where failures are logged. */
  readonly logger?: Logger | undefined;
}

/** A running status writer. */
export interface StatusWriter {
  /** The registration on the status collection. */
  readonly registration: Registration;
  /** The write queue (for `hasSynced` and tests). */
  readonly queue: Queue<string>;
  /** Enqueues every current status (call it when this replica becomes leader). */
  resync(): void;
}

/**
 * Writes the statuses of a status collection to the cluster through a deduplicating queue: each
 * change of an object or its status enqueues its key; the reconciler writes the current desired
 * status (or clears it when it disappeared), skipping writes when not leader or when the live
 * status is already equal.
 */
export function statusWriter<I, S>(
  statuses: Collection<ObjectWithStatus<I, S>>,
  opts: StatusWriterOptions<I, S>,
): StatusWriter {
  const cleared = new Map<string, I>();
  const isLeader = opts.isLeader ?? (() => true);
  const queue = createQueue<string>({
    name: `${statuses.name}/writer`,
    maxAttempts: opts.maxAttempts ?? 5,
    ...(opts.logger ? { logger: opts.logger } : {}),
    reconciler: async (key, ctx) => {
      if (!isLeader()) return;
      const cur = statuses.get(key);
      if (cur !== undefined) {
        cleared.delete(key);
        if (opts.currentStatus && equal(opts.currentStatus(cur.obj), cur.status)) return;
        await opts.write(cur.obj, cur.status, ctx.signal);
        return;
      }
      const obj = cleared.get(key);
      if (obj === undefined) return;
      cleared.delete(key);
      await opts.write(obj, undefined, ctx.signal);
    },
  });
  const registration = statuses.register((e) => {
    const o = (e.new ?? e.old)!;
    const key = o.resourceName();
    if (e.type === 'delete') cleared.set(key, o.obj);
    queue.add(key);
  });
  void registration.waitUntilSynced(opts.signal).then((ok) => {
    if (ok) void queue.run(opts.signal);
  });
  opts.signal.addEventListener('abort', () => {
    registration.remove();
    queue.shutDownEarly();
  });
  return {
    registration,
    queue,
    resync: () => {
      for (const o of statuses.list()) queue.add(o.resourceName());
    },
  };
}

/**
 * A {@link StatusWrite} by server-side apply on the status subresource:
 * `kube.api.patch(resource, name, namespace, {apiVersion, kind, metadata, status}, 'apply',
 * { fieldManager, force: true, subresource: 'status' })`. Clearing applies an empty status
 * (releasing the fields this manager owned); a vanished object is ignored.
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
      kube.api.patch(resource, name, namespace, body, 'apply', {
        fieldManager,
        force: true,
        subresource: 'status',
        signal,
      }),
    );
  };
}
