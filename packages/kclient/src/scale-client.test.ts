import { builtins } from '@kubeloom/kube';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import {
  createClient,
  createDelayedClient,
  createUntypedClient,
  createWriteClient,
} from './create-client.ts';
import type { Scaler } from './interfaces.ts';
import { createScaleClient, withScale } from './scale-client.ts';

afterEach(closeFakes);

describe('scale clients', () => {
  it('are refused for a kind without a scale subresource, before any request', async () => {
    const { kube } = fakeKube();
    expect(() => createScaleClient(kube, builtins.ConfigMap)).toThrow(
      /ConfigMap has no scale subresource .*; use createClient/,
    );
    expect(() => withScale(createClient(kube, builtins.ConfigMap))).toThrow(TypeError);
    expect(() => withScale(createWriteClient(kube, builtins.Service))).toThrow(
      /Service has no scale subresource/,
    );
    expect(() => withScale({ getScale: () => {} })).toThrow(/not a kclient client/);
    expect(() =>
      withScale(createUntypedClient(kube, { group: 'x.example.com', version: 'v1', resource: 'xs' })),
    ).toThrow(/does not know its resource yet/);
    // the methods exist at run time on every client, and check the descriptor themselves
    const untypedScale = createClient(kube, builtins.ConfigMap) as unknown as Scaler;
    await expect(untypedScale.getScale({ name: 'a', namespace: 'ns' })).rejects.toThrow(
      /no scale subresource .*: getScale is not supported/,
    );
    await expect(untypedScale.updateScale({ name: 'a', namespace: 'ns' }, 1)).rejects.toThrow(
      /no scale subresource .*: updateScale is not supported/,
    );
    expect(kube.cluster.requestCount('get') + kube.cluster.requestCount('patch')).toBe(0);
  });

  it('are offered for Deployments and other scalable kinds; replicas are checked', async () => {
    const { kube } = fakeKube();
    const deploys = createScaleClient(kube, builtins.Deployment);
    expect(deploys.resource).toBe(builtins.Deployment);
    const writeOnly = withScale(createWriteClient(kube, builtins.StatefulSet));
    const delayed = withScale(createDelayedClient(kube, builtins.ReplicaSet));
    for (const c of [deploys, writeOnly, delayed]) {
      await expect(c.updateScale({ name: 'a', namespace: 'ns' }, -1)).rejects.toThrow(/non-negative integer/);
      await expect(c.updateScale({ name: 'a', namespace: 'ns' }, 1.5)).rejects.toThrow(
        /non-negative integer/,
      );
      await expect(c.getScale({ name: 'a' })).rejects.toThrow(/namespace is required/);
    }
    expect(kube.cluster.requestCount('patch')).toBe(0);
  });
});
