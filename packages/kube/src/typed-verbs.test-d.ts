// The ApiClient verbs and KubeClient.informer take the object type from the resource descriptor;
// an untyped descriptor falls back to KubeObject. Checked by `pnpm typecheck`.
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import {
  type ApiClient,
  builtins,
  defineResource,
  type KubeClient,
  type KubeObject,
  type ObjectOf,
  type ResourceDescriptor,
  type SharedInformer,
} from './index.ts';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
const same = <A, B>(_check: Equal<A, B>): void => {};

interface Widget extends KubeObject {
  spec?: { size: number };
}
const Widget = defineResource<Widget>({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
declare const untyped: ResourceDescriptor;

export async function usage(api: ApiClient, kube: KubeClient): Promise<void> {
  same<typeof cm, V1ConfigMap>(true);
  const cm = await api.get({ resource: builtins.ConfigMap, name: 'a', namespace: 'ns' });
  const pods = await api.list(builtins.Pod, { namespace: 'ns' });
  same<(typeof pods.items)[number], V1Pod>(true);
  const w = await api.patch(
    { resource: Widget, name: 'w', namespace: 'ns' },
    { spec: { size: 2 } },
    { type: 'merge' },
  );
  same<typeof w, Widget>(true);
  const created = await api.create(Widget, { metadata: { name: 'w', namespace: 'ns' }, spec: { size: 1 } });
  same<typeof created, Widget>(true);
  // @ts-expect-error: a typed descriptor checks the object (no such field on a Widget)
  await api.create(Widget, { metadata: { name: 'w' }, spec: { size: 1 }, colour: 'red' });
  // @ts-expect-error: the patch type is required
  await api.patch({ resource: Widget, name: 'w', namespace: 'ns' }, {}, {});
  // @ts-expect-error: not a patch type
  await api.patch({ resource: Widget, name: 'w', namespace: 'ns' }, {}, { type: 'yaml' });
  const any = await api.get({ resource: untyped, name: 'x' });
  same<typeof any, KubeObject>(true);
  // an untyped descriptor still takes objects with any fields
  await api.create(untyped, { metadata: { name: 'x' }, spec: { anything: true } });
  for await (const e of api.watch(builtins.ConfigMap)) {
    if (e.type === 'ADDED') same<typeof e.object, V1ConfigMap>(true);
  }
  same<typeof informer, SharedInformer<V1Pod>>(true);
  const informer = kube.informer(builtins.Pod, { namespace: 'ns' });
  same<ReturnType<typeof kube.informer<KubeObject>>, SharedInformer<KubeObject>>(true);
  same<typeof anyInformer, SharedInformer<KubeObject>>(true);
  const anyInformer = kube.informer(untyped);
  same<ObjectOf<typeof builtins.ConfigMap>, V1ConfigMap>(true);
  same<ObjectOf<typeof Widget>, Widget>(true);
  same<ObjectOf<ResourceDescriptor>, KubeObject>(true);
}
