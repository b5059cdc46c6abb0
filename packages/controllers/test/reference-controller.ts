/**
 * The reference controller: the pattern to copy when you write a controller by hand (the
 * counterpart of Istio's `pkg/kube/controllers/example_test.go`). Any divergence from it is
 * likely a bug.
 *
 * It mirrors every ConfigMap labelled `example.kubeloom.dev/mirror=true` into a ConfigMap named
 * `<name>-mirror` in the same namespace, owned by the source. It repairs the mirror when someone
 * edits or deletes it, and deletes it when the source loses its label or is deleted.
 *
 * The same scenario runs against the fake cluster (milliseconds, `src/example.test.ts`) and the
 * real control plane (`src/example.integration.test.ts`). The class is the README's snippet
 * (`// #region controller`, kept equal by `pnpm check:readme`).
 */

import {
  builtins,
  type HandlerRegistration,
  ignoreNotFound,
  type KubeClient,
  type KubeObject,
  keyOf,
  noopLogger,
  type ObjectKey,
  type SharedInformer,
} from '@kubeloom/kube';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect, vi } from 'vitest';
import { createQueue } from '../src/create-queue.ts';
import { enqueueForParentHandler, filteredObjectHandler, objectHandler } from '../src/handlers.ts';
import type { Queue, ReconcileContext } from '../src/queue.ts';

// #region controller
const MIRROR_LABEL = 'example.kubeloom.dev/mirror';
const isSource = (cm: KubeObject): boolean => cm.metadata?.labels?.[MIRROR_LABEL] === 'true';
const mirrorName = (source: string): string => `${source}-mirror`;

class MirrorController {
  readonly #kube: KubeClient;
  readonly #configMaps: SharedInformer<V1ConfigMap>;
  readonly #queue: Queue<ObjectKey>;
  readonly #handlers: HandlerRegistration[];

  /**
   * Phase 1, construction: build the informers, the queue and the handlers. No I/O, nothing
   * starts, nothing blocks. `kube.runAndWait` (called once, after every controller is built)
   * starts the informers.
   */
  constructor(kube: KubeClient, namespace: string) {
    this.#kube = kube;
    // The shared informer: every controller asking for ConfigMaps in this namespace shares one watch.
    this.#configMaps = kube.informer(builtins.ConfigMap, { namespace });
    // The queue carries keys, never objects: the reconciler reads the current state from the cache.
    this.#queue = createQueue({
      name: 'configmap-mirror',
      reconciler: (key, ctx) => this.#reconcile(key, ctx),
      // Retry a failing key with backoff (5 ms doubling), 5 attempts in all, then log and drop it.
      maxAttempts: 5,
      logger: noopLogger,
    });
    this.#handlers = [
      // Sources: any add, update or delete enqueues the source's key. The filter lets an update
      // through when the old or the new version passes, so removing the label is seen.
      this.#configMaps.addEventHandler(filteredObjectHandler((cm) => this.#queue.addObject(cm), isSource)),
      // Mirrors: a change to a mirror (someone edited or deleted it) enqueues its owner.
      this.#configMaps.addEventHandler(
        objectHandler(enqueueForParentHandler(this.#queue, builtins.ConfigMap)),
      ),
    ];
  }

  /**
   * Phase 2, run: wait until the informer synced and our handlers received the initial list (so
   * every existing source is queued), then run the queue until `signal` aborts, then remove the
   * handlers. Resolves once the last in-flight reconcile finished.
   */
  async run(signal: AbortSignal): Promise<void> {
    const synced = await this.#kube.waitForCacheSync(
      'configmap mirror',
      signal,
      () => this.#configMaps.hasSynced(),
      ...this.#handlers.map((h) => () => h.hasSynced()),
    );
    if (!synced) {
      // Stopped before the caches synced: the queue never runs, release it.
      await this.#queue[Symbol.asyncDispose]();
    } else {
      await this.#queue.run(signal);
    }
    for (const h of this.#handlers) h.remove();
  }

  /** Ready once every source that existed at start was reconciled: the queue's sync, nothing else. */
  hasSynced(): boolean {
    return this.#queue.hasSynced();
  }

  /**
   * Level-based: look at the current state, never at the event that enqueued the key. Read from
   * the cache, write to the API, pass `ctx.signal` along. Throw to retry.
   */
  async #reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<void> {
    const namespace = key.namespace!;
    const source = this.#configMaps.store.get(keyOf(key));
    const name = mirrorName(key.name);
    const mirror = this.#configMaps.store.get(keyOf({ namespace, name }));
    const { api } = this.#kube;

    if (!source || !isSource(source)) {
      // Gone or no longer selected: delete the mirror (it may be gone already).
      if (mirror)
        await ignoreNotFound(
          api.delete({ resource: builtins.ConfigMap, name, namespace }, { signal: ctx.signal }),
        );
      return;
    }
    if (mirror && JSON.stringify(mirror.data ?? {}) === JSON.stringify(source.data ?? {})) return; // up to date

    const desired: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: key.name,
            uid: source.metadata!.uid!,
            controller: true,
          },
        ],
        // The cached resourceVersion makes the update conditional: a 409 throws and is retried.
        ...(mirror ? { resourceVersion: mirror.metadata?.resourceVersion } : {}),
      },
      data: { ...source.data },
    };
    if (mirror) await api.update(builtins.ConfigMap, desired, { signal: ctx.signal });
    else await api.create(builtins.ConfigMap, desired, { signal: ctx.signal });
  }
}
// #endregion controller

/** The scenario, against any cluster: `src/example.test.ts` (fake) and `src/example.integration.test.ts` (real). */
export async function mirrorScenario(kube: KubeClient, namespace: string): Promise<void> {
  const { api } = kube;
  const source = (name: string, data: Record<string, string>, mirrored = true): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: mirrored ? { [MIRROR_LABEL]: 'true' } : {} },
    data,
  });
  const mirrorData = async (name: string) =>
    (await ignoreNotFound(api.get({ resource: builtins.ConfigMap, name: mirrorName(name), namespace })))
      ?.data;
  // Every wait is bounded: vi.waitFor polls until the assertion passes or 30 s have passed (waitFor's
  // bound: on the real plane, shared by a whole loaded run, one reconcile can take seconds).
  const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 30_000, interval: 20 });

  // A source that exists before the controller starts.
  await api.create(builtins.ConfigMap, source('before', { a: '1' }));

  // Construction, then one runAndWait for every informer, then run the controller.
  const controller = new MirrorController(kube, namespace);
  const stop = new AbortController();
  try {
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    const running = controller.run(stop.signal);

    // hasSynced means the sources that existed at start were reconciled: no polling needed.
    expect(await kube.waitForCacheSync('test', stop.signal, () => controller.hasSynced())).toBe(true);
    expect(await mirrorData('before')).toEqual({ a: '1' });

    // A new source, then a change to it.
    await api.create(builtins.ConfigMap, source('live', { b: '1' }));
    await eventually(async () => expect(await mirrorData('live')).toEqual({ b: '1' }));
    await api.patch(
      { resource: builtins.ConfigMap, name: 'live', namespace },
      { data: { b: '2' } },
      { type: 'merge' },
    );
    await eventually(async () => expect(await mirrorData('live')).toEqual({ b: '2' }));

    // Someone edits the mirror, then deletes it: the owner is re-queued and repairs it.
    await api.patch(
      { resource: builtins.ConfigMap, name: mirrorName('live'), namespace },
      { data: { b: 'tampered' } },
      { type: 'merge' },
    );
    await eventually(async () => expect(await mirrorData('live')).toEqual({ b: '2' }));
    await api.delete({ resource: builtins.ConfigMap, name: mirrorName('live'), namespace });
    await eventually(async () => expect(await mirrorData('live')).toEqual({ b: '2' }));

    // Unselected ConfigMaps are ignored.
    await api.create(builtins.ConfigMap, source('plain', { c: '1' }, false));

    // Losing the label, or being deleted, removes the mirror.
    await api.patch(
      { resource: builtins.ConfigMap, name: 'live', namespace },
      { metadata: { labels: { [MIRROR_LABEL]: null } } },
      { type: 'merge' },
    );
    await eventually(async () => expect(await mirrorData('live')).toBeUndefined());
    await api.delete({ resource: builtins.ConfigMap, name: 'before', namespace });
    await eventually(async () => expect(await mirrorData('before')).toBeUndefined());
    expect(await mirrorData('plain')).toBeUndefined();

    // Stop: in-flight reconciles finish, the queue closes, the handlers are removed.
    stop.abort();
    await running;
  } finally {
    stop.abort();
    kube.shutdown();
  }
}
