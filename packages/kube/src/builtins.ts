import type {
  CoreV1Event,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1CronJob,
  V1CustomResourceDefinition,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Endpoints,
  V1Ingress,
  V1Job,
  V1Lease,
  V1MutatingWebhookConfiguration,
  V1Namespace,
  V1NetworkPolicy,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1ReplicaSet,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V1ValidatingWebhookConfiguration,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { defineResource, type ResourceDescriptor, type TypedResourceDescriptor } from './resource.ts';

function core<T>(
  kind: string,
  plural: string,
  namespaced: boolean,
  status = false,
  extra: Partial<ResourceDescriptor> = {},
): TypedResourceDescriptor<T> {
  return grouped<T>('', 'v1', kind, plural, namespaced, status, extra);
}

function grouped<T>(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  status = false,
  extra: Partial<ResourceDescriptor> = {},
): TypedResourceDescriptor<T> {
  return defineResource<T>({
    group,
    version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    listKind: `${kind}List`,
    subresources: { status },
    strategicMergePatch: true,
    ...extra,
  });
}

/**
 * Descriptors of the built-in kinds most controllers use, typed with client-node's models.
 * Other built-in kinds are found through discovery ({@link ResourceRegistry}).
 */
export const builtins = {
  ConfigMap: core<V1ConfigMap>('ConfigMap', 'configmaps', true, false, { shortNames: ['cm'] }),
  Secret: core<V1Secret>('Secret', 'secrets', true),
  Namespace: core<V1Namespace>('Namespace', 'namespaces', false, true, { shortNames: ['ns'] }),
  Pod: core<V1Pod>('Pod', 'pods', true, true, { shortNames: ['po'] }),
  Service: core<V1Service>('Service', 'services', true, true, { shortNames: ['svc'] }),
  Endpoints: core<V1Endpoints>('Endpoints', 'endpoints', true, false, {
    shortNames: ['ep'],
    singular: 'endpoints',
  }),
  Node: core<V1Node>('Node', 'nodes', false, true, { shortNames: ['no'] }),
  ServiceAccount: core<V1ServiceAccount>('ServiceAccount', 'serviceaccounts', true, false, {
    shortNames: ['sa'],
  }),
  PersistentVolume: core<V1PersistentVolume>('PersistentVolume', 'persistentvolumes', false, true, {
    shortNames: ['pv'],
  }),
  PersistentVolumeClaim: core<V1PersistentVolumeClaim>(
    'PersistentVolumeClaim',
    'persistentvolumeclaims',
    true,
    true,
    {
      shortNames: ['pvc'],
    },
  ),
  Event: core<CoreV1Event>('Event', 'events', true, false, { shortNames: ['ev'] }),
  Deployment: grouped<V1Deployment>('apps', 'v1', 'Deployment', 'deployments', true, true, {
    subresources: { status: true, scale: true },
    shortNames: ['deploy'],
  }),
  ReplicaSet: grouped<V1ReplicaSet>('apps', 'v1', 'ReplicaSet', 'replicasets', true, true, {
    subresources: { status: true, scale: true },
    shortNames: ['rs'],
  }),
  StatefulSet: grouped<V1StatefulSet>('apps', 'v1', 'StatefulSet', 'statefulsets', true, true, {
    subresources: { status: true, scale: true },
    shortNames: ['sts'],
  }),
  DaemonSet: grouped<V1DaemonSet>('apps', 'v1', 'DaemonSet', 'daemonsets', true, true, {
    shortNames: ['ds'],
  }),
  Job: grouped<V1Job>('batch', 'v1', 'Job', 'jobs', true, true),
  CronJob: grouped<V1CronJob>('batch', 'v1', 'CronJob', 'cronjobs', true, true, { shortNames: ['cj'] }),
  Lease: grouped<V1Lease>('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  EndpointSlice: grouped<V1EndpointSlice>('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true),
  Ingress: grouped<V1Ingress>('networking.k8s.io', 'v1', 'Ingress', 'ingresses', true, true, {
    shortNames: ['ing'],
  }),
  NetworkPolicy: grouped<V1NetworkPolicy>(
    'networking.k8s.io',
    'v1',
    'NetworkPolicy',
    'networkpolicies',
    true,
    false,
    {
      shortNames: ['netpol'],
    },
  ),
  PodDisruptionBudget: grouped<V1PodDisruptionBudget>(
    'policy',
    'v1',
    'PodDisruptionBudget',
    'poddisruptionbudgets',
    true,
    true,
    {
      shortNames: ['pdb'],
    },
  ),
  HorizontalPodAutoscaler: grouped<V2HorizontalPodAutoscaler>(
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
    'horizontalpodautoscalers',
    true,
    true,
    { shortNames: ['hpa'] },
  ),
  Role: grouped<V1Role>('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true),
  RoleBinding: grouped<V1RoleBinding>('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true),
  ClusterRole: grouped<V1ClusterRole>(
    'rbac.authorization.k8s.io',
    'v1',
    'ClusterRole',
    'clusterroles',
    false,
  ),
  ClusterRoleBinding: grouped<V1ClusterRoleBinding>(
    'rbac.authorization.k8s.io',
    'v1',
    'ClusterRoleBinding',
    'clusterrolebindings',
    false,
  ),
  StorageClass: grouped<V1StorageClass>(
    'storage.k8s.io',
    'v1',
    'StorageClass',
    'storageclasses',
    false,
    false,
    { shortNames: ['sc'] },
  ),
  CustomResourceDefinition: grouped<V1CustomResourceDefinition>(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
    true,
    { shortNames: ['crd', 'crds'], strategicMergePatch: false },
  ),
  MutatingWebhookConfiguration: grouped<V1MutatingWebhookConfiguration>(
    'admissionregistration.k8s.io',
    'v1',
    'MutatingWebhookConfiguration',
    'mutatingwebhookconfigurations',
    false,
  ),
  ValidatingWebhookConfiguration: grouped<V1ValidatingWebhookConfiguration>(
    'admissionregistration.k8s.io',
    'v1',
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    false,
  ),
} as const;

/** Every built-in descriptor, for registry seeding. */
export const builtinResources: readonly ResourceDescriptor[] = Object.values(builtins);
