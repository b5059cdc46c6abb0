/**
 * The `@example`s of the API docs, compiled and run: each function's doc comment includes its
 * region with `{@includeCode ./doc-examples.test.ts#name}`. The fake cluster stands in for a real
 * one; the same code runs against any `KubeClient` or `ApiClient`.
 */
import { builtins, type KubeObject, noopLogger, type ObjectKey } from '@kubeloom/kube';
import { createFakeApiClient, createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLeaderElector } from './create-leader-elector.ts';
import { createQueue } from './create-queue.ts';
import { defaultControllerRateLimiter } from './default-rate-limiter.ts';
import { exponentialFailureRateLimiter } from './exponential-rate-limiter.ts';
import {
  enqueueForParentHandler,
  extract,
  filteredObjectHandler,
  filteredObjectSpecHandler,
  objectHandler,
  typedObjectHandler,
} from './handlers.ts';
import { maxOfRateLimiter } from './max-of-rate-limiter.ts';
import { importPrometheusMetrics, prometheusMetrics } from './prometheus-metrics.ts';
import { prometheusRequestMetrics } from './prometheus-request-metrics.ts';
import { TerminalError } from './queue.ts';
import { tokenBucketRateLimiter } from './token-bucket-rate-limiter.ts';

const configMap = (name: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', labels, generation: 1 },
});

describe('@kubeloom/controllers API doc examples', () => {
  it('a queue, its reconciler and TerminalError', async () => {
    const stop = new AbortController();
    const done: string[] = [];
    // #region createQueue
    // A deduplicating, rate-limited work queue of object keys; the reconciler is level-based.
    const queue = createQueue<ObjectKey>({
      name: 'configmaps',
      workers: 2, // distinct keys in parallel; one key never twice at once
      maxAttempts: 5, // a throwing reconcile is retried with backoff, then dropped
      logger: noopLogger,
      reconciler: async (key, ctx) => {
        // read the current state from a cache, write with { signal: ctx.signal }; throw to retry
        done.push(`${key.namespace}/${key.name} attempt ${ctx.attempt}`);
      },
    });
    queue.add({ namespace: 'shop', name: 'settings' });
    queue.addObject(configMap('settings')); // the same key: queued once
    const running = queue.run(stop.signal); // until the signal aborts
    // #endregion createQueue
    await waitFor('the reconcile', () => queue.hasSynced() && done.length === 1);
    expect(done).toEqual(['shop/settings attempt 1']);
    stop.abort();
    await running;

    const gaveUp = new AbortController();
    const attempts: number[] = [];
    // #region TerminalError
    // Thrown from a reconciler: no retry, the key is dropped at once (a bad spec will not heal).
    const strict = createQueue<string>({
      maxAttempts: 10,
      logger: noopLogger,
      reconciler: (_key, ctx) => {
        attempts.push(ctx.attempt);
        throw new TerminalError('spec.replicas must be positive: fix the object');
      },
    });
    // #endregion TerminalError
    strict.add('bad');
    const strictRun = strict.run(gaveUp.signal);
    await waitFor('the terminal failure', () => strict.hasSynced());
    expect(attempts).toEqual([1]);
    gaveUp.abort();
    await strictRun;
  });

  it('rate limiters', () => {
    // #region defaultControllerRateLimiter
    // client-go's default: per-key exponential backoff (5 ms doubling to 1000 s), at most 10 qps overall.
    const limiter = defaultControllerRateLimiter();
    limiter.when('shop/settings'); // 5 (ms) on the first failure, 10 on the second, …
    // #endregion defaultControllerRateLimiter
    // #region exponentialFailureRateLimiter
    const backoff = exponentialFailureRateLimiter({ baseDelayMs: 100, maxDelayMs: 60_000 });
    backoff.when('k'); // 100, then 200, 400, … up to 60 000
    backoff.forget('k'); // after a success: start again at 100
    // #endregion exponentialFailureRateLimiter
    // #region tokenBucketRateLimiter
    // An overall rate, whatever the key: 10 per second with bursts of 100.
    const bucket = tokenBucketRateLimiter({ qps: 10, burst: 100 });
    bucket.when('any'); // 0 while the bucket has tokens
    // #endregion tokenBucketRateLimiter
    // #region maxOfRateLimiter
    // The longest delay of several limiters: per-key backoff and an overall rate together.
    const combined = maxOfRateLimiter(
      exponentialFailureRateLimiter(),
      tokenBucketRateLimiter({ qps: 10, burst: 100 }),
    );
    // createQueue({ reconciler, rateLimiter: combined })
    // #endregion maxOfRateLimiter
    expect(limiter.when('shop/settings')).toBe(10);
    expect(backoff.when('k')).toBe(100);
    expect(bucket.when('any')).toBe(0);
    expect(combined.when('x')).toBeGreaterThan(0);
  });

  it('event handlers', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const keys: string[] = [];
    const queue = { add: (k: ObjectKey) => keys.push(`${k.namespace}/${k.name}`) };
    const enqueue = (o: KubeObject) => keys.push(`${o.metadata?.namespace}/${o.metadata?.name}`);
    const configMaps = kube.informer(builtins.ConfigMap);
    // #region objectHandler
    // One function for add, update and delete (deletes unwrap tombstones): enqueue the object.
    configMaps.addEventHandler(objectHandler((cm) => enqueue(cm)));
    // #endregion objectHandler
    // #region filteredObjectHandler
    // Only objects that pass the filter; an update passes when the old or the new object does.
    configMaps.addEventHandler(
      filteredObjectHandler(enqueue, (cm) => cm.metadata?.labels?.mirror === 'true'),
    );
    // #endregion filteredObjectHandler
    // #region filteredObjectSpecHandler
    // Skips updates that change only status or metadata (same generation): spec changes only.
    configMaps.addEventHandler(filteredObjectSpecHandler(enqueue));
    // #endregion filteredObjectSpecHandler
    // #region typedObjectHandler
    // A handler on an untyped informer that sees only objects the guard accepts, typed.
    const isSecret = (o: KubeObject): o is V1Secret => o.kind === 'Secret';
    const anything = typedObjectHandler(isSecret, (secret) => enqueue(secret));
    // #endregion typedObjectHandler
    // #region enqueueForParentHandler
    // Owned objects lead back to their controller owner: a change to a child enqueues the parent's key.
    const secrets = kube.informer(builtins.Secret);
    secrets.addEventHandler(objectHandler(enqueueForParentHandler(queue, builtins.ConfigMap)));
    // #endregion enqueueForParentHandler
    // #region extract
    // An object from what a delete handler receives: the object, or a tombstone around it.
    configMaps.addEventHandler({
      onDelete: (deleted) => keys.push(`deleted ${extract(deleted)?.metadata?.name}`),
    });
    // #endregion extract
    const stop = new AbortController();
    await kube.runAndWait(stop.signal);
    await kube.api.create(builtins.ConfigMap, configMap('app', { mirror: 'true' }));
    const owner = await kube.api.get({ resource: builtins.ConfigMap, name: 'app', namespace: 'shop' });
    await kube.api.create(builtins.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'app-secret',
        namespace: 'shop',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'app', uid: owner.metadata!.uid!, controller: true },
        ],
      },
    });
    await kube.api.delete({ resource: builtins.ConfigMap, name: 'app', namespace: 'shop' });
    await waitFor('every handler', () => keys.length === 8);
    expect(keys.filter((k) => k === 'shop/app')).toHaveLength(7); // 3 handlers × add, 3 × delete, 1 from the child
    expect(keys).toContain('deleted app');
    anything.onAdd?.({ kind: 'Secret', metadata: { name: 's', namespace: 'shop' } }, false);
    anything.onAdd?.({ kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' } }, false);
    expect(keys.at(-1)).toBe('shop/s');
    stop.abort();
  });

  it('leader election', async () => {
    const api = createFakeApiClient();
    const stop = new AbortController();
    let led = false;
    // #region createLeaderElector
    // Lease-based leader election: onStartedLeading runs while this replica leads, with a signal
    // that aborts when it stops leading; on stop the Lease is released so a successor takes over.
    const elector = createLeaderElector({
      api, // kube.api
      lease: { namespace: 'kube-system', name: 'my-controller' },
      identity: 'replica-a', // default: hostname and a random suffix
      logger: noopLogger,
      onStartedLeading: async (leading) => {
        led = true; // e.g. await queue.run(leading)
        await new Promise((resolve) => leading.addEventListener('abort', resolve, { once: true }));
      },
    });
    const electing = elector.run(stop.signal);
    // #endregion createLeaderElector
    await waitFor('leadership', () => elector.isLeader() && led);
    expect(elector.getLeader()).toBe('replica-a');
    stop.abort();
    await electing;
    api.close();
  });

  it('Prometheus metrics', async () => {
    // #region prometheusMetrics
    // controller-runtime's and client-go's metric names (workqueue_*, controller_runtime_reconcile_*,
    // leader_election_master_status), registered in your prom-client registry.
    const registry = new promClient.Registry();
    const metrics = prometheusMetrics({ registry, promClient });
    const queue = createQueue<string>({
      name: 'configmaps',
      metrics,
      logger: noopLogger,
      reconciler: () => {},
    });
    // #endregion prometheusMetrics
    // #region prometheusRequestMetrics
    // rest_client_requests_total and rest_client_request_duration_seconds for every API request.
    const requestObserver = prometheusRequestMetrics({ registry, promClient, host: 'kubernetes.default' });
    // createKubeClient({ requestObserver })
    // #endregion prometheusRequestMetrics
    // #region importPrometheusMetrics
    // The same sink, loading prom-client itself (an optional peer dependency).
    const imported = await importPrometheusMetrics(new promClient.Registry());
    // #endregion importPrometheusMetrics
    queue.add('a');
    const stop = new AbortController();
    const running = queue.run(stop.signal);
    await waitFor('the reconcile', () => queue.hasSynced());
    stop.abort();
    await running;
    expect(await registry.getSingleMetricAsString('workqueue_adds_total')).toMatch(/name="configmaps"/);
    expect(typeof requestObserver).toBe('function');
    expect(imported).toBeDefined();
  });
});
