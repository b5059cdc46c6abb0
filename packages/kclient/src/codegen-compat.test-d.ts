// Compiles the shape of what `@kubeloom/codegen` emits for a CRD against kclient's API.
//
// This is a hand-written copy and may drift from codegen's real output. The authority is
// codegen's own compile test (packages/codegen/src/golden.test.ts, "generated TypeScript compiles
// under tsc --strict"), which generates clients and compiles them against kclient. kclient must
// not depend on codegen (the dependency goes the other way), so this file only guards the kclient
// side of the contract: `Client`, `ClientOptions`, `createClient` and, for kinds with a scale
// subresource, `ScaleClient`/`WithScale` and `createScaleClient` (see scale-client.test-d.ts).
import {
  defineResource,
  type KubeClient,
  type ObjectMeta,
  type TypedResourceDescriptor,
} from '@kubeloom/kube';
import { type Client, type ClientOptions, createClient } from './index.ts';

/** A generated kind. */
export interface Egress {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: { cidr: string; ports?: number[] };
  status?: { phase?: 'Ready' | 'Pending' };
}

export const EgressResource: TypedResourceDescriptor<Egress> = defineResource<Egress>({
  group: 'example.com',
  version: 'v1',
  kind: 'Egress',
  plural: 'egresses',
  namespaced: true,
  subresources: { status: false, scale: false },
});

export type EgressClient = Omit<Client<Egress>, 'updateStatus' | 'patchStatus' | 'applyStatus'>;

export function createEgressClient(kube: KubeClient, options?: ClientOptions<Egress>): EgressClient {
  return createClient(kube, EgressResource, options);
}

export async function usage(kube: KubeClient): Promise<void> {
  const c = createEgressClient(kube, { namespace: 'ns', objectFilter: (e) => e.spec.cidr !== '' });
  const e: Egress | undefined = c.get('a', 'ns');
  const cidrs: string[] = c.list().map((x) => x.spec.cidr);
  await c.apply({ metadata: { name: 'a', namespace: 'ns' }, spec: { ports: [1] } }, { fieldManager: 'm' });
  // @ts-expect-error: status writes are omitted for kinds without a status subresource
  await c.updateStatus({ spec: { cidr: '' } });
  void e;
  void cidrs;
}
