/**
 * `@kubeloom/testing`: a real Kubernetes control plane (etcd + kube-apiserver) for integration
 * tests, helpers to install CRDs and isolate tests by namespace, and a fault-injection proxy.
 * A leaf package: it depends only on `@kubernetes/client-node` and Node built-ins.
 *
 * @packageDocumentation
 */
export {
  type BinaryLookup,
  ControlPlaneBinaryError,
  type ControlPlaneBinary,
  type FindBinaryOptions,
  findBinary,
  kubeloomAssetsDirectory,
  lookupBinary,
  testAssetVariable,
} from './binaries.ts';
export { type CertificatePair, type CertificateRequest, TinyCA, serviceAccountKeyPair } from './certs.ts';
export {
  type ControlPlane,
  type ControlPlaneOptions,
  ControlPlaneStartError,
  type ServerVersion,
  startControlPlane,
} from './control-plane.ts';
export { type CRDObject, type CRDSource, type InstallCRDsOptions, installCRDs, uninstallCRDs } from './crds.ts';
export { TEST_NAMESPACE_LABEL, createTestNamespace } from './namespace.ts';
export { freePort, isPortClosed } from './ports.ts';
export { processExists } from './process.ts';
export {
  SHARED_ERROR_ENV,
  SHARED_INFO_ENV,
  SHARED_KUBECONFIG_ENV,
  type SharedControlPlane,
  sharedControlPlane,
} from './shared.ts';
export { ETCD_VERSION, KUBERNETES_VERSION } from './versions.ts';
