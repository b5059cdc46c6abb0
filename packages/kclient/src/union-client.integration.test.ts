import { builtins, extractTombstone } from '@kubeloom/kube';
import { waitFor } from '@kubeloom/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type RealHarness, realKube } from '../test/real-harness.ts';
import { newNamespace } from '../test/scenarios.ts';
import { createClient } from './create-client.ts';
import { createUnionClient } from './create-union-client.ts';

const harnesses: RealHarness[] = [];
function harness(): RealHarness {
  const h = realKube();
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

const cm = (name: string, namespace: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
});

describe('union clients on the real API server', () => {
  it('a client over two namespaces sees both and nothing of a third', async () => {
    const { kube, stop } = harness();
    const [a, b, c] = [await newNamespace(kube), await newNamespace(kube), await newNamespace(kube)];
    for (const ns of [a, b, c]) await kube.api.create(builtins.ConfigMap, cm('before', ns, { t: 'union' }));
    const client = createClient(kube, builtins.ConfigMap, { namespaces: [a, b], labelSelector: 't=union' });
    const seen: string[] = [];
    client.addEventHandler({ onAdd: (o) => seen.push(`${o.metadata?.namespace}/${o.metadata?.name}`) });
    await kube.runAndWait(stop.signal);
    expect(await client.waitUntilSynced(stop.signal)).toBe(true);
    expect(seen.sort()).toEqual([`${a}/before`, `${b}/before`].sort());
    await client.create(cm('after', c, { t: 'union' }));
    await client.create(cm('after', b, { t: 'union' }));
    await waitFor('the add in the second namespace', () => client.get('after', b));
    // Nothing watches c: the union has only what its members list and watch.
    expect(seen.sort()).toEqual([`${a}/before`, `${b}/after`, `${b}/before`].sort());
    expect(client.list(c)).toEqual([]);
    expect(new Set(client.list().map((o) => o.metadata?.namespace))).toEqual(new Set([a, b]));
  });

  it('an object relabelled back and forth between two label-selector members is never reported deleted', async () => {
    const { kube, stop } = harness();
    const ns = await newNamespace(kube);
    const client = createUnionClient(kube, builtins.ConfigMap, {
      members: [
        { namespace: ns, labelSelector: 'shard=1' },
        { namespace: ns, labelSelector: 'shard=2' },
      ],
    });
    const deletes: string[] = [];
    let updates = 0;
    client.addEventHandler({
      onUpdate: () => updates++,
      onDelete: (o) => deletes.push(extractTombstone(o).metadata?.resourceVersion ?? ''),
    });
    await kube.runAndWait(stop.signal);
    await client.waitUntilSynced(stop.signal);
    await client.create(cm('moving', ns, { shard: '1' }));
    await waitFor('the object in the union', () => client.get('moving', ns));
    let shard = '1';
    for (let i = 0; i < 6; i++) {
      shard = shard === '1' ? '2' : '1';
      const moved = await client.patch(
        { name: 'moving', namespace: ns },
        { metadata: { labels: { shard } } },
        {
          type: 'merge',
        },
      );
      await waitFor(`relabel ${i + 1} in the union`, () =>
        client.get('moving', ns)?.metadata?.resourceVersion === moved.metadata?.resourceVersion
          ? true
          : undefined,
      );
    }
    expect(deletes).toEqual([]);
    expect(updates).toBe(6);
    expect(client.get('moving', ns)?.metadata?.labels).toEqual({ shard: '1' });
    // A real delete is delivered.
    await client.delete({ name: 'moving', namespace: ns });
    await waitFor('the delete', () => deletes.length === 1);
    expect(client.get('moving', ns)).toBeUndefined();
  });
});
