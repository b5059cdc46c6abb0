import { createTestNamespace, sharedControlPlane, waitFor } from '@kubeloom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { builtins } from './builtins.ts';
import type { KubeClient } from './client.ts';
import { createKubeClient } from './create-kube-client.ts';
import { isTombstone } from './informer.ts';
import { noopLogger } from './logger.ts';
import type { KubeObject } from './object.ts';

describe('informer against the real apiserver', () => {
  const stops: AbortController[] = [];
  afterEach(() => {
    for (const s of stops.splice(0)) s.abort();
  });

  function client(pageSize = 500): { kube: KubeClient; stop: AbortController } {
    const { kubeConfig } = sharedControlPlane();
    const kube = createKubeClient({ kubeConfig, logger: noopLogger, tuning: { pageSize } });
    const stop = new AbortController();
    stops.push(stop);
    return { kube, stop };
  }

  it('lists with pagination, syncs, then delivers adds, updates and deletes in order', async () => {
    const { kubeConfig } = sharedControlPlane();
    const ns = await createTestNamespace(kubeConfig, 'informer');
    const { kube, stop } = client(3);
    for (let i = 0; i < 7; i++) {
      await kube.api.create(builtins.ConfigMap, {
        metadata: { name: `pre-${i}`, namespace: ns },
        data: { i: String(i) },
      });
    }
    const events: string[] = [];
    const informer = kube.informer(builtins.ConfigMap, { namespace: ns });
    informer.addEventHandler({
      onAdd: (o, initial) => events.push(`add:${o.metadata?.name}:${initial}`),
      onUpdate: (_o, n) =>
        events.push(`update:${n.metadata?.name}:${(n as { data?: { i?: string } }).data?.i}`),
      onDelete: (o) => events.push(`delete:${(isTombstone(o) ? o.obj : o).metadata?.name}`),
    });
    expect(await kube.runAndWait(stop.signal)).toBe(true);
    expect(informer.store.size).toBe(7);
    expect(events.filter((e) => e.endsWith(':true'))).toHaveLength(7);
    expect(informer.health().lists).toBe(1);

    await kube.api.create(builtins.ConfigMap, {
      metadata: { name: 'live', namespace: ns },
      data: { i: 'a' },
    });
    await kube.api.patch(
      { resource: builtins.ConfigMap, name: 'live', namespace: ns },
      { data: { i: 'b' } },
      { type: 'merge' },
    );
    await kube.api.delete({ resource: builtins.ConfigMap, name: 'live', namespace: ns });
    await waitFor('the delete event', () => events.includes('delete:live'));
    expect(events.slice(7)).toEqual(['add:live:false', 'update:live:b', 'delete:live']);
    expect(informer.store.get(`${ns}/live`)).toBeUndefined();
  });

  it('caches frozen objects without managedFields', async () => {
    const { kubeConfig } = sharedControlPlane();
    const ns = await createTestNamespace(kubeConfig, 'frozen');
    const { kube, stop } = client();
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'x', namespace: ns }, data: { a: '1' } });
    const informer = kube.informer(builtins.ConfigMap, { namespace: ns });
    await kube.runAndWait(stop.signal);
    const obj = informer.store.get(`${ns}/x`) as KubeObject & { data: Record<string, string> };
    expect(obj.metadata?.managedFields).toBeUndefined();
    expect(Object.isFrozen(obj)).toBe(true);
    expect(Object.isFrozen(obj.data)).toBe(true);
    expect(() => {
      obj.data.a = '2';
    }).toThrow(TypeError);
    expect(obj.apiVersion).toBe('v1');
    expect(obj.kind).toBe('ConfigMap');
  });

  it('shares one informer per resource and options; a late handler gets the current state', async () => {
    const { kubeConfig } = sharedControlPlane();
    const ns = await createTestNamespace(kubeConfig, 'shared');
    const { kube, stop } = client();
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'a', namespace: ns } });
    const first = kube.informer(builtins.ConfigMap, { namespace: ns });
    const second = kube.informer(builtins.ConfigMap, { namespace: ns });
    expect(second).toBe(first);
    expect(kube.informer(builtins.ConfigMap, { namespace: ns, labelSelector: 'x=y' })).not.toBe(first);
    await kube.runAndWait(stop.signal);
    const late: string[] = [];
    const reg = first.addEventHandler({ onAdd: (o, initial) => late.push(`${o.metadata?.name}:${initial}`) });
    expect(reg.hasSynced()).toBe(false);
    await waitFor('late handler sync', () => reg.hasSynced());
    expect(late).toEqual(['a:true']);
    reg.remove();
    await kube.api.create(builtins.ConfigMap, { metadata: { name: 'b', namespace: ns } });
    await waitFor('b cached', () => first.store.get(`${ns}/b`) !== undefined);
    expect(late).toEqual(['a:true']);
  });
});
