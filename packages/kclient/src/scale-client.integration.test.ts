import { builtins } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentKind } from '../test/client-methods.ts';
import { type RealHarness, realKube } from '../test/real-harness.ts';
import { newNamespace } from '../test/scenarios.ts';
import { uniqueSuffix } from '../test/test-support.ts';
import { createDelayedClient } from './create-client.ts';
import { createScaleClient, withScale } from './scale-client.ts';
import { deleteCRD, makeCRD } from './testing/make-crd.ts';

const harnesses: RealHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});
function harness(): RealHarness {
  const h = realKube();
  harnesses.push(h);
  return h;
}

describe('the scale subresource on the real API server', () => {
  it('Deployment: getScale and updateScale', async () => {
    const { kube, stop } = harness();
    const ns = await newNamespace(kube);
    // #region createScaleClient
    // A client with the scale subresource: getScale and updateScale.
    const deploys = createScaleClient(kube, builtins.Deployment, { namespace: ns });
    await deploys.create(deploymentKind.make('web', ns, {}));
    const scale = await deploys.getScale({ name: 'web', namespace: ns }); // spec.replicas 1, status.selector app=web
    // #endregion createScaleClient
    expect(scale).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: ns },
      spec: { replicas: 1 },
      status: { selector: 'app=web' },
    });
    const scaled = await deploys.updateScale({ name: 'web', namespace: ns }, 3);
    expect(scaled.spec?.replicas).toBe(3);
    expect(
      (await kube.api.get({ resource: builtins.Deployment, name: 'web', namespace: ns })).spec?.replicas,
    ).toBe(3);
    expect((await deploys.getScale({ name: 'web', namespace: ns })).spec?.replicas).toBe(3);
    // the cache follows
    void deploys.run(stop.signal);
    await waitFor('the scaled Deployment in the cache', () => deploys.get('web', ns)?.spec?.replicas === 3);
  });

  it('a CRD with a scale subresource, through a client and a delayed client', async () => {
    const { kube } = harness();
    const ns = await newNamespace(kube);
    const gvr = { group: `scale-${uniqueSuffix()}.example.com`, version: 'v1', resource: 'replicators' };
    const Replicator = await makeCRD(kube, gvr, { scale: true });
    try {
      expect(Replicator.subresources).toEqual({ status: true, scale: true });
      const reps = createScaleClient(kube, Replicator, { namespace: ns });
      await reps.create({ metadata: { name: 'r', namespace: ns }, spec: { replicas: 2 } });
      await reps.patchStatus(
        { name: 'r', namespace: ns },
        { status: { replicas: 1, selector: 'app=r' } },
        { type: 'merge' },
      );
      expect(await reps.getScale({ name: 'r', namespace: ns })).toMatchObject({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        spec: { replicas: 2 },
        status: { replicas: 1, selector: 'app=r' },
      });
      const scaled = await reps.updateScale({ name: 'r', namespace: ns }, 5);
      expect(scaled.spec?.replicas).toBe(5);
      expect((await kube.api.get({ resource: Replicator, name: 'r', namespace: ns })).spec).toEqual({
        replicas: 5,
      });
      // #region withScale
      // Any kclient client gains getScale and updateScale when its resource has a scale subresource.
      const delayed = withScale(createDelayedClient(kube, Replicator));
      const current = await delayed.getScale({ name: 'r', namespace: ns }); // spec.replicas 5
      // #endregion withScale
      expect(current.spec?.replicas).toBe(5);
      await delayed.updateScale({ name: 'r', namespace: ns }, 0); // a Scale omits zero replicas: read the object
      expect((await kube.api.get({ resource: Replicator, name: 'r', namespace: ns })).spec).toEqual({
        replicas: 0,
      });
    } finally {
      await deleteCRD(kube, gvr);
    }
  });
});
