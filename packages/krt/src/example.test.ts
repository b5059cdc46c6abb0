/**
 * The examples of the README and the API docs, compiled and run: each `// #region` is copied into
 * README.md (`pnpm check:readme` keeps them equal) and pulled into doc comments with
 * `{@includeCode}`. They run against the fake cluster; the same code runs against a real one with
 * `createKubeClient()` instead of `createFakeKubeClient()`.
 */
import { builtins, type KubeClient, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { collection } from './collection.ts';
import { namespaceIndex } from './collection-index.ts';
import type { Event } from './core.ts';
import { filter } from './filter.ts';
import { informer } from './informer.ts';

// #region workload
/** A scheduled pod, its node and the services that select it: a derived object, keyed like the pod. */
class Workload {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly node: string;
  readonly services: readonly string[];
  constructor(metadata: Workload['metadata'], node: string, services: readonly string[]) {
    this.metadata = metadata;
    this.node = node;
    this.services = services;
  }
}
// #endregion workload

async function workloads(kube: KubeClient, signal: AbortSignal) {
  // #region collections
  // The signal is mandatory: every collection stops with it.
  const pods = informer(kube, builtins.Pod, { signal, name: 'pods' });
  const services = informer(kube, builtins.Service, { signal, name: 'services' });
  const servicesByNamespace = namespaceIndex(services);

  const workloads = collection(
    pods,
    (ctx, pod) => {
      if (!pod.spec?.nodeName) return undefined; // not scheduled: no output for this pod
      // A fetch is a dependency: when a matching service changes, this pod is recomputed.
      const selecting = servicesByNamespace.fetch(
        ctx,
        pod.metadata?.namespace ?? '',
        filter.selectsNonEmpty(pod.metadata?.labels),
      );
      return new Workload(
        { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' },
        pod.spec.nodeName,
        selecting.map((s) => s.metadata?.name ?? '').sort(),
      );
    },
    { signal, name: 'workloads' },
  );
  const events: Event<Workload>[] = [];
  workloads.register((e) => {
    events.push(e); // only outputs that changed produce events
  });
  await kube.runAndWait(signal);
  await workloads.waitUntilSynced(signal); // every initial pod has been transformed
  // #endregion collections
  return { workloads, events };
}

const podOf = (name: string, app: string, nodeName?: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', labels: { app } },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) },
});
const serviceOf = (name: string, app: string): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'shop' },
  spec: { selector: { app } },
});

describe('@kubeloom/krt examples', () => {
  it('collections: workloads derived from pods and the services selecting them', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Pod, podOf('web-1', 'web', 'node-a'));
    await kube.api.create(builtins.Pod, podOf('pending', 'web'));
    await kube.api.create(builtins.Service, serviceOf('web', 'web'));
    const stop = new AbortController();
    const { workloads: result, events } = await workloads(kube, stop.signal);
    expect(result.list()).toEqual([new Workload({ name: 'web-1', namespace: 'shop' }, 'node-a', ['web'])]);
    expect(result.get('shop/web-1')?.services).toEqual(['web']);

    // A new service that selects the pod recomputes its workload: one update event.
    await kube.api.create(builtins.Service, serviceOf('web-canary', 'web'));
    await waitFor('the workload to list both services', () => {
      const services = result.get('shop/web-1')?.services;
      return services?.length === 2 ? services : undefined;
    });
    await waitFor('the update event', () => events.some((e) => e.type === 'update'));
    expect(events.map((e) => e.type)).toEqual(['add', 'update']);
    stop.abort();
  });
});
