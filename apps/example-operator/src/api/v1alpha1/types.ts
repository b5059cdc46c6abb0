/**
 * The egress operator's API, `egress.kubeloom.dev/v1alpha1`, written once with kubeloom markers.
 * `pnpm generate` turns it into the CRDs and the ClusterRole in `deploy/generated/`, and the typed
 * clients and validators in `src/generated/` (checked by `pnpm generate --check` in CI).
 *
 * @module
 */
import type { V1Condition, V1LabelSelector, V1ObjectMeta } from '@kubernetes/client-node';

/**
 * @format int32
 */
export type Int32 = number;

/**
 * @format int64
 * @minimum 0
 */
export type Count = number;

/** An IP address family. */
export type IPFamily = 'IPv4' | 'IPv6';

/**
 * IPAMPool is a cluster-scoped pool of egress IP addresses.
 *
 * @group egress.kubeloom.dev
 * @version v1alpha1
 * @scope Cluster
 * @shortName ipp
 * @category egress
 * @subresource status
 * @printColumn name=Family type=string jsonPath=.spec.ipFamily
 * @printColumn name=Capacity type=integer jsonPath=.status.capacity
 * @printColumn name=Allocated type=integer jsonPath=.status.allocated
 * @printColumn name=Free type=integer jsonPath=.status.free
 * @printColumn name=Age type=date jsonPath=.metadata.creationTimestamp
 * @rbac groups=egress.kubeloom.dev resources=ipampools verbs=get;list;watch
 * @rbac groups=egress.kubeloom.dev resources=ipampools/status verbs=get;update;patch
 */
export interface IPAMPool {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: IPAMPoolSpec;
  status?: IPAMPoolStatus;
}

/** The desired state of a pool. */
export interface IPAMPoolSpec {
  /**
   * The address family of every CIDR.
   *
   * @default "IPv4"
   * @immutable
   */
  ipFamily?: IPFamily;
  /**
   * CIDRs addresses are allocated from.
   *
   * @minItems 1
   * @maxItems 16
   * @listType set
   * @items.maxLength 43
   */
  cidrs: string[];
  /**
   * Addresses never handed out.
   *
   * @maxItems 256
   * @listType set
   * @items.maxLength 39
   */
  excludeIPs?: string[];
  /**
   * Skip the network and broadcast addresses of IPv4 CIDRs.
   *
   * @default true
   */
  reserveNetworkAndBroadcast?: boolean;
}

/** One allocated address. */
export interface Allocation {
  /** @maxLength 39 */
  ip: string;
  /** The policy that owns the address. */
  owner: OwnerRef;
  /**
   * When the address was allocated (RFC 3339).
   *
   * @format date-time
   */
  allocatedAt?: string;
}

/** Identifies an EgressGatewayPolicy by UID. */
export interface OwnerRef {
  /** @maxLength 63 */
  namespace: string;
  /** @maxLength 253 */
  name: string;
  /** @maxLength 36 */
  uid: string;
}

/** The observed state of a pool. */
export interface IPAMPoolStatus {
  observedGeneration?: Count;
  capacity?: Count;
  /**
   * @minimum 0
   */
  allocated?: Int32;
  free?: Count;
  /**
   * @listType map
   * @listMapKey ip
   * @maxItems 4096
   */
  allocations?: Allocation[];
  /**
   * @listType map
   * @listMapKey type
   * @maxItems 8
   */
  conditions?: V1Condition[];
}

/**
 * EgressGatewayPolicy gives the selected pods egress IPs and a gateway Deployment.
 *
 * @group egress.kubeloom.dev
 * @version v1alpha1
 * @shortName egp
 * @category egress
 * @subresource status
 * @subresource scale specPath=.spec.gateway.replicas statusPath=.status.readyReplicas selectorPath=.status.gatewaySelector
 * @printColumn name=Pool type=string jsonPath=.spec.ipamPoolRef.name
 * @printColumn name=EgressIPs type=string jsonPath=.status.egressIPs
 * @printColumn name=Ready type=string jsonPath=".status.conditions[?(@.type==\"Ready\")].status"
 * @printColumn name=Replicas type=integer jsonPath=.status.readyReplicas
 * @printColumn name=Age type=date jsonPath=.metadata.creationTimestamp
 * @rbac groups=egress.kubeloom.dev resources=egressgatewaypolicies verbs=get;list;watch;update;patch
 * @rbac groups=egress.kubeloom.dev resources=egressgatewaypolicies/status verbs=get;update;patch
 * @rbac groups=egress.kubeloom.dev resources=egressgatewaypolicies/finalizers verbs=update
 * @rbac groups=apps resources=deployments verbs=get;list;watch;create;update;patch
 * @rbac groups=core;events.k8s.io resources=events verbs=create;patch
 */
export interface EgressGatewayPolicy {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: EgressGatewayPolicySpec;
  status?: EgressGatewayPolicyStatus;
}

/**
 * @validation rule="!has(self.requestedIPs) || size(self.requestedIPs) <= self.ipCount" message="requestedIPs cannot exceed ipCount"
 */
export interface EgressGatewayPolicySpec {
  /** Selects client pods in the policy's namespace. */
  podSelector: V1LabelSelector;
  /**
   * The pool to allocate from.
   *
   * @validation rule="self == oldSelf" message="ipamPoolRef is immutable"
   */
  ipamPoolRef: PoolRef;
  /**
   * How many egress IPs to allocate.
   *
   * @minimum 1
   * @maximum 4
   * @default 1
   */
  ipCount?: Int32;
  /**
   * @maxItems 4
   * @listType set
   * @items.maxLength 39
   */
  requestedIPs?: string[];
  /**
   * @maxItems 32
   * @listType set
   * @items.maxLength 43
   */
  destinationCIDRs?: readonly string[];
  /** The gateway Deployment. */
  gateway?: GatewaySpec;
}

/** A reference to a pool by name. */
export interface PoolRef {
  /**
   * @minLength 1
   * @maxLength 253
   */
  name: string;
}

/** How the gateway runs. */
export interface GatewaySpec {
  /**
   * @default "registry.example/egress-gw:v0.1.0"
   * @maxLength 512
   */
  image?: string;
  /**
   * @minimum 1
   * @maximum 5
   * @default 2
   */
  replicas?: Int32;
  /**
   * Where gateway pods may run.
   *
   * @maxProperties 16
   */
  nodeSelector?: Record<string, string>;
}

/** The observed state of a policy. */
export interface EgressGatewayPolicyStatus {
  observedGeneration?: Count;
  /**
   * @listType set
   * @maxItems 4
   */
  egressIPs?: string[];
  /** @maxLength 253 */
  gatewayDeployment?: string;
  /**
   * Ready gateway replicas, from the Deployment (the scale subresource's status replicas).
   *
   * @minimum 0
   */
  readyReplicas?: Int32;
  /** The gateway pods' label selector, serialized (the scale subresource's selector). */
  gatewaySelector?: string;
  /**
   * @listType map
   * @listMapKey type
   * @maxItems 8
   */
  conditions?: V1Condition[];
}
