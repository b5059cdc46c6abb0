/**
 * `@kubeloom/testing`: a real Kubernetes control plane (etcd + kube-apiserver; on request also
 * kube-controller-manager, kube-scheduler and kwok's simulated Nodes) for integration tests,
 * real ServiceAccount identities, helpers to install CRDs and isolate tests by namespace, and a fault-injection proxy.
 * A leaf package: it depends only on `@kubernetes/client-node` and Node built-ins.
 *
 * @packageDocumentation
 */
export {
  BENCH_RESULTS_ENV,
  type BenchMachine,
  type BenchMeasurement,
  type BenchRecord,
  benchMachine,
  reportBenchResults,
} from './bench-results.ts';
export {
  type BinaryLookup,
  type ControlPlaneBinary,
  ControlPlaneBinaryError,
  type FindBinaryOptions,
  findBinary,
  kubeloomAssetsDirectory,
  lookupBinary,
  testAssetVariable,
} from './binaries.ts';
export {
  type CertificateAuthority,
  type CertificatePair,
  type CertificateRequest,
  createCertificateAuthority,
  serviceAccountKeyPair,
} from './certs.ts';
export {
  type ControlPlane,
  type ControlPlaneOptions,
  type ControlPlaneProcess,
  ControlPlaneStartError,
  type ServerVersion,
  startControlPlane,
} from './control-plane.ts';
export {
  type CRDObject,
  type CRDSource,
  type InstallCRDsOptions,
  installCRDs,
  uninstallCRDs,
} from './crds.ts';
export { startFaultProxy } from './fault-proxy.ts';
export type {
  Blackhole,
  BlackholeOptions,
  FaultAction,
  FaultProxy,
  FaultProxyOptions,
  FaultProxyStats,
  FaultProxyUpstream,
  FaultRule,
  FaultRuleSpec,
  FaultType,
  InjectErrorOptions,
  InjectOptions,
  ProxiedRequest,
  ProxyAuthentication,
  RequestMatch,
  RequestVerb,
  RespondOptions,
  RuleScope,
  StallHandle,
  WaitOptions,
} from './fault-proxy-contract.ts';
export type { InClusterEnv, ServiceAccountTokenOptions } from './identities.ts';
export { createTestNamespace, TEST_NAMESPACE_LABEL } from './namespace.ts';
export { type PackOptions, packWorkspacePackages } from './pack.ts';
export { freePort, isPortClosed } from './ports.ts';
export { processExists } from './process.ts';
export {
  SHARED_ERROR_ENV,
  SHARED_INFO_ENV,
  SHARED_KUBECONFIG_ENV,
  type SharedControlPlane,
  sharedControlPlane,
} from './shared.ts';
export { ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION } from './versions.ts';
export { type WaitForOptions, type WaitForTimeout, WaitForTimeoutError, waitFor } from './wait-for.ts';
export { KWOK_NODE_ANNOTATION, type WorkloadsOptions } from './workloads.ts';
