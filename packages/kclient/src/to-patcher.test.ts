import { builtins, ConflictError } from '@kubeloom/kube';
import type { V1Deployment } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakes, fakeKube } from '../test/fake-harness.ts';
import { createClient, createWriteClient } from './create-client.ts';
import type { Patcher } from './interfaces.ts';
import { makeCRD } from './testing/make-crd.ts';
import { toPatcher } from './to-patcher.ts';

afterEach(closeFakes);

const deployment: V1Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns' },
  spec: {
    selector: { matchLabels: { app: 'd' } },
    template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
};

describe('toPatcher', () => {
  it('patches, patches status and applies status without the object type', async () => {
    const { kube } = fakeKube({ objects: [deployment] });
    const Widget = await makeCRD(kube, { group: 'patcher.example.com', version: 'v1', resource: 'widgets' });
    await createWriteClient(kube, Widget).create({
      metadata: { name: 'w', namespace: 'ns' },
      spec: { a: 1 },
    });
    const patchers: Record<string, Patcher> = {
      Deployment: toPatcher(createWriteClient(kube, builtins.Deployment)),
      Widget: toPatcher(createClient(kube, Widget)),
    };
    for (const [kind, p] of Object.entries(patchers)) {
      const resource = kind === 'Deployment' ? builtins.Deployment : Widget;
      const name = kind === 'Deployment' ? 'd' : 'w';
      expect(
        await p.patch(
          { name, namespace: 'ns' },
          { metadata: { labels: { patched: 'yes' } } },
          { type: 'merge' },
        ),
      ).toBeUndefined();
      await p.patchStatus(
        { name, namespace: 'ns' },
        [{ op: 'add', path: '/status', value: { replicas: 1 } }],
        { type: 'json' },
      );
      await p.applyStatus(
        { name, namespace: 'ns' },
        { status: { readyReplicas: 1 } },
        { fieldManager: 'status-writer' },
      );
      const stored = kube.cluster.getObject(resource, name, 'ns')!;
      expect(stored.metadata?.labels).toEqual({ patched: 'yes' });
      expect(stored.status).toEqual({ replicas: 1, readyReplicas: 1 });
      expect(stored.metadata?.managedFields?.find((m) => m.manager === 'status-writer')?.subresource).toBe(
        'status',
      );
      // force is the writer's: off by default, so another manager's field is a conflict
      await expect(
        p.applyStatus({ name, namespace: 'ns' }, { status: { readyReplicas: 2 } }, { fieldManager: 'other' }),
      ).rejects.toBeInstanceOf(ConflictError);
      await p.applyStatus(
        { name, namespace: 'ns' },
        { status: { readyReplicas: 2 } },
        { fieldManager: 'other', force: true },
      );
      expect(kube.cluster.getObject(resource, name, 'ns')?.status).toMatchObject({ readyReplicas: 2 });
    }
  });
});
