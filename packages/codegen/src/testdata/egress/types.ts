// API types of the example egress operator, written with kubeloom markers.
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
 * @group egress.example.dev
 * @version v1alpha1
 * @scope Cluster
 * @shortName ipp
 * @category egress
 * @subresource status
 * @printColumn name=Family type=string jsonPath=.spec.ipFamily
 * @printColumn name=Capacity type=integer jsonPath=.status.capacity
 * @printColumn name=Allocated type=integer jsonPath=.status.allocated
 * @printColumn name=Age type=date jsonPath=.metadata.creationTimestamp
 * @rbac groups=egress.example.dev resources=ipampools verbs=get;list;watch;update
 * @rbac groups=egress.example.dev resources=ipampools/status verbs=get;update;patch
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
  /** When the address was allocated. */
  allocatedAt?: Date;
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
 * @group egress.example.dev
 * @version v1alpha1
 * @shortName egp
 * @category egress
 * @subresource status
 * @subresource scale specPath=.spec.gateway.replicas statusPath=.status.readyReplicas selectorPath=.status.gatewaySelector
 * @printColumn name=Pool type=string jsonPath=.spec.ipamPoolRef.name
 * @printColumn name=Ready type=string jsonPath=".status.conditions[?(@.type==\"Ready\")].status"
 * @rbac groups=egress.example.dev resources=egressgatewaypolicies verbs=get;list;watch;update;patch
 * @rbac groups=egress.example.dev resources=egressgatewaypolicies/status verbs=get;update;patch
 * @rbac groups=apps resources=deployments verbs=get;list;watch;create;update;patch;delete
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
  readyReplicas?: Count;
  gatewaySelector?: string;
  /**
   * @listType map
   * @listMapKey type
   * @maxItems 8
   */
  conditions?: V1Condition[];
}
