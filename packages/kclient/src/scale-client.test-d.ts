// The scale methods exist at the type level only on ScaleClient / WithScale.
import { builtins, type KubeClient } from '@kubeloom/kube';
import type { V1Deployment, V1Scale } from '@kubernetes/client-node';
import {
  type Client,
  createClient,
  createScaleClient,
  type ScaleClient,
  type WithScale,
  withScale,
} from './index.ts';

export async function usage(kube: KubeClient): Promise<void> {
  const plain: Client<V1Deployment> = createClient(kube, builtins.Deployment);
  // @ts-expect-error: a plain Client has no scale methods
  await plain.getScale({ name: 'web', namespace: 'ns' });
  const scalable: ScaleClient<V1Deployment> = createScaleClient(kube, builtins.Deployment);
  const scale: V1Scale = await scalable.updateScale({ name: 'web', namespace: 'ns' }, 3);
  const same: ScaleClient<V1Deployment> = withScale(plain);
  // what codegen can emit for a kind with scale but no status subresource
  type NoStatus = WithScale<Omit<Client<V1Deployment>, 'updateStatus' | 'patchStatus' | 'applyStatus'>>;
  const generated: NoStatus = scalable;
  // @ts-expect-error: omitted status writes stay omitted
  await generated.updateStatus({});
  void scale;
  void same;
}
