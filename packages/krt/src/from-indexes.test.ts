/**
 * The guide "From hand-written indexes to krt": the hand-written controller and the krt
 * collection of `test/from-indexes.ts` run side by side on one fake cluster and agree after every
 * change, including the pod relabel a hand-written handler must map to both old and new services.
 */
import { builtins, noopLogger } from '@kubeloom/kube';
import { createFakeKubeClient } from '@kubeloom/kube/fake';
import { waitFor } from '@kubeloom/testing';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type ServicePods, servicePodsByHand, servicePodsWithKrt } from '../test/from-indexes.ts';

const pod = (name: string, app: string, nodeName?: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', labels: { app } },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) },
});
const service = (name: string, app: string): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'shop' },
  spec: { selector: { app } },
});

describe('guide: from hand-written indexes to krt', () => {
  it('the hand-written controller and the krt collection agree after every change', async () => {
    await using kube = createFakeKubeClient({ logger: noopLogger });
    await kube.api.create(builtins.Pod, pod('web-1', 'web', 'node-a'));
    await kube.api.create(builtins.Pod, pod('web-2', 'web'));
    await kube.api.create(builtins.Service, service('web', 'web'));
    const stop = new AbortController();
    const byHand = servicePodsByHand(kube);
    const withKrt = servicePodsWithKrt(kube, stop.signal);
    await kube.runAndWait(stop.signal);
    const running = byHand.run(stop.signal);
    await withKrt.waitUntilSynced(stop.signal);

    const krtView = (): ServicePods =>
      new Map(withKrt.list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.selected]));
    const agree = async (what: string, expected: ServicePods) => {
      await waitFor(
        `${what}: krt`,
        () => JSON.stringify([...krtView()].sort()) === JSON.stringify([...expected].sort()),
      );
      await waitFor(
        `${what}: by hand`,
        () => JSON.stringify([...byHand.result()].sort()) === JSON.stringify([...expected].sort()),
      );
    };
    await agree('initial state', new Map([['shop/web', ['web-1']]]));

    await kube.api.patch(
      { resource: builtins.Pod, name: 'web-2', namespace: 'shop' },
      { spec: { nodeName: 'node-b' } },
      { type: 'merge' },
    );
    await agree('web-2 scheduled', new Map([['shop/web', ['web-1', 'web-2']]]));

    await kube.api.create(builtins.Service, service('api', 'api'));
    await kube.api.patch(
      { resource: builtins.Pod, name: 'web-1', namespace: 'shop' },
      { metadata: { labels: { app: 'api' } } },
      { type: 'merge' },
    );
    await agree(
      'web-1 relabelled',
      new Map([
        ['shop/web', ['web-2']],
        ['shop/api', ['web-1']],
      ]),
    );

    await kube.api.delete({ resource: builtins.Service, name: 'web', namespace: 'shop' });
    await agree('service web deleted', new Map([['shop/api', ['web-1']]]));
    expect(byHand.hasSynced()).toBe(true);
    stop.abort();
    await running;
  });
});
