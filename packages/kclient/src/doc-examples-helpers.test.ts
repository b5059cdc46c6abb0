/**
 * The API doc examples of kclient's helpers (selectors, conflicts, patchers, shutdown), compiled
 * and run: each function's doc comment includes its region with
 * `{@includeCode ./doc-examples-helpers.test.ts#name}`. They run against the fake cluster; the
 * same code runs against a real one with `createKubeClient()` instead of `createFakeKubeClient()`.
 */
import { createQueue } from '@kubeloom/controllers';
import { builtins, type KubeObject, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import { describe, expect, it } from 'vitest';
import { createClient, createWriteClient } from './create-client.ts';
import type { Patcher } from './interfaces.ts';
import { labelMatcher, labelSelectorString } from './label-selector.ts';
import { retryOnConflict } from './retry-on-conflict.ts';
import { shardUnionMembers } from './shard-union-members.ts';
import { shardSelector } from './sharded-client.ts';
import { shutdownAll } from './shutdown-all.ts';
import { toPatcher } from './to-patcher.ts';

const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data,
});
const secret = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'shop' },
});

describe('@kubeloom/kclient helper doc examples', () => {
  it('labelMatcher and labelSelectorString: selectors with the apiserver’s semantics', () => {
    // #region labelMatcher
    const isWeb = labelMatcher('app=web,tier!=cache');
    isWeb({ app: 'web' }); // true: `!=` also matches objects without the label
    isWeb({ app: 'web', tier: 'cache' }); // false
    const anything = labelMatcher(undefined); // matches everything
    // #endregion labelMatcher
    expect([isWeb({ app: 'web' }), isWeb({ app: 'web', tier: 'cache' }), anything(undefined)]).toEqual([
      true,
      false,
      true,
    ]);
    // #region labelSelectorString
    // A metav1.LabelSelector as the `?labelSelector=` string the API server filters by.
    labelSelectorString({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'Exists' }],
    });
    // 'app=web,tier'
    labelSelectorString({}); // undefined: an empty selector selects everything
    // #endregion labelSelectorString
    expect(
      labelSelectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'Exists' }],
      }),
    ).toBe('app=web,tier');
    expect(labelSelectorString({})).toBeUndefined();
    expect(() => labelMatcher('app in (web')).toThrow(); // a selector the apiserver refuses
  });

  it('shardSelector: one shard’s objects, joined with your selector', () => {
    // #region shardSelector
    // Replica web-0 of the ring `web` lists and watches only its share of the app=web objects.
    const labelSelector = shardSelector({ ring: 'web', identity: 'web-0' }, 'app=web');
    // 'app=web,shard.kubeloom.dev/web=web-0': pass it to kube.informer() or createClient()
    // #endregion shardSelector
    expect(labelSelector).toBe('app=web,shard.kubeloom.dev/web=web-0');
  });

  it('shardUnionMembers: a replica’s share plus what it adopts from fenced shards', () => {
    // #region shardUnionMembers
    // web-2 is fenced (its Lease expired and the sharder's evictor holds it): web-0 also caches
    // web-2's objects that name web-0 as their standby, and reconciles them at once.
    const members = shardUnionMembers({
      ring: 'web',
      identity: 'web-0',
      fenced: ['web-2'],
      namespace: 'shop',
    });
    // [{ namespace: 'shop', labelSelector: 'shard.kubeloom.dev/web=web-0' },
    //  { namespace: 'shop', labelSelector: 'shard.kubeloom.dev/web=web-2,standby.kubeloom.dev/web=web-0' }]:
    // pass them to createUnionClient(), and to its setMembers() whenever the ring's fenced shards change
    // #endregion shardUnionMembers
    expect(members).toEqual([
      { namespace: 'shop', labelSelector: 'shard.kubeloom.dev/web=web-0' },
      { namespace: 'shop', labelSelector: 'shard.kubeloom.dev/web=web-2,standby.kubeloom.dev/web=web-0' },
    ]);
    expect(
      shardUnionMembers({
        ring: 'web',
        identity: 'web-0',
        fenced: ['web-0', 'b', 'b'],
        labelSelector: 'app=x',
      }),
    ).toEqual([
      { labelSelector: 'app=x,shard.kubeloom.dev/web=web-0' },
      { labelSelector: 'app=x,shard.kubeloom.dev/web=b,standby.kubeloom.dev/web=web-0' },
    ]);
  });

  it('retryOnConflict: a read-modify-write that survives a concurrent writer', async () => {
    await using kube = createFakeKubeClient({
      logger: noopLogger,
      objects: [configMap('settings', { n: '1' })],
    });
    const configMaps = createWriteClient(kube, builtins.ConfigMap, { fieldManager: 'counter' });
    // Another writer wins the first race: the first update gets 409 Conflict.
    kube.cluster.failNext('update', 1, { code: 409, resource: builtins.ConfigMap });
    // #region retryOnConflict
    const attempts = await retryOnConflict(async (attempt) => {
      // Read the latest on every attempt: a conflict means the object changed since it was read.
      const latest = structuredClone(
        await kube.api.get({ resource: builtins.ConfigMap, name: 'settings', namespace: 'shop' }),
      );
      latest.data = { ...latest.data, n: String(Number(latest.data?.n ?? 0) + 1) };
      await configMaps.update(latest); // conditional on resourceVersion: 409 Conflict when stale
      return attempt;
    });
    // #endregion retryOnConflict
    expect(attempts).toBe(2);
    expect(kube.cluster.getObject(builtins.ConfigMap, 'settings', 'shop')?.data).toEqual({ n: '2' });
  });

  it('toPatcher: one Patcher per kind, without their object types', async () => {
    await using kube = createFakeKubeClient({
      logger: noopLogger,
      objects: [configMap('settings'), secret('token')],
    });
    const checked: ReadonlyArray<readonly [string, string]> = [
      ['ConfigMap', 'settings'],
      ['Secret', 'token'],
    ];
    // #region toPatcher
    const patchers: Record<string, Patcher> = {
      ConfigMap: toPatcher(createWriteClient(kube, builtins.ConfigMap)),
      Secret: toPatcher(createWriteClient(kube, builtins.Secret)),
    };
    for (const [kind, name] of checked) {
      await patchers[kind]!.patch(
        { name, namespace: 'shop' },
        { metadata: { labels: { audited: 'true' } } },
        { type: 'merge' },
      );
    }
    // #endregion toPatcher
    const labels = (o: KubeObject | undefined) => o?.metadata?.labels;
    expect(labels(kube.cluster.getObject(builtins.ConfigMap, 'settings', 'shop'))).toEqual({
      audited: 'true',
    });
    expect(labels(kube.cluster.getObject(builtins.Secret, 'token', 'shop'))).toEqual({ audited: 'true' });
  });

  it('shutdownAll: a stopped controller’s handlers go, the informers live on', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    const configMaps = createClient(kube, builtins.ConfigMap);
    const secrets = createClient(kube, builtins.Secret);
    const leadership = new AbortController(); // aborted when this replica loses leadership
    const handled: string[] = [];
    const enqueue = (o: KubeObject) => void handled.push(o.metadata?.name ?? '');
    const stop = new AbortController();
    await kube.runAndWait(stop.signal);
    // #region shutdownAll
    async function runController(signal: AbortSignal): Promise<void> {
      const queue = createQueue<string>({ reconciler: () => {} }); // your reconcile
      // enqueue: your handlers, e.g. (o) => queue.add(o.metadata.name)
      configMaps.addEventHandler({ onAdd: enqueue });
      secrets.addEventHandler({ onAdd: enqueue });
      const namespaces = kube.informer(builtins.Namespace).addEventHandler({ onAdd: enqueue });
      try {
        await queue.run(signal);
      } finally {
        shutdownAll(configMaps, secrets, namespaces); // the informers and their caches stay
      }
    }
    // #endregion shutdownAll
    const running = runController(leadership.signal);
    await kube.api.create(builtins.ConfigMap, configMap('before'));
    await waitFor('the controller to see "before"', () => handled.includes('before'));
    leadership.abort();
    await running;
    // A handler registered after the shutdown sees the next events; the removed ones see nothing.
    const after: string[] = [];
    configMaps.addEventHandler({ onAdd: (cm) => after.push(cm.metadata?.name ?? '') });
    secrets.addEventHandler({ onAdd: (s) => after.push(s.metadata?.name ?? '') });
    await kube.api.create(builtins.ConfigMap, configMap('after'));
    await kube.api.create(builtins.Secret, secret('after-secret'));
    await waitFor(
      'the new handlers to see both',
      () => after.includes('after') && after.includes('after-secret'),
    );
    expect(handled).toEqual(['before']);
    expect(configMaps.get('after', 'shop')).toBeDefined(); // the cache lives on
    stop.abort();
  });
});
