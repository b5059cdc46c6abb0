/**
 * The `@example` of `createFakeKubeClient`, compiled and run (its doc comment includes the region
 * with `{@includeCode ./doc-examples.test.ts#createFakeKubeClient}`).
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { builtins } from '../builtins.ts';
import { noopLogger } from '../logger.ts';
import { createFakeKubeClient } from './create-fake-kube-client.ts';

const configMap: V1ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop' },
  data: { mode: 'on' },
};

describe('@kubeloom/kube/fake API doc examples', () => {
  it('a fake cluster with an object and an injected failure', async () => {
    const stop = new AbortController();
    const signal = stop.signal;
    // #region createFakeKubeClient
    // A KubeClient on an in-memory cluster: the same informers and API, milliseconds per test.
    await using kube = createFakeKubeClient({ objects: [configMap], logger: noopLogger });
    const configMaps = kube.informer(builtins.ConfigMap);
    kube.cluster.failNext('list', 2, { code: 500 }); // inject faults: the informer retries
    await kube.runAndWait(signal);
    configMaps.store.list(); // [settings]
    // #endregion createFakeKubeClient
    expect(configMaps.store.list().map((c) => c.metadata?.name)).toEqual(['settings']);
    stop.abort();
  });
});
