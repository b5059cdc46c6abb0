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

/** A built-in resource: the core group `v1` unless said otherwise, no status subresource by default. */
interface BuiltinSpec extends Partial<ResourceDescriptor> {
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Whether the kind has a `status` subresource. */
  readonly status?: boolean;
}

function builtin<T>({ status = false, ...spec }: BuiltinSpec): TypedResourceDescriptor<T> {
  return defineResource<T>({
    group: '',
    version: 'v1',
    singular: spec.kind.toLowerCase(),
    listKind: `${spec.kind}List`,
    subresources: { status },
    strategicMergePatch: true,
    ...spec,
  });
}

/**
 * Descriptors of the built-in kinds most controllers use, typed with client-node's models.
 * Other built-in kinds are found through discovery ({@link ResourceRegistry}).
 */
export const builtins = {
  ConfigMap: builtin<V1ConfigMap>({
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
  }),
  Secret: builtin<V1Secret>({ kind: 'Secret', plural: 'secrets', namespaced: true }),
  Namespace: builtin<V1Namespace>({
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    status: true,
    shortNames: ['ns'],
  }),
  Pod: builtin<V1Pod>({ kind: 'Pod', plural: 'pods', namespaced: true, status: true, shortNames: ['po'] }),
  Service: builtin<V1Service>({
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    status: true,
    shortNames: ['svc'],
  }),
  Endpoints: builtin<V1Endpoints>({
    kind: 'Endpoints',
    plural: 'endpoints',
    namespaced: true,
    shortNames: ['ep'],
    singular: 'endpoints',
  }),
  Node: builtin<V1Node>({
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    status: true,
    shortNames: ['no'],
  }),
  ServiceAccount: builtin<V1ServiceAccount>({
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
  }),
  PersistentVolume: builtin<V1PersistentVolume>({
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    namespaced: false,
    status: true,
    shortNames: ['pv'],
  }),
  PersistentVolumeClaim: builtin<V1PersistentVolumeClaim>({
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    status: true,
    shortNames: ['pvc'],
  }),
  Event: builtin<CoreV1Event>({ kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] }),
  Deployment: builtin<V1Deployment>({
    group: 'apps',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    status: true,
    subresources: { status: true, scale: true },
    shortNames: ['deploy'],
  }),
  ReplicaSet: builtin<V1ReplicaSet>({
    group: 'apps',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    status: true,
    subresources: { status: true, scale: true },
    shortNames: ['rs'],
  }),
  StatefulSet: builtin<V1StatefulSet>({
    group: 'apps',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    status: true,
    subresources: { status: true, scale: true },
    shortNames: ['sts'],
  }),
  DaemonSet: builtin<V1DaemonSet>({
    group: 'apps',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    namespaced: true,
    status: true,
    shortNames: ['ds'],
  }),
  Job: builtin<V1Job>({ group: 'batch', kind: 'Job', plural: 'jobs', namespaced: true, status: true }),
  CronJob: builtin<V1CronJob>({
    group: 'batch',
    kind: 'CronJob',
    plural: 'cronjobs',
    namespaced: true,
    status: true,
    shortNames: ['cj'],
  }),
  Lease: builtin<V1Lease>({
    group: 'coordination.k8s.io',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  }),
  EndpointSlice: builtin<V1EndpointSlice>({
    group: 'discovery.k8s.io',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    namespaced: true,
  }),
  Ingress: builtin<V1Ingress>({
    group: 'networking.k8s.io',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    status: true,
    shortNames: ['ing'],
  }),
  NetworkPolicy: builtin<V1NetworkPolicy>({
    group: 'networking.k8s.io',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    namespaced: true,
    shortNames: ['netpol'],
  }),
  PodDisruptionBudget: builtin<V1PodDisruptionBudget>({
    group: 'policy',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    status: true,
    shortNames: ['pdb'],
  }),
  HorizontalPodAutoscaler: builtin<V2HorizontalPodAutoscaler>({
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    status: true,
    shortNames: ['hpa'],
  }),
  Role: builtin<V1Role>({
    group: 'rbac.authorization.k8s.io',
    kind: 'Role',
    plural: 'roles',
    namespaced: true,
  }),
  RoleBinding: builtin<V1RoleBinding>({
    group: 'rbac.authorization.k8s.io',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    namespaced: true,
  }),
  ClusterRole: builtin<V1ClusterRole>({
    group: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
  }),
  ClusterRoleBinding: builtin<V1ClusterRoleBinding>({
    group: 'rbac.authorization.k8s.io',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  }),
  StorageClass: builtin<V1StorageClass>({
    group: 'storage.k8s.io',
    kind: 'StorageClass',
    plural: 'storageclasses',
    namespaced: false,
    shortNames: ['sc'],
  }),
  CustomResourceDefinition: builtin<V1CustomResourceDefinition>({
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    status: true,
    shortNames: ['crd', 'crds'],
    strategicMergePatch: false,
  }),
  MutatingWebhookConfiguration: builtin<V1MutatingWebhookConfiguration>({
    group: 'admissionregistration.k8s.io',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
  }),
  ValidatingWebhookConfiguration: builtin<V1ValidatingWebhookConfiguration>({
    group: 'admissionregistration.k8s.io',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  }),
} as const;

/** Every built-in descriptor, for registry seeding. */
export const builtinResources: readonly ResourceDescriptor[] = Object.values(builtins);
