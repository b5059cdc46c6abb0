import {
  type ApiClient,
  isConflict,
  isNotFound,
  type KubeObject,
  keyOf,
  type Logger,
  noopLogger,
  type ObjectKey,
  type ResourceEventHandler,
  serializeError,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import type { KeySink, Reconciler } from './queue.ts';
import { shardLabels } from './shard-labels.ts';

/** Options of {@link shardedReconciler}. */
export interface ShardedReconcilerOptions<T extends KubeObject> {
  /** The ring's name. */
  readonly ring: string;
  /** This replica's shard identity (as given to `createShardMember`). */
  readonly identity: string;
  /** The API the drain acknowledgement is written through, e.g. `kubeClient.api`. */
  readonly api: ApiClient;
  /** The sharded resource. */
  readonly resource: TypedResourceDescriptor<T>;
  /**
   * Reads the object from this replica's cache (the informer restricted to its share), e.g.
   * `(key) => client.get(key.name, key.namespace)`.
   */
  readonly get: (key: ObjectKey) => T | undefined;
  /** The controller's own reconciler, called only for objects this replica may reconcile. */
  readonly reconciler: Reconciler<ObjectKey>;
  /** The field manager of the acknowledgement patch. Default `kubeloom-shard`. */
  readonly fieldManager?: string;
  /**
   * When an acknowledgement fails (other than a conflict or not-found), retry it after this many
   * milliseconds. Default 1000. The key is requeued with this fixed delay rather than failing into
   * the queue's backoff: a key that failed before (its reconciles, or earlier acknowledgements)
   * would otherwise wait out an exponentially grown delay — or be dropped with its retry budget —
   * and an object with no further events would stay draining, its move stuck, for that long.
   */
  readonly ackRetryMs?: number;
  /** Where a failed acknowledgement is logged (it is retried, not thrown). Default: nowhere. */
  readonly logger?: Logger;
  /**
   * Adoption: true while a shard is fenced (e.g. the ring view's `isFenced`, see
   * `ShardRing.isFenced`). An object of a fenced shard whose standby label names this replica is
   * then reconciled as this replica's own, before the sharder relabels it; give the replica's
   * cache those objects too (a union of `shard=<identity>` and, per fenced shard D,
   * `shard=D,standby=<identity>`). Default: no adoption.
   */
  readonly isFenced?: (shard: string) => boolean;
}

/**
 * Wraps a reconciler so a shard reconciles only what it owns and lets go of what the sharder
 * moves (the owner's half of the drain handshake). For each key, on the cached object:
 *
 * - labelled `shard.kubeloom.dev/<ring>=<identity>` without the drain label: the reconciler runs;
 * - carrying `drain.kubeloom.dev/<ring>`: the reconciler does **not** run; the shard acknowledges
 *   the drain by removing both labels with a merge patch conditioned on the cached
 *   resourceVersion (a failure other than a conflict is retried after `ackRetryMs`, never
 *   thrown into the key's backoff). The queue never runs one key twice at once, so this runs only after an
 *   in-flight reconcile of the key finished; and every later reconcile of the key sees the drain
 *   label or no object at all, so this shard never touches the object again until the sharder
 *   assigns it back. The sharder writes the new owner only after it saw the labels gone;
 * - labelled for a fenced shard (`isFenced`) with the standby label naming this shard and no
 *   drain label: adopted, the reconciler runs as for its own (the sharder will relabel it to this
 *   shard); its owner lost its Lease before the fence was set, and the sharder never changes the
 *   standby of a fenced shard's object except by moving it here;
 * - labelled for another shard: skipped (a cache that is not restricted to this shard);
 * - absent: the reconciler runs only when this shard reconciled the object as its own and did not
 *   hand it over since (a deletion); an adopted one only while its owner is still fenced (else the
 *   fence ended and it left this cache, which is no deletion). An object it let go of (moved away), or never held (a key
 *   enqueued by a secondary handler — e.g. an owned object's event — while the object belongs to
 *   another shard, or has not reached this shard's cache yet), is skipped: another shard may be
 *   reconciling it. A controller that must see deletions of objects it never saw while they
 *   existed (after a restart, say) needs a finalizer, as without sharding.
 *
 * Register {@link drainHandler} on the informer too, unless your handler already enqueues on
 * every label change. From `src/sharding.example.test.ts`:
 *
 * {@includeCode ./sharding.example.test.ts#reconciler}
 */
export function shardedReconciler<T extends KubeObject>(
  opts: ShardedReconcilerOptions<T>,
): Reconciler<ObjectKey> {
  const labels = shardLabels(opts.ring);
  /**
   * Keys reconciled as this shard's own and not handed over since (bounded by the share), with
   * the owner they were held under: this shard, or the fenced shard they were adopted from.
   */
  const owned = new Map<string, string>();
  const isFenced = opts.isFenced ?? (() => false);
  const fieldManager = opts.fieldManager ?? 'kubeloom-shard';
  const ackRetryMs = opts.ackRetryMs ?? 1000;
  if (!Number.isFinite(ackRetryMs) || ackRetryMs < 0)
    throw new RangeError(`shardedReconciler: ackRetryMs must be a finite number ≥ 0, got ${ackRetryMs}`);
  const logger = opts.logger ?? noopLogger;
  return async (key, ctx) => {
    const obj = opts.get(key);
    const k = keyOf(key);
    if (obj === undefined) {
      const heldAs = owned.get(k);
      if (heldAs === undefined) return;
      if (heldAs !== opts.identity && !isFenced(heldAs)) {
        owned.delete(k); // the fence ended: the object left the adopters' cache, it was not deleted
        return;
      }
      // Forgotten once handled: a failed deletion reconcile is retried (the queue calls again).
      const result = await opts.reconciler(key, ctx);
      owned.delete(k);
      return result;
    }
    const objLabels = obj.metadata?.labels ?? {};
    const owner = objLabels[labels.shard];
    if (owner !== opts.identity) {
      if (
        owner !== undefined &&
        objLabels[labels.standby] === opts.identity &&
        objLabels[labels.drain] === undefined &&
        isFenced(owner)
      ) {
        owned.set(k, owner);
        return opts.reconciler(key, ctx);
      }
      owned.delete(k);
      return;
    }
    if (objLabels[labels.drain] === undefined) {
      owned.set(k, opts.identity);
      return opts.reconciler(key, ctx);
    }
    try {
      await opts.api.patch(
        { resource: opts.resource, name: key.name, namespace: key.namespace },
        {
          metadata: {
            resourceVersion: obj.metadata?.resourceVersion,
            labels: { [labels.shard]: null, [labels.drain]: null },
          },
        },
        { type: 'merge', fieldManager, signal: ctx.signal },
      );
      owned.delete(k);
    } catch (err) {
      // The object changed (or went) since the cache saw it: its next event enqueues it again.
      if (isConflict(err) || isNotFound(err)) return;
      if (ctx.signal.aborted) throw err;
      // Retried on a fixed delay, not thrown into the key's backoff (see ackRetryMs).
      logger.warn('drain acknowledgement failed; retrying', {
        key: k,
        retryAfterMs: ackRetryMs,
        err: serializeError(err),
      });
      return { requeueAfterMs: ackRetryMs };
    }
  };
}

/**
 * An event handler that adds an object's key to `sink` when the sharder asks its shard to drain
 * it (the `drain.kubeloom.dev/<ring>` label appears), for controllers whose own handler ignores
 * metadata-only updates.
 *
 * @example The sharded reconciler and its drain handler, from src/sharding.example.test.ts
 * {@includeCode ./sharding.example.test.ts#reconciler}
 */
export function drainHandler<T extends KubeObject>(
  ring: string,
  sink: KeySink<ObjectKey>,
): ResourceEventHandler<T> {
  const { drain } = shardLabels(ring);
  const add = (obj: T): void => {
    if (obj.metadata?.labels?.[drain] === undefined) return;
    const { name = '', namespace } = obj.metadata;
    sink.add(namespace ? { namespace, name } : { name });
  };
  return { onAdd: (obj) => add(obj), onUpdate: (_old, obj) => add(obj) };
}
