/**
 * The guide "Your first controller with kclient + controllers" (docs/guides/first-controller.md)
 * includes its code from the regions of this file. The same scenario runs against the fake
 * cluster (`src/first-controller.test.ts`) and the real control plane
 * (`src/first-controller.integration.test.ts`), so every snippet of the guide compiles and runs.
 *
 * The controller: every Namespace labelled `example.com/team` gets a ConfigMap `team-info` that
 * names its team; the ConfigMap follows the label and is repaired when someone edits it.
 */
// #region imports
import { createQueue, enqueueForParentHandler, objectHandler } from '@kubeloom/controllers';
import { createClient } from '@kubeloom/kclient';
import { builtins, type KubeClient, noopLogger, type ObjectKey } from '@kubeloom/kube';
// #endregion imports
import { waitFor } from '@kubeloom/testing';

// #region controller
const TEAM_LABEL = 'example.com/team';

/** Builds the controller: clients, a queue and handlers. No I/O happens here. */
function teamInfoController(kube: KubeClient) {
  // Typed clients over shared informers: every client of a kind shares one list/watch.
  const namespaces = createClient(kube, builtins.Namespace);
  const configMaps = createClient(kube, builtins.ConfigMap, { fieldManager: 'team-info' });

  // The queue carries keys, never objects: the reconciler reads the current state from the cache.
  const queue = createQueue<ObjectKey>({
    name: 'team-info',
    maxAttempts: 5, // a failing key is retried with backoff, then dropped
    logger: noopLogger,
    reconciler: async ({ name }, ctx) => {
      const team = namespaces.get(name)?.metadata?.labels?.[TEAM_LABEL];
      const current = configMaps.get('team-info', name);
      if (team === undefined) {
        if (current) await configMaps.delete({ name: 'team-info', namespace: name }, { signal: ctx.signal });
        return;
      }
      if (current?.data?.team === team) return; // up to date: level-based, no write
      // Server-side apply: the fields this controller owns, nothing else.
      await configMaps.apply(
        {
          metadata: {
            name: 'team-info',
            namespace: name,
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'Namespace',
                name,
                uid: namespaces.get(name)?.metadata?.uid ?? '',
                controller: true,
              },
            ],
          },
          data: { team },
        },
        { fieldManager: 'team-info', force: true, signal: ctx.signal },
      );
    },
  });

  // A namespace change enqueues the namespace; a change to a ConfigMap it owns enqueues its owner.
  namespaces.addEventHandler(objectHandler((ns) => queue.addObject(ns)));
  configMaps.addEventHandler(objectHandler(enqueueForParentHandler(queue, builtins.Namespace)));

  return {
    /** Runs until `signal` aborts: waits for the caches, then works the queue. */
    async run(signal: AbortSignal): Promise<void> {
      if (!(await namespaces.waitUntilSynced(signal)) || !(await configMaps.waitUntilSynced(signal))) return;
      await queue.run(signal);
    },
    /** True once every namespace that existed at start was reconciled. */
    hasSynced: () => queue.hasSynced(),
  };
}
// #endregion controller

/** The guide's scenario, on any cluster: a labelled namespace gets its ConfigMap, kept in line. */
export async function teamInfoScenario(kube: KubeClient, namespace: string): Promise<void> {
  const { api } = kube;
  const teamInfo = async () => {
    const list = await api.list(builtins.ConfigMap, { namespace });
    return list.items.find((cm) => cm.metadata?.name === 'team-info')?.data;
  };
  const stop = new AbortController();
  try {
    // #region run
    const controller = teamInfoController(kube); // construction: no I/O
    const signal = stop.signal; // one signal stops everything
    await kube.runAndWait(signal); // start every informer built above, wait for their lists
    const running = controller.run(signal);
    // #endregion run

    await api.patch(
      { resource: builtins.Namespace, name: namespace },
      { metadata: { labels: { [TEAM_LABEL]: 'payments' } } },
      { type: 'merge' },
    );
    // #region wait
    // Wait for a condition with a generous bound (30 s by default), never sleep-and-assert.
    await waitFor('team-info names the team', async () => (await teamInfo())?.team === 'payments');
    // #endregion wait
    // Someone edits the ConfigMap: the owner is enqueued and the controller repairs it.
    await api.patch(
      { resource: builtins.ConfigMap, name: 'team-info', namespace },
      { data: { team: 'tampered' } },
      { type: 'merge' },
    );
    await waitFor('team-info repaired after an edit', async () => (await teamInfo())?.team === 'payments');
    // The label goes: so does the ConfigMap.
    await api.patch(
      { resource: builtins.Namespace, name: namespace },
      { metadata: { labels: { [TEAM_LABEL]: null } } },
      { type: 'merge' },
    );
    await waitFor('team-info deleted once the label is gone', async () => (await teamInfo()) === undefined);

    // #region stop
    stop.abort(); // in-flight reconciles finish, the queue stops
    await running;
    // #endregion stop
  } finally {
    stop.abort();
    kube.shutdown();
  }
}
